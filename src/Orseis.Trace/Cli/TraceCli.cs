using System.CommandLine;
using Orseis.Trace.Monitor;
using Orseis.Trace.Report;
using Orseis.Trace.Targets;

namespace Orseis.Trace.Cli;

/// <summary>The command line: <c>monitor</c> (also the default), <c>collect</c>, <c>report</c>, <c>ps</c>.</summary>
internal static class TraceCli
{
    private static readonly Option<int?> ProcessId = new("--process-id", "-p")
    {
        Description = "the .NET process to watch",
        CustomParser = r =>
        {
            string text = r.Tokens.Count > 0 ? r.Tokens[0].Value : "";
            if (int.TryParse(text, System.Globalization.CultureInfo.InvariantCulture, out int id))
                return id;
            r.AddError($"--process-id takes a process id (a number), not '{text}'");
            return null;
        },
    };
    private static readonly Option<string?> Name = new("--name", "-n")
    {
        Description = "the .NET process to watch, by name (an app run as `dotnet App.dll` is named App)",
    };
    private static readonly Option<string?> DiagnosticPort = new("--diagnostic-port")
    {
        Description = "listen on this path for a process started with DOTNET_DiagnosticPorts=PATH, and watch it from its start",
    };
    private static readonly Option<string> Interval = new("--interval")
    {
        Description = "seconds between meter readings (0.1 to 3600; 2.5, 500ms, 1s...)", DefaultValueFactory = _ => "1",
    };
    private static readonly Option<string?> Duration = new("--duration")
    {
        Description = "stop after this long (2.5 = seconds; 500ms, 30s, 2m, hh:mm:ss); default: Ctrl+C or the process's exit",
    };
    private static readonly Option<string> MonitorFormat = new Option<string>("--format")
    {
        Description = "text (a live table on a terminal, lines otherwise) or json (one object per interval)",
        DefaultValueFactory = _ => "text",
    }.AcceptOnlyFromAmong("text", "json");
    private static readonly Option<string> ReportFormat = new Option<string>("--format")
    {
        Description = "text, json, or html (one self-contained file with charts)", DefaultValueFactory = _ => "text",
    }.AcceptOnlyFromAmong("text", "json", "html");
    private static readonly Option<string> Output = new("--output", "-o") { Description = "the .nettrace file to write", Required = true };
    private static readonly Option<string?> ReportOutput = new("--output", "-o")
    {
        Description = "write the report to this file, not stdout",
    };
    private static readonly Argument<string?> TraceFile = new("trace")
    {
        Description = "a .nettrace file from `orseis-trace collect` or `dotnet-trace collect`; or give a process instead",
        Arity = ArgumentArity.ZeroOrOne,
    };

    public static RootCommand Build(IReadOnlyList<string> command)
    {
        var monitor = new Command("monitor", "Watch the pools live: opens/s, in use vs max, waiting callers, wait and use times, findings")
        {
            ProcessId, Name, DiagnosticPort, Interval, Duration, MonitorFormat,
        };
        var collect = new Command("collect",
            "Record Orseis' events and meters, the thread pool and the provider's pool meter to a .nettrace")
        {
            ProcessId, Name, DiagnosticPort, Interval, Duration, Output,
        };
        var report = new Command("report", "Say per pool what was found, with the numbers, from a .nettrace file or a live process")
        {
            TraceFile, ProcessId, Name, DiagnosticPort, Interval, Duration, ReportFormat, ReportOutput,
        };
        var ps = new Command("ps", "List the .NET processes this user can watch; ORSEIS marks those that loaded Orseis");
        var root = new RootCommand(
            "orseis-trace: is the database pool why the app is slow? Watches the Orseis pools of a .NET process over EventPipe.\n"
            + "Without a command it runs `monitor`. Start an app under it with: orseis-trace monitor -- dotnet App.dll")
        {
            ProcessId, Name, DiagnosticPort, Interval, Duration, MonitorFormat, monitor, collect, report, ps,
        };

        Func<ParseResult, CancellationToken, Task<int>> monitorAction = Guarded((p, ct) =>
            MonitorCommand.RunAsync(Target(p, command), Durations.Interval(p.GetValue(Interval)!), DurationOf(p),
                p.GetValue(MonitorFormat)!, ct));
        root.SetAction(monitorAction);
        monitor.SetAction(monitorAction);
        collect.SetAction(Guarded((p, ct) => CollectCommand.RunAsync(Target(p, command), Durations.Interval(p.GetValue(Interval)!),
            DurationOf(p), p.GetValue(Output)!, ct)));
        report.SetAction(Guarded((p, ct) => ReportCommand.RunAsync(p.GetValue(TraceFile), Target(p, command),
            Durations.Interval(p.GetValue(Interval)!), DurationOf(p), p.GetValue(ReportFormat)!, p.GetValue(ReportOutput), ct)));
        ps.SetAction(Guarded((_, _) => Task.FromResult(PsCommand.Run())));
        return root;
    }

    private static TargetOptions Target(ParseResult p, IReadOnlyList<string> command) =>
        new(p.GetValue(ProcessId), p.GetValue(Name), p.GetValue(DiagnosticPort), command);

    private static TimeSpan? DurationOf(ParseResult p) => p.GetValue(Duration) is { } text ? Durations.Parse("--duration", text) : null;

    private static Func<ParseResult, CancellationToken, Task<int>> Guarded(Func<ParseResult, CancellationToken, Task<ExitCode>> run) =>
        async (parse, cancel) =>
        {
            try
            {
                return (int)await run(parse, cancel).ConfigureAwait(false);
            }
            catch (ToolError e)
            {
                return Fail(e.Code, e.Message);
            }
#pragma warning disable CA1031 // The last line of defence: one line and an exit code, never a stack trace.
            catch (Exception e)
#pragma warning restore CA1031
            {
                // ORSEIS_TRACE_DEBUG=1 prints the whole exception, for a bug report.
                if (Environment.GetEnvironmentVariable("ORSEIS_TRACE_DEBUG") == "1")
                    Console.Error.WriteLine(e);
                return Fail(ExitCode.Internal, $"unexpected {e.GetType().Name}: {FirstLine(e.Message)}");
            }
        };

    public static int Fail(ExitCode code, string message)
    {
        Console.Error.WriteLine("orseis-trace: " + FirstLine(message));
        return (int)code;
    }

    private static string FirstLine(string text) => text.Split('\n', 2)[0].TrimEnd('\r');
}
