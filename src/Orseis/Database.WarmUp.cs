using System.Diagnostics;

namespace Orseis;

public sealed partial class Database
{
    /// <summary>How many connects a warm-up runs at once: a server takes a burst of handshakes badly, and so would a TLS proxy.</summary>
    private const int WarmUpConcurrency = 8;

    /// <summary>
    /// Fills the pool before traffic comes: opens <paramref name="connections"/> connections, at most eight connects at a
    /// time, holds them all open at once (so the provider has to make that many), then gives them back to the provider's
    /// pool. A <see cref="ExecutionMode.ReuseConnection"/> database opens its one connection. Each open honours the
    /// connection string's connect timeout; a failed open is counted in <see cref="WarmUpResult.Failures"/>, not thrown, so
    /// the caller decides whether a partial warm-up is fatal.
    /// </summary>
    /// <remarks>
    /// A warmed pool stays warm only while the provider keeps idle connections: MySqlConnector closes those idle longer than
    /// <c>Connection Idle Timeout</c> (180 s), Npgsql those past <c>Connection Idle Lifetime</c> (300 s) down to
    /// <c>Minimum Pool Size</c>, SqlClient after 4 to 8 minutes down to <c>Min Pool Size</c>. Set the minimum to the
    /// warm-up's count to keep them, or warm up again after a quiet spell.
    /// </remarks>
    /// <param name="connections">How many connections to open at once: at least 1, and no more than Max Pool Size.</param>
    /// <param name="cancellationToken">Stops the warm-up: connections already open go back to the pool, and the call throws
    /// <see cref="OperationCanceledException"/>.</param>
    /// <returns>What was opened, how long it took, and what failed.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="connections"/> is below 1 or above Max Pool Size.</exception>
    public Task<WarmUpResult> WarmUpAsync(int connections, CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        if (connections < 1)
            throw new ArgumentOutOfRangeException(nameof(connections), connections, "A warm-up opens at least one connection.");
        if (Pool.Telemetry.MaxPoolSize is { } max && connections > max)
        {
            throw new ArgumentOutOfRangeException(nameof(connections), connections,
                $"A warm-up of {connections} connections cannot be held at once by a pool whose Max Pool Size is {max}: " +
                "ask for at most that many, or raise Max Pool Size in the connection string.");
        }

        return Source is ReuseConnectionSource shared
            ? WarmUpSharedAsync(shared, cancellationToken)
            : WarmUpPoolAsync(connections, cancellationToken);
    }

    private async Task<WarmUpResult> WarmUpSharedAsync(ReuseConnectionSource shared, CancellationToken cancellationToken)
    {
        long started = Stopwatch.GetTimestamp();
        long? connectsBefore = Pool.Telemetry.ProviderPool?.PhysicalConnects;
        var failures = new List<Exception>();
        int opened = 0;
        try
        {
            Lease lease = await shared.AcquireAsync(async: true, forStream: false, cancellationToken).ConfigureAwait(false);
            await shared.ReleaseAsync(lease, async: true).ConfigureAwait(false);
            opened = 1;
        }
        catch (Exception error) when (error is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            failures.Add(error);
        }

        return new WarmUpResult(1, opened, Stopwatch.GetElapsedTime(started), Made(connectsBefore), failures);
    }

    private async Task<WarmUpResult> WarmUpPoolAsync(int connections, CancellationToken cancellationToken)
    {
        long started = Stopwatch.GetTimestamp();
        long? connectsBefore = Pool.Telemetry.ProviderPool?.PhysicalConnects;
        Diagnostics.Detectors.ColdStarts.InWarmUp.Value = true; // restored when this method returns
        var leases = new List<Lease>(connections);
        var failures = new List<Exception>();
        using var gate = new SemaphoreSlim(Math.Min(connections, WarmUpConcurrency));
        try
        {
            Task[] opens = new Task[connections];
            for (int i = 0; i < connections; i++)
                opens[i] = OpenOneAsync(gate, leases, failures, cancellationToken);
            await Task.WhenAll(opens).ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
            return new WarmUpResult(connections, leases.Count, Stopwatch.GetElapsedTime(started), Made(connectsBefore), failures);
        }
        finally
        {
            foreach (Lease lease in leases)
                await Pool.CloseAsync(lease, async: true).ConfigureAwait(false);
        }
    }

    private async Task OpenOneAsync(SemaphoreSlim gate, List<Lease> leases, List<Exception> failures, CancellationToken cancellationToken)
    {
        await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            Lease lease = await Pool.OpenAsync(async: true, "a warm-up", heldByDesign: true, heldAcrossCalls: false, cancellationToken)
                .ConfigureAwait(false);
            lock (leases)
                leases.Add(lease);
        }
        catch (Exception error) when (error is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            lock (failures)
                failures.Add(error);
        }
        finally
        {
            gate.Release();
        }
    }

    private long? Made(long? connectsBefore) =>
        connectsBefore is { } before && Pool.Telemetry.ProviderPool?.PhysicalConnects is { } after ? after - before : null;
}
