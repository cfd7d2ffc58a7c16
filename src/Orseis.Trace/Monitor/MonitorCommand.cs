using System.Text.Json;
using Orseis.Trace.Cli;
using Orseis.Trace.Targets;
using Spectre.Console;

namespace Orseis.Trace.Monitor;

/// <summary><c>orseis-trace monitor</c>: the pools live, per interval, until Ctrl+C, <c>--duration</c> or the process exits.</summary>
internal static class MonitorCommand
{
    internal static readonly JsonSerializerOptions Json = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        NumberHandling = System.Text.Json.Serialization.JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    public static async Task<ExitCode> RunAsync(TargetOptions targetOptions, TimeSpan interval, TimeSpan? duration, string format,
        CancellationToken cancel)
    {
        bool json = format == "json";
        bool live = !json && !Console.IsOutputRedirected && AnsiConsole.Profile.Capabilities.Ansi;
        await using Target target = await TargetResolver.ConnectAsync(targetOptions, cancel).ConfigureAwait(false);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancel);
        if (duration is { } d)
            stop.CancelAfter(d);
        var state = new MonitorState(interval);
        var findings = new List<(string Pool, FindingSnapshot F)>();
        using var session = new OrseisTraceSession(target.Client, interval);
        session.Metric += state.Add;
        session.Finding += f =>
        {
            state.Add(f);
            var shown = new FindingSnapshot(f.Time == default ? DateTime.Now : f.Time.ToLocalTime(), f.Kind, f.Message, f.Figures);
            lock (findings)
                findings.Add((f.Pool, shown));
            if (!json && !live)
                Console.WriteLine(PlainView.Finding(f.Pool, shown));
        };
        target.Resume();
        _ = session.Ended.Task.ContinueWith(_ => stop.Cancel(), TaskScheduler.Default);
        if (!json && !live)
            Console.WriteLine($"orseis-trace: watching {target.Description} every {interval.TotalSeconds:0.##} s; Ctrl+C to stop.");

        if (live)
        {
            await AnsiConsole.Live(LiveView.Render(target.Description, null, []))
                .StartAsync(async ctx => await Loop(interval, stop.Token, s =>
                {
                    lock (findings)
                        ctx.UpdateTarget(LiveView.Render(target.Description, s, [.. findings]));
                    ctx.Refresh();
                }).ConfigureAwait(false)).ConfigureAwait(false);
        }
        else
        {
            await Loop(interval, stop.Token, s =>
            {
                if (json)
                {
                    Console.WriteLine(JsonSerializer.Serialize(s, Json));
                }
                else
                {
                    foreach (PoolSnapshot p in s.Pools)
                        Console.WriteLine(PlainView.Line(s, p));
                }

                Console.Out.Flush();
            }).ConfigureAwait(false);
        }

        return ExitCode.Ok;

        async Task Loop(TimeSpan every, CancellationToken token, Action<MonitorSnapshot> show)
        {
            using var timer = new PeriodicTimer(every);
            try
            {
                while (await timer.WaitForNextTickAsync(token).ConfigureAwait(false))
                    show(state.Take());
            }
            catch (OperationCanceledException)
            {
            }
        }
    }
}
