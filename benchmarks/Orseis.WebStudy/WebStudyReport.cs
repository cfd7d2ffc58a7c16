using System.Globalization;
using System.Text;

namespace Orseis.WebStudy;

/// <summary>The study's results as markdown: per shape, requests/s per strategy and round, medians, ratios, the machine's load.</summary>
internal static class WebStudyReport
{
    public static string Markdown(WebStudyResult result)
    {
        var text = new StringBuilder();
        text.AppendLine("# Web-app study: open per call, a Session per request, a ConnectionScope per request");
        text.AppendLine();
        text.AppendLine(Invariant($"- Started {result.StartedUtc:yyyy-MM-dd HH:mm} UTC, took {result.Minutes:0.0} min; commit {result.Commit ?? "unknown"}."));
        text.AppendLine(Invariant($"- {result.Cores} cores ({result.Cpu ?? "CPU unknown"}), {result.Runtime}, {result.Server} through MySqlConnector."));
        text.AppendLine(Invariant($"- Load average (1 min): {Number(result.LoadAverageBefore, "0.00")} before, {Number(result.LoadAverageAfter, "0.00")} after."));
        text.AppendLine();
        text.AppendLine(Invariant($"{result.Rounds} round(s) of `hey -z {result.Seconds}s` per endpoint, after a warm-up of every endpoint; in each"));
        text.AppendLine("round the three strategies of a shape run one after another, in an order that turns each round. One app process");
        text.AppendLine("(ASP.NET Core, Kestrel on 127.0.0.1), a database and a MySqlConnector pool of its own per endpoint; every statement");
        text.AppendLine("is a primary-key read through an async repository method, its answer checked. percall: open per call. session:");
        text.AppendLine("`await db.OpenSessionAsync()` per request, held to its end. scope: `app.UseOrseisScopes()` for the endpoint, the");
        text.AppendLine("same calls as percall. Ratios are taken within each round and summarized over the rounds: median [range].");
        text.AppendLine(result.Detectors
            ? "Orseis' detectors All (--detectors): parked ms per request is timed."
            : "Orseis' detectors off (the default): parked time is not timed (–).");
        if (result.CutShort)
            text.AppendLine().AppendLine("**Cut short by --max-minutes: not every round was made.**");

        foreach (ShapeSummary shape in result.Shapes)
            Shape(text, shape, [.. result.Loads.Where(l => l.Shape == shape.Shape)], result.ServerCpuCounted);
        return text.ToString();
    }

    private static void Shape(StringBuilder text, ShapeSummary shape, LoadResult[] loads, bool serverCounted)
    {
        text.AppendLine();
        text.AppendLine(Invariant($"## {shape.Shape}: {shape.Description}; {shape.Clients} clients, Max Pool Size {shape.MaxPoolSize}"));
        text.AppendLine();
        text.AppendLine("| strategy | requests/s, median [range] | p99 ms, median | failed | opens per request | scope reuses per request | parked ms per request |");
        text.AppendLine("|---|---:|---:|---:|---:|---:|---:|");
        foreach (StrategySummary s in shape.Strategies)
        {
            text.AppendLine(Invariant(
                $"| {s.Strategy} | {Cell(s.RequestsPerSecond, "0")} | {Number(s.P99Ms?.Median, "0.0")} | {s.Failed} | {Number(s.OpensPerRequest?.Median, "0.00")} | {Number(s.ReusesPerRequest?.Median, "0.00")} | {Number(s.ParkedMsPerRequest?.Median, "0.00")} |"));
        }

        text.AppendLine();
        text.AppendLine("| ratio of requests/s, per round | median | range | rounds |");
        text.AppendLine("|---|---:|---|---:|");
        foreach (RatioSummary r in shape.Ratios)
        {
            text.AppendLine(r.Ratio is { } v
                ? Invariant($"| {r.Name} | {v.Median:0.00} | {v.Min:0.00} – {v.Max:0.00} | {v.Count} |")
                : $"| {r.Name} | – | – | 0 |");
        }

        text.AppendLine();
        text.AppendLine("| round | order | strategy | requests/s | p50 ms | p99 ms | failed | load avg | machine busy | others busy |");
        text.AppendLine("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
        foreach (LoadResult l in loads)
        {
            text.AppendLine(Invariant(
                $"| {l.Round} | {l.Order} | {l.Strategy} | {l.RequestsPerSecond:0} | {l.P50Ms:0.0} | {l.P99Ms:0.0} | {l.Failed} | {Number(l.LoadAverage, "0.00")} | {Percent(l.MachineBusy)} | {Percent(l.OthersBusy)} |"));
        }

        text.AppendLine();
        text.AppendLine("Machine busy: the share of all cores' time busy while hey ran. Others busy: the share busy with anything but the");
        text.AppendLine(serverCounted
            ? "app, MariaDB and hey (other work on the machine)."
            : "app and hey (MariaDB's own CPU is in it: its process was not found from here).");
    }

    private static string Cell(Spread? spread, string format) =>
        spread is { } s ? $"{Number(s.Median, format)} [{Number(s.Min, format)} – {Number(s.Max, format)}]" : "–";

    private static string Number(double? value, string format) =>
        value is { } v && double.IsFinite(v) ? v.ToString(format, CultureInfo.InvariantCulture) : "–";

    private static string Percent(double? share) => share is { } s ? Number(s * 100, "0") + " %" : "–";

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
