using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;
using System.Globalization;
using MySqlConnector;
using Orseis.Diagnostics;

namespace Orseis.Scenarios;

/// <summary>
/// Detector overhead in the calling thread's CPU time and allocations, which a machine shared with other builds disturbs
/// far less than wall time: a sequential loop of <c>Scalar("select 1")</c> against MariaDB, on a Session and open-per-call, with
/// Detectors None and All, with and without in-process listeners; every case a fresh process, the cases interleaved
/// round by round, medians reported.
/// </summary>
internal static class OverheadCommand
{
    private static readonly string[] Cases = ["None", "All", "None+listeners", "All+listeners"];
    private static readonly string[] Modes = ["session", "per-call"];

    public static async Task<int> RunAsync(string[] args)
    {
        int rounds = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 5;
        var results = new Dictionary<(string Case, string Mode), List<(double CpuUs, double Bytes)>>();
        for (int round = 0; round < rounds; round++)
        {
            foreach (string mode in Modes)
            {
                foreach (string c in Cases)
                {
                    using Process child = SuiteRunner.StartSelf("overhead-child", c, mode);
                    string output = await child.StandardOutput.ReadToEndAsync();
                    await child.WaitForExitAsync();
                    string[] parts = output.Trim().Split(' ');
                    (results.TryGetValue((c, mode), out var list) ? list : results[(c, mode)] = []).Add(
                        (double.Parse(parts[0], CultureInfo.InvariantCulture), double.Parse(parts[1], CultureInfo.InvariantCulture)));
                }
            }
        }

        Console.WriteLine($"| mode | case | client CPU per call (median of {rounds}) | vs None | allocated per call | vs None |");
        Console.WriteLine("|---|---|---|---|---|---|");
        foreach (string mode in Modes)
        {
            (double cpu, double bytes) none = Median(results[("None", mode)]);
            (double cpu, double bytes) noneListening = Median(results[("None+listeners", mode)]);
            foreach (string c in Cases)
            {
                (double cpu, double bytes) m = Median(results[(c, mode)]);
                (double cpu, double bytes) baseline = c.EndsWith("listeners", StringComparison.Ordinal) ? noneListening : none;
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"| {mode} | {c} | {m.cpu:0.0} µs | {(m.cpu / baseline.cpu - 1):+0.0%;-0.0%} | {m.bytes:0} B | {(m.bytes / baseline.bytes - 1):+0.0%;-0.0%} |"));
            }
        }

        Console.WriteLine();
        Console.WriteLine("'vs None' compares with Detectors=None under the same listeners (none, or both attached).");
        return 0;
    }

    private static (double, double) Median(List<(double CpuUs, double Bytes)> values) =>
        (values.Select(v => v.CpuUs).Order().ElementAt(values.Count / 2), values.Select(v => v.Bytes).Order().ElementAt(values.Count / 2));

    /// <summary>
    /// One case in this process: prints the calling thread's CPU µs per call (the median of 15 blocks of 1000 calls, so a
    /// moment of contention from other processes does not move it) and the bytes it allocated per call.
    /// </summary>
    public static int Child(string c, string mode)
    {
        const int Warmup = 3000, Blocks = 15, PerBlock = 1000;
        using MeterListener? meters = c.EndsWith("listeners", StringComparison.Ordinal) ? Meters() : null;
        using OrseisEvents? events = c.EndsWith("listeners", StringComparison.Ordinal) ? new OrseisEvents() : null;
        var options = new OrseisOptions();
        options.Diagnostics.Detectors = c.StartsWith("All", StringComparison.Ordinal) ? FindingKind.All : FindingKind.None;
        if (Environment.GetEnvironmentVariable("ORSEIS_OVERHEAD_DETECTORS") is { Length: > 0 } only && options.Diagnostics.Detectors != FindingKind.None)
            options.Diagnostics.Detectors = Enum.Parse<FindingKind>(only);
        using var db = new Database(MySqlConnectorFactory.Instance, Server.With(""), options);
        using Session? session = mode == "session" ? db.OpenSession() : null;
        for (int i = 0; i < Warmup; i++)
            Call();
        GC.Collect();
        var perBlock = new List<double>();
        long allocated = GC.GetAllocatedBytesForCurrentThread();
        for (int b = 0; b < Blocks; b++)
        {
            long cpu = ThreadCpuNanoseconds();
            for (int i = 0; i < PerBlock; i++)
                Call();
            perBlock.Add((ThreadCpuNanoseconds() - cpu) / 1000.0 / PerBlock);
        }

        double bytes = (GC.GetAllocatedBytesForCurrentThread() - allocated) / (double)(Blocks * PerBlock);
        double cpuUs = perBlock.Order().ElementAt(Blocks / 2);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{cpuUs:0.000} {bytes:0.0}"));
        return 0;

        void Call() => GC.KeepAlive(session is null ? db.Scalar<long>("select 1") : session.Scalar<long>("select 1"));
    }

    [System.Runtime.InteropServices.StructLayout(System.Runtime.InteropServices.LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "clock_gettime")]
#pragma warning disable SYSLIB1054, CA5392 // a benchmark helper: one libc call, no marshalling to generate
    private static extern int ClockGetTime(int clock, out TimeSpec time);
#pragma warning restore SYSLIB1054, CA5392

    /// <summary>CPU time of the calling thread (Linux CLOCK_THREAD_CPUTIME_ID), in nanoseconds.</summary>
    private static long ThreadCpuNanoseconds()
    {
        _ = ClockGetTime(3, out TimeSpec t);
        return (t.Seconds * 1_000_000_000) + t.Nanoseconds;
    }

    private static MeterListener Meters()
    {
        var listener = new MeterListener
        {
            InstrumentPublished = static (instrument, l) =>
            {
                if (instrument.Meter.Name == "Orseis")
                    l.EnableMeasurementEvents(instrument);
            },
        };
        listener.SetMeasurementEventCallback<long>(static (_, _, _, _) => { });
        listener.SetMeasurementEventCallback<int>(static (_, _, _, _) => { });
        listener.SetMeasurementEventCallback<double>(static (_, _, _, _) => { });
        listener.Start();
        return listener;
    }

    private sealed class OrseisEvents : EventListener
    {
        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "Orseis")
                EnableEvents(eventSource, EventLevel.Verbose);
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
        }
    }
}
