using System.Globalization;

namespace Orseis.InstructionCount;

/// <summary>
/// The measured process (<c>run</c>): warms every path up, then starts callgrind's instrumentation and, path by path,
/// collects the calling thread's instructions over <c>calls</c> calls and writes them to a dump named after the path.
/// Outside valgrind it runs the same calls and the requests do nothing.
/// </summary>
internal static class Child
{
    /// <summary>The environment variable that adds a fixed cost to one path, for the gate's own test: <c>PATH=ITERATIONS</c>.</summary>
    public const string InjectVariable = "ORSEIS_GATE_INJECT";

    /// <summary>Calls each path makes before any is measured (code is compiled fully optimised on first use).</summary>
    private const int Warmup = 50;

    /// <summary>Calls each path makes again, instrumented, right before its measured calls.</summary>
    private const int Rewarm = 5;

    /// <summary>The name of the throw-away measurement's dump, which <see cref="Gate"/> does not read as a path.</summary>
    public const string DiscardedDump = "discarded";

    private static int _sink;

    public static int Run(IReadOnlyList<GatePath> paths, int calls)
    {
        if (paths.Select(p => p.Listeners).Distinct().Count() > 1)
            throw new ArgumentException("one run measures paths with listeners all on or all off");
        (GatePath Path, int Iterations)? inject = ReadInjection();
        using Listeners? listening = paths.Count > 0 && paths[0].Listeners ? new Listeners() : null;
        var workloads = GatePath.DetectorSettings.Union(paths.Select(p => p.Detectors)).ToDictionary(d => d, d => new Workload(d));
        try
        {
            foreach (GatePath path in paths)
                Exercise(path, workloads[path.Detectors], Warmup, inject, measure: false);
            Callgrind.StartInstrumenting();
            // The first measured window pays one-time work (about 550 instructions a call were counted into whichever
            // path came first, even after an instrumented pass that was not collected): measure the first path once
            // more before any other, under a dump the parent discards.
            if (paths.Count > 0)
                Exercise(paths[0], workloads[paths[0].Detectors], calls, inject: null, measure: true, DiscardedDump);
            foreach (GatePath path in paths)
            {
                long bytes = GC.GetAllocatedBytesForCurrentThread();
                int gcs = Exercise(path, workloads[path.Detectors], calls, inject, measure: true);
                bytes = GC.GetAllocatedBytesForCurrentThread() - bytes;
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"measured {path} calls={calls} gen0={gcs} bytes/call={bytes / (double)calls:0}"));
            }
        }
        finally
        {
            foreach (Workload workload in workloads.Values)
                workload.Dispose();
        }

        return 0;
    }

    /// <summary>Runs <paramref name="calls"/> calls of the path; measured, between a toggle on and off and a dump. Returns the gen0 collections in between.</summary>
    private static int Exercise(GatePath path, Workload workload, int calls, (GatePath Path, int Iterations)? inject, bool measure, string? dump = null)
    {
        int extra = inject is { } i && i.Path == path ? i.Iterations : 0;
        Session? session = path.Mode == "session" ? workload.PerCall.OpenSession() : null;
        ConnectionScope? scope = path.Mode == "scope" ? workload.PerCall.BeginScope() : null;
        SqlRunner runner = path.Mode switch
        {
            "session" => session!,
            "reuse" => workload.Reuse,
            _ => workload.PerCall,
        };
        try
        {
            for (int n = 0; n < Rewarm; n++)
                GC.KeepAlive(Workload.Call(path.Op, runner));
            if (!measure)
            {
                for (int n = 0; n < calls; n++)
                    GC.KeepAlive(Workload.Call(path.Op, runner));
                return 0;
            }

            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            int before = GC.CollectionCount(0);
            Callgrind.Toggle();
            for (int n = 0; n < calls; n++)
            {
                GC.KeepAlive(Workload.Call(path.Op, runner));
                Spin(extra);
            }

            Callgrind.Toggle();
            int gcs = GC.CollectionCount(0) - before;
            Callgrind.Dump(dump ?? path.ToString());
            return gcs;
        }
        finally
        {
            scope?.Dispose();
            session?.Dispose();
        }
    }

    /// <summary>The injected cost: a loop the JIT cannot remove, a few instructions an iteration.</summary>
    private static void Spin(int iterations)
    {
        int x = _sink;
        for (int n = 0; n < iterations; n++)
            x = (x * 31) + n;
        _sink = x;
    }

    private static (GatePath, int)? ReadInjection()
    {
        string? text = Environment.GetEnvironmentVariable(InjectVariable);
        if (string.IsNullOrEmpty(text))
            return null;
        int eq = text.LastIndexOf('=');
        if (eq < 0 || !int.TryParse(text.AsSpan(eq + 1), NumberStyles.None, CultureInfo.InvariantCulture, out int iterations))
            throw new FormatException($"{InjectVariable}='{text}' is not PATH=ITERATIONS (e.g. Scalar/session/None/off=2000)");
        return (GatePath.Parse(text[..eq]), iterations);
    }
}
