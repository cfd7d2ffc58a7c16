using Spectre.Console;

namespace Orseis.Trace.Monitor;

/// <summary><c>monitor</c> on a terminal: one table per pool and the latest findings, redrawn in place each interval.</summary>
internal static class LiveView
{
    public static Spectre.Console.Rendering.IRenderable Render(
        string target, MonitorSnapshot? s, IReadOnlyList<(string Pool, FindingSnapshot F)> findings)
    {
        var rows = new List<Spectre.Console.Rendering.IRenderable>
        {
            new Markup($"[bold]orseis-trace[/] watching {Markup.Escape(target)}  [grey](Ctrl+C to stop)[/]"),
        };
        if (s is null)
        {
            rows.Add(new Markup("[grey]waiting for the first interval...[/]"));
            return new Rows(rows);
        }

        var table = new Table().Border(TableBorder.Rounded).Title($"{s.Time:HH:mm:ss}, every {s.IntervalSeconds:0.##} s");
        table.AddColumn("pool");
        table.AddColumn(new TableColumn("opens/s").RightAligned());
        table.AddColumn(new TableColumn("commands/s").RightAligned());
        table.AddColumn(new TableColumn("in use / max").RightAligned());
        table.AddColumn(new TableColumn("waiting").RightAligned());
        table.AddColumn("wait ms p50/p95/p99");
        table.AddColumn("use ms p50/p95/p99");
        table.AddColumn(new TableColumn("timeouts/s").RightAligned());
        table.AddColumn(new TableColumn("retries/s").RightAligned());
        foreach (PoolSnapshot p in s.Pools)
        {
            string waiting = p.Waiting is > 0 ? $"[yellow]{PlainView.Num(p.Waiting)}[/]" : PlainView.Num(p.Waiting);
            table.AddRow(Markup.Escape(PlainView.Name(p)), PlainView.Num(p.OpensPerSecond), PlainView.Num(p.CommandsPerSecond),
                $"{PlainView.Num(p.InUse)} / {PlainView.Num(p.Max)}", waiting, Ms(p.WaitMs), Ms(p.UseMs),
                PlainView.Num(p.TimeoutsPerSecond), p.RetriesPerSecond > 0 ? $"[yellow]{PlainView.Num(p.RetriesPerSecond)}[/]" : "0");
        }

        rows.Add(table);
        rows.Add(new Markup(
            $"thread pool: queue [bold]{PlainView.Num(s.ThreadPool.QueueLength)}[/], "
            + $"threads [bold]{PlainView.Num(s.ThreadPool.Threads)}[/]"));
        rows.Add(new Markup(findings.Count == 0 ? "[green]no findings yet[/]" : $"[bold red]findings[/] ({findings.Count}, latest last):"));
        foreach ((string pool, FindingSnapshot f) in findings.TakeLast(8))
        {
            string message = Markup.Escape(FirstSentence(f.Message));
            string link = Orseis.Diagnostics.FindingLinks.For(f.Kind) is { } help
                ? $" [dim][link={Markup.Escape(help.AbsoluteUri)}]{Markup.Escape(help.AbsoluteUri)}[/][/]"
                : "";
            rows.Add(new Markup($"  [red]{f.Time:HH:mm:ss.fff} {Markup.Escape(f.Kind)}[/] {Markup.Escape(pool)}: {message}{link}"));
        }

        return new Rows(rows);
    }

    /// <summary>The table keeps a finding to its first sentence; <c>report</c> and <c>--format json</c> give it whole.</summary>
    private static string FirstSentence(string message) => message.Split(". ", 2)[0] + ".";

    private static string Ms(Quantiles? q) => q is null ? "-" : $"{PlainView.Num(q.P50)} / {PlainView.Num(q.P95)} / {PlainView.Num(q.P99)}";
}
