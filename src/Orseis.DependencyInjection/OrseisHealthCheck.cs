using System.Globalization;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Orseis.Diagnostics;

namespace Orseis.DependencyInjection;

/// <summary>
/// A health check of one <see cref="Database"/>: runs <c>select 1</c> through it (Unhealthy when that fails), and reads its
/// pool report: Degraded while findings that hurt callers (pool timeouts, saturation, thread-pool starvation, slow opens,
/// connections held too long, lock conflicts) came since the last check, Healthy otherwise. The data holds the pool's
/// counts and findings by kind; the description, the latest finding. "Since the last check" is per database, whichever
/// check instance ran it.
/// </summary>
/// <param name="database">The database to check.</param>
public sealed class OrseisHealthCheck(Database database) : IHealthCheck
{
    private const FindingKind Hurting = FindingKind.PoolTimeout | FindingKind.Saturation | FindingKind.ThreadPoolStarvation |
                                        FindingKind.SlowOpen | FindingKind.HeldTooLong | FindingKind.LockConflicts;

    // Per database, not per check: the health-check service may create a check for every run.
    private static readonly System.Runtime.CompilerServices.ConditionalWeakTable<Database, StrongBox> Seen = new();

    /// <inheritdoc/>
    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(context);
        try
        {
            await database.ScalarAsync<int>("select 1", cancellationToken: cancellationToken).ConfigureAwait(false);
        }
        catch (Exception error) when (error is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            return new HealthCheckResult(context.Registration.FailureStatus,
                $"Pool '{database.PoolName}': select 1 failed ({error.GetType().Name}).", error, Data(database.GetPoolReport()));
        }

        PoolReport report = database.GetPoolReport();
        long hurting = report.FindingCounts.Where(c => (c.Key & Hurting) != 0).Sum(c => c.Value);
        StrongBox seen = Seen.GetValue(database, static _ => new StrongBox());
        long since = hurting - Interlocked.Exchange(ref seen.Value, hurting);

        string counts = string.Create(CultureInfo.InvariantCulture,
            $"Pool '{report.PoolName}': {report.InUse} in use of {report.MaxPoolSize?.ToString(CultureInfo.InvariantCulture) ?? "?"}, " +
            $"{report.Pending} waiting");
        if (since == 0)
            return HealthCheckResult.Healthy(counts + ".", Data(report));
        PoolFinding? latest = report.Findings.LastOrDefault(f => (f.Kind & Hurting) != 0);
        return HealthCheckResult.Degraded(
            string.Create(CultureInfo.InvariantCulture, $"{counts}; {since} finding(s) since the last check") +
            (latest is null ? "." : $", the latest: {latest.Message}"),
            data: Data(report));
    }

    /// <summary>The count of hurting findings a database's last check saw.</summary>
    private sealed class StrongBox
    {
        public long Value;
    }

    private static Dictionary<string, object> Data(PoolReport report)
    {
        var data = new Dictionary<string, object>
        {
            ["inUse"] = report.InUse,
            ["pending"] = report.Pending,
            ["peakInUse"] = report.PeakInUse,
            ["peakPending"] = report.PeakPending,
            ["opens"] = report.Opens,
            ["timeouts"] = report.Timeouts,
        };
        if (report.MaxPoolSize is { } max)
            data["maxPoolSize"] = max;
        foreach ((FindingKind kind, long count) in report.FindingCounts)
            data["findings." + kind] = count;
        return data;
    }
}
