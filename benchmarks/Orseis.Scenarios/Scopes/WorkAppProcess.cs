using System.Text.Json;
using Orseis.Scenarios.ColdStart;

namespace Orseis.Scenarios.Scopes;

/// <summary>What the SlowApp's <c>/report</c> says that the scopes study reads (samples/Orseis.Samples.SlowApp/SlowAppReport.cs).</summary>
internal sealed record WorkReport(
    string Unit, double UptimeSeconds, long Opens, long Commands, int PeakInUse, long QueuedOpens, long ScopeReuses,
    double ParkedMilliseconds, long ProviderPeakUsed, long ProviderPeakTaken, double ProviderUsedSeconds, double ProviderTakenSeconds,
    double CpuSeconds, long WorkRequests, long WorkAnswered, long WorkCalls, int ThreadPoolThreads, Dictionary<string, long> Errors,
    Dictionary<string, long> FindingCounts);

/// <summary>The SlowApp sample in a process of its own on a free loopback port (<see cref="SlowAppProcess"/>), with one
/// SLOWAPP_UNIT; killed on dispose.</summary>
internal sealed class WorkAppProcess : IAsyncDisposable
{
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);
    private readonly SlowAppProcess _app;

    private WorkAppProcess(SlowAppProcess app) => _app = app;

    public Uri Root => _app.Root;

    /// <summary>The app's process id.</summary>
    public int Id => _app.Id;

    /// <summary>Starts the app built at <paramref name="dll"/> and waits until <c>/health</c> answers (it touches no database).</summary>
    public static async Task<WorkAppProcess> StartAsync(string dll, string unit, int maxPool, bool detectors) =>
        new(await SlowAppProcess.StartAsync(
            dll, new SlowAppConfig("mysqlconnector", "async", MinThreads: null), maxPool,
            settings: new Dictionary<string, string> { ["SLOWAPP_UNIT"] = unit, ["SLOWAPP_DETECTORS"] = detectors ? "all" : "none" }));

    /// <summary>The app's report; <paramref name="resetPeak"/>: then start the provider's used-connection peak anew.</summary>
    public async Task<WorkReport> ReportAsync(bool resetPeak = false) =>
        JsonSerializer.Deserialize<WorkReport>(await _app.GetStringAsync(resetPeak ? "report?resetPeak=true" : "report"), Json)
        ?? throw new InvalidDataException("SlowApp's /report was empty.");

    public ValueTask DisposeAsync() => _app.DisposeAsync();
}
