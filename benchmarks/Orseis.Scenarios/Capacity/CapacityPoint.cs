using System.Text.Json;
using Orseis.Scenarios.ColdStart;
using Orseis.Scenarios.Scopes;

namespace Orseis.Scenarios.Capacity;

/// <summary>A request the capacity study sends, and what it costs the pool.</summary>
/// <param name="Name">The name <c>--loads</c> takes.</param>
/// <param name="Path">The SlowApp path that serves it.</param>
/// <param name="Text">What one request does, for the report.</param>
internal sealed record CapacityLoad(string Name, string Path, string Text)
{
    public static readonly CapacityLoad[] All =
    [
        new("wait", "slow/0.01/db", "one `select sleep(0.01)`: each request holds its connection 10 ms while the server waits"),
        new("work", "work/4", "four sequential `select @v`: small queries, CPU on the app, the server and hey"),
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
    /// <summary>What the clients got at the advised Max Pool Size, when it differed from <see cref="Pool"/>; null otherwise.</summary>
    public HeySummary? AtAdvised { get; init; }

    /// <summary>Opens that waited for a connection because every one was held (Orseis' count).</summary>
    public long QueuedOpens => After.QueuedOpens - Before.QueuedOpens;

    /// <summary>
    /// Findings over the app's life, by kind: warm-up and load are one episode of the same traffic, and a detector that
    /// spoke during the warm-up does not repeat itself while the episode lasts.
    /// </summary>
    public Dictionary<string, long> Findings => After.FindingCounts;
}
