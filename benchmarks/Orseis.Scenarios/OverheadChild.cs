using System.Diagnostics;
using System.Globalization;
using Microsoft.Data.Sqlite;
using MySqlConnector;

namespace Orseis.Scenarios;

/// <summary>
/// One side of an overhead pair: a process with one <see cref="Database"/> (Detectors None or All, listeners or not)
/// (over MariaDB through MySqlConnector, or in-memory SQLite) that runs a block of sequential <c>Scalar("select 1")</c> calls each time its parent asks, and answers with what the
/// block cost. The parent alternates blocks between the two sides of the pair, so both see the same machine.
/// </summary>
internal static class OverheadChild
{
    /// <summary>Calls made before the first block, so both sides measure optimised code over warm pools.</summary>
    public const int Warmup = 5000;

    /// <summary>How long no method may be compiled before the child says it is ready.</summary>
    private static readonly TimeSpan Quiet = TimeSpan.FromSeconds(1);

    /// <summary>The longest the child waits for compilation to settle.</summary>
    private static readonly TimeSpan SettleLimit = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Serves blocks until stdin closes: reads <c>MODE CALLS</c> (mode <c>session</c> or <c>per-call</c>), runs the calls,
    /// prints <c>wallNs cpuNs bytes userNs</c> for the block (wall time, the calling thread's CPU time, bytes it allocated,
    /// its user-mode CPU time).
    /// </summary>
    public static int Run(string provider, string detectors, bool listeners, string shape = "select1")
    {
        using OverheadListeners? listening = listeners ? new OverheadListeners() : null;
        var options = new OrseisOptions();
        options.Diagnostics.Detectors = OverheadCommand.ParseDetectors(detectors)
            ?? throw new ArgumentException($"detectors '{detectors}' is not a set of FindingKind names (e.g. All, or All-RepeatedStatement)");
        // The session below is held for the child's whole life: past the default 30 s it would be reported once, at a
        // moment set by how slow the run is (under valgrind, in whichever block crosses it), a one-off cost that would
        // land in one block's per-call figure.
        options.Diagnostics.HeldTooLongThreshold = TimeSpan.FromDays(1);
        using var db = provider == "sqlite"
            ? new Database(SqliteFactory.Instance, "Data Source=file:overhead?mode=memory&cache=shared", options)
            : new Database(MySqlConnectorFactory.Instance, Server.With("", "orseis-overhead-" + Environment.ProcessId), options);
        if (shape == "web")
            return OverheadWebRequests.Serve(db, inMemoryTable: provider != "sqlite");
        using Session session = db.OpenSession();
        for (int i = 0; i < Warmup; i++)
        {
            GC.KeepAlive(session.Scalar<long>("select 1"));
            GC.KeepAlive(db.Scalar<long>("select 1"));
        }

        // Tiered compilation goes on in the background for seconds after the warm-up calls (the detectors' code is
        // more to compile: about 0.1 s more of the JIT thread's CPU on MariaDB). That is a cost paid once, at start, not
        // per call: keep calling until no method was compiled for a second, so the blocks measure the steady state.
        long settled = Stopwatch.GetTimestamp();
        long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
        while (Stopwatch.GetElapsedTime(settled) < SettleLimit)
        {
            long quietSince = Stopwatch.GetTimestamp();
            while (Stopwatch.GetElapsedTime(quietSince) < Quiet)
            {
                GC.KeepAlive(session.Scalar<long>("select 1"));
                GC.KeepAlive(db.Scalar<long>("select 1"));
            }

            long now = System.Runtime.JitInfo.GetCompiledMethodCount();
            if (now == compiled)
                break;
            compiled = now;
        }

        Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"jit: {compiled} methods, {System.Runtime.JitInfo.GetCompilationTime().TotalMilliseconds:0} ms compiling"));
        Console.WriteLine("ready");
        while (Console.ReadLine() is { } line)
        {
            string[] parts = line.Split(' ');
            bool perCall = parts[0] == "per-call";
            int calls = int.Parse(parts[1], CultureInfo.InvariantCulture);
            long bytes = GC.GetAllocatedBytesForCurrentThread();
            long cpu = ThreadCpu.Nanoseconds();
            long user = ThreadCpu.UserNanoseconds();
            long start = Stopwatch.GetTimestamp();
            for (int i = 0; i < calls; i++)
                GC.KeepAlive(perCall ? db.Scalar<long>("select 1") : session.Scalar<long>("select 1"));
            long wall = (long)Stopwatch.GetElapsedTime(start).TotalNanoseconds;
            cpu = ThreadCpu.Nanoseconds() - cpu;
            user = ThreadCpu.UserNanoseconds() - user;
            bytes = GC.GetAllocatedBytesForCurrentThread() - bytes;
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{wall} {cpu} {bytes} {user}"));
        }

        return 0;
    }
}
