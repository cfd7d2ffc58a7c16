using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Globalization;
using Microsoft.Diagnostics.NETCore.Client;
using Orseis.Trace.Cli;
using Orseis.Trace.Targets;

namespace Orseis.Trace.Report;

/// <summary><c>orseis-trace collect</c>: writes the process's Orseis events and meters, thread-pool events and the provider's
/// pool meter to a <c>.nettrace</c> file, with progress on stderr.</summary>
internal static class CollectCommand
{
    public static async Task<ExitCode> RunAsync(TargetOptions targetOptions, TimeSpan interval, TimeSpan? duration, string output,
        CancellationToken cancel)
    {
        await using Target target = await TargetResolver.ConnectAsync(targetOptions, cancel).ConfigureAwait(false);
        await RecordAsync(target, interval, duration, output, cancel).ConfigureAwait(false);
        return ExitCode.Ok;
    }

    public static async Task RecordAsync(Target target, TimeSpan interval, TimeSpan? duration, string output, CancellationToken cancel)
    {
        FileStream file;
        try
        {
            file = new FileStream(output, FileMode.Create, FileAccess.Write, FileShare.Read);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            throw new ToolError(ExitCode.CannotWrite, $"cannot write '{output}': {e.Message}");
        }

        await using (file)
        {
            using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancel);
            if (duration is { } d)
                stop.CancelAfter(d);
            EventPipeSession session;
            try
            {
                session = target.Client.StartEventPipeSession(TraceProviders.For("orseis-trace", interval, EventLevel.Verbose, facts: true),
                    requestRundown: false);
            }
            catch (Exception e) when (e is ServerNotAvailableException or ServerErrorException or IOException)
            {
                throw new ToolError(ExitCode.AttachFailed, $"cannot start a session on {target.Description}: {e.Message}");
            }

            using (session)
            {
                target.Resume();
                var clock = Stopwatch.StartNew();
                Task copy = session.EventStream.CopyToAsync(file, CancellationToken.None);
                Console.Error.WriteLine($"orseis-trace: recording {target.Description} to {output}; Ctrl+C to stop.");
                while (!copy.IsCompleted && !stop.IsCancellationRequested)
                {
                    try
                    {
                        await Task.WhenAny(copy, Task.Delay(TimeSpan.FromSeconds(1), stop.Token)).ConfigureAwait(false);
                    }
                    catch (OperationCanceledException)
                    {
                    }

                    Progress(clock.Elapsed, file.Length, output);
                }

                if (!copy.IsCompleted)
                {
                    try
                    {
                        await session.StopAsync(CancellationToken.None).ConfigureAwait(false);
                    }
                    catch (Exception e) when (e is ServerNotAvailableException or ServerErrorException or IOException or TimeoutException)
                    {
                        // The process exited meanwhile: the stream ends by itself.
                    }
                }

                try
                {
                    await copy.WaitAsync(TimeSpan.FromSeconds(30), CancellationToken.None).ConfigureAwait(false);
                }
                catch (Exception e) when (e is IOException or TimeoutException or ObjectDisposedException)
                {
                    // What arrived is in the file; report says if it is cut short.
                }

                Progress(clock.Elapsed, file.Length, output);
                Console.Error.WriteLine();
            }
        }
    }

    private static void Progress(TimeSpan elapsed, long bytes, string output)
    {
        string line = string.Create(CultureInfo.InvariantCulture,
            $"  {elapsed:hh\\:mm\\:ss}  {bytes / 1024.0:0.0} KiB written to {output}");
        if (Console.IsErrorRedirected)
            Console.Error.WriteLine(line);
        else
            Console.Error.Write("\r" + line);
    }
}
