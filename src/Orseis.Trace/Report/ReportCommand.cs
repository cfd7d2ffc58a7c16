using System.Text.Json;
using Microsoft.Diagnostics.Tracing;
using Orseis.Trace.Cli;
using Orseis.Trace.Monitor;
using Orseis.Trace.Targets;

namespace Orseis.Trace.Report;

/// <summary><c>orseis-trace report</c>: reads a <c>.nettrace</c> (or records one from a live process first) and writes per pool
/// what the process found and the figures its events and meter carried.</summary>
internal static class ReportCommand
{
    private static readonly JsonSerializerOptions Indented = new(MonitorCommand.Json) { WriteIndented = true };

    public static async Task<ExitCode> RunAsync(string? trace, TargetOptions targetOptions, TimeSpan interval, TimeSpan? duration,
        string format, string? output, CancellationToken cancel)
    {
        if (trace is not null && targetOptions.Given)
            throw new ToolError(ExitCode.Usage, "give a trace file or a process (-p, -n, --diagnostic-port, -- COMMAND), not both");
        (TraceReport report, TraceFacts facts) read;
        if (trace is not null)
        {
            read = Read(trace, Path.GetFileName(trace));
        }
        else
        {
            string recorded = Path.Combine(Path.GetTempPath(), $"orseis-trace-{Environment.ProcessId}-{Guid.NewGuid():N}.nettrace");
            try
            {
                await using (Target target = await TargetResolver.ConnectAsync(targetOptions, cancel).ConfigureAwait(false))
                    await CollectCommand.RecordAsync(target, interval, duration, recorded, cancel).ConfigureAwait(false);
                read = Read(recorded, "(live)");
            }
            finally
            {
                File.Delete(recorded);
            }
        }

        string text = format switch
        {
            "json" => JsonSerializer.Serialize(read.report, Indented) + "\n",
            "html" => HtmlReport.Write(read.report, read.facts),
            _ => TextReport.Write(read.report),
        };
        if (output is null)
        {
            Console.Out.Write(text);
            return ExitCode.Ok;
        }

        try
        {
            await File.WriteAllTextAsync(output, text, cancel).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            throw new ToolError(ExitCode.CannotWrite, $"cannot write '{output}': {e.Message}");
        }

        Console.Error.WriteLine($"orseis-trace: wrote {output}");
        return ExitCode.Ok;
    }

    /// <summary>Reads a whole trace; a missing, foreign or cut-short file is refused with its reason.</summary>
    internal static (TraceReport Report, TraceFacts Facts) Read(string path, string name)
    {
        if (!File.Exists(path))
            throw new ToolError(ExitCode.BadTraceFile, $"no trace file '{path}'");
        CheckComplete(path);
        var facts = new TraceFacts();
        int orseisEvents = 0;
        try
        {
            using var source = new EventPipeEventSource(path);
            var decoder = new OrseisEventDecoder(source);
            facts.Subscribe(decoder);
            source.Process();
            orseisEvents = decoder.OrseisEvents;
        }
#pragma warning disable CA1031 // TraceEvent throws many types on a file it cannot read; each means the same to the user.
        catch (Exception e) when (e is not ToolError)
#pragma warning restore CA1031
        {
            throw new ToolError(ExitCode.BadTraceFile, $"'{path}' is not a readable .nettrace file ({e.GetType().Name}: {e.Message})");
        }

        if (orseisEvents == 0)
        {
            throw new ToolError(ExitCode.NoOrseis,
                $"'{path}' holds no Orseis event or meter value: the process did not use Orseis while recorded");
        }

        return (facts.Build(name), facts);
    }

    /// <summary>
    /// A .nettrace starts with <c>Nettrace</c> and ends with the format's end-object tag (6) of its last block and its
    /// end-of-stream tag (1) once the session was stopped cleanly: a file cut short (a crash, a copy that stopped) ends
    /// elsewhere in a block. TraceEvent reads such a file up to the cut without saying so, which would make a report of half
    /// the facts.
    /// </summary>
    private static void CheckComplete(string path)
    {
        try
        {
            using FileStream file = File.OpenRead(path);
            byte[] head = new byte[8];
            if (file.Length < 16 || file.ReadAtLeast(head, 8, throwOnEndOfStream: false) < 8 || !"Nettrace"u8.SequenceEqual(head))
                throw new ToolError(ExitCode.BadTraceFile, $"'{path}' is not a .nettrace file (it does not start with 'Nettrace')");
            file.Seek(-2, SeekOrigin.End);
            if (file.ReadByte() != 6 || file.ReadByte() != 1)
                throw new ToolError(ExitCode.BadTraceFile, $"'{path}' is cut short: it does not end where a finished .nettrace ends");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new ToolError(ExitCode.BadTraceFile, $"cannot read '{path}': {e.Message}");
        }
    }
}
