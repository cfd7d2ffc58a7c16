using System.Text.Json;
using Orseis.Scenarios.ColdStart;
using Orseis.Scenarios.Scopes;

namespace Orseis.Scenarios.Capacity;

/// <summary>A request the capacity study sends, and what it costs the pool.</summary>
/// <param name="Name">The name <c>--loads</c> takes.</param>
/// <param name="Path">The SlowApp path that serves it.</param>
/// <param name="Text">What one request does, for the report.</param>
/// <param name="Unit">SLOWAPP_UNIT: how the request's calls get their connection (percall: open per call; session).</param>
/// <param name="Long">Whether a connection is held long (10 ms) per request, rather than for small queries only.</param>
internal sealed record CapacityLoad(string Name, string Path, string Text, string Unit = "percall", bool Long = false)
{
    public static readonly CapacityLoad[] All =
    [
        new("wait", "slow/0.01/db", "one `select sleep(0.01)`: each request holds its connection 10 ms while the server waits", Long: true),
        new("work", "work/4", "four sequential `select @v`: small queries, CPU on the app, the server and hey"),
        new("work-session", "work/4", "four sequential `select @v` in a Session: one connection per request, held for the four", "session"),
        new("pause-session", "work/2?pauseMs=10", "a Session of two `select @v` with 10 ms of app work (`Task.Delay`) between them: " +
            "a connection held 10 ms per request while the server is idle", "session", Long: true),
    ];
}

/// <summary>What the SlowApp's <c>/report</c> says that the capacity study reads (samples/Orseis.Samples.SlowApp/SlowAppReport.cs).</summary>
internal sealed record CapacityReport(
    long QueuedOpens, string? PoolSizeAdvice, int? RecommendedMaxPoolSize, Dictionary<string, long> FindingCounts,
    IReadOnlyList<SlowAppFinding> Findings)
{
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);

    public static CapacityReport Parse(string json) =>
        JsonSerializer.Deserialize<CapacityReport>(json, Json) ?? throw new InvalidDataException("SlowApp's /report was empty.");
}

/// <summary>The server's own counts after a point (<c>SHOW GLOBAL STATUS</c>).</summary>
/// <param name="Connected">Connections open on the server (<c>Threads_connected</c>), less the study's own.</param>
/// <param name="PoolThreads">Threads of the server's thread pool (<c>Threadpool_threads</c>); 0 with one thread per connection.</param>
internal sealed record ServerThreads(long Connected, long PoolThreads);

/// <summary>One measured point: <paramref name="Clients"/> hey workers on <paramref name="Load"/> against an app whose pool
/// holds at most <paramref name="Pool"/> connections, on a server handling its connections by <paramref name="Handling"/>.</summary>
internal sealed record CapacityPoint(
    string Handling, CapacityLoad Load, int Pool, int Clients, HeySummary Hey, CapacityReport Before, CapacityReport After,
    ServerThreads Threads)
{
    /// <summary>The advice followed, repeated and interleaved with this size and a larger one; null when not followed.</summary>
    public CapacityFollowed? Followed { get; init; }

    /// <summary>Opens that waited for a connection because every one was held (Orseis' count).</summary>
    public long QueuedOpens => After.QueuedOpens - Before.QueuedOpens;

    /// <summary>
    /// Findings over the app's life, by kind: warm-up and load are one episode of the same traffic, and a detector that
    /// spoke during the warm-up does not repeat itself while the episode lasts.
    /// </summary>
    public Dictionary<string, long> Findings => After.FindingCounts;
}

/// <summary>
/// Following one point's advice: <see cref="Advised"/> (the first run's RecommendedMaxPoolSize) and the advice of each run at
/// the current size (<see cref="Advices"/>), then ok/s at the current size (the point's own run first), at the advised size
/// and at <see cref="Larger"/> (four times the advised size, at most one connection per client; equal to
/// <see cref="Advised"/> when no larger size fits), in rounds whose order turns.
/// </summary>
internal sealed record CapacityFollowed(
    int Advised, List<int?> Advices, List<double> AtCurrent, List<double> AtAdvised, int Larger, List<double> AtLarger)
{
    /// <summary>The median ok/s at the advised size over that at the current size.</summary>
    public double Kept => Median(AtAdvised) / Median(AtCurrent);

    /// <summary>The median ok/s at the larger size over that at the advised size; null when no larger size was run.</summary>
    public double? Beyond => AtLarger.Count == 0 ? null : Median(AtLarger) / Median(AtAdvised);

    /// <summary>The spread of a size's runs: (max - min) / median.</summary>
    public static double Spread(List<double> runs) => runs.Count == 0 ? 0 : (runs.Max() - runs.Min()) / Median(runs);

    public static double Median(List<double> values)
    {
        double[] sorted = [.. values.Order()];
        int mid = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
