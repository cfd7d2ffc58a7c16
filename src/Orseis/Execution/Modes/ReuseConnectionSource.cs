namespace Orseis.Execution.Modes;

/// <summary>
/// The one connection of a <see cref="ExecutionMode.ReuseConnection"/> database. Calls from concurrent flows are
/// serialised and each wait is counted: a database is shared by design (one per application), so making a correct
/// concurrent program fail because its configuration switched mode would be worse than queueing it. A call that would
/// wait forever on itself (a query inside a <c>foreach</c> over a sync stream of the same database) fails at once
/// instead, and any wait longer than <see cref="OrseisOptions.ReuseWaitTimeout"/> fails with a clear message.
/// </summary>
internal sealed class ReuseConnectionSource(PoolContext pool, string owner)
    : KeptSource(pool, typeof(Database), new KeptConnection(pool, owner, heldByDesign: true)), IDisposable
{
    private readonly SemaphoreSlim _gate = new(1, 1);
    private long _waits;
    private int _streamThread;

    public long Waits => Interlocked.Read(ref _waits);

    protected override ValueTask<Lease> AcquireCoreAsync(
        System.Transactions.Transaction? ambient, bool async, bool forStream, Diagnostics.Detectors.FlowState? flow,
        CancellationToken cancellationToken)
    {
        if (!_gate.Wait(0, CancellationToken.None))
            return WaitThenEnterAsync(async, forStream, cancellationToken);
        if (!Kept.TryReady(out Lease ready))
            return EnteredAsync(async, forStream, cancellationToken);
        if (forStream && !async)
            Volatile.Write(ref _streamThread, Environment.CurrentManagedThreadId);
        return new ValueTask<Lease>(ready);
    }

    /// <summary>The connection once another call gives it back, counted as a wait and bounded by ReuseWaitTimeout.</summary>
    private async ValueTask<Lease> WaitThenEnterAsync(bool async, bool forStream, CancellationToken cancellationToken)
    {
        if (!async && Volatile.Read(ref _streamThread) == Environment.CurrentManagedThreadId)
        {
            throw new InvalidOperationException(
                $"This call would wait forever: a Stream over {owner} is still open on this thread and holds its only connection. " +
                "Read the stream to a list first (Query), finish it before the next call, or use OpenPerCall mode.");
        }

        Interlocked.Increment(ref _waits);
        long waitStarted = Pool.Telemetry.ReuseWaitStarting();
        TimeSpan limit = Pool.Options.ReuseWaitTimeout;
        bool entered = async
            ? await _gate.WaitAsync(limit, cancellationToken).ConfigureAwait(false)
            : _gate.Wait(limit, cancellationToken);
        Pool.Telemetry.ReuseWaitCompleted(waitStarted);
        if (!entered)
        {
            throw new TimeoutException(
                $"Waited {limit.TotalSeconds:0.#} s (OrseisOptions.ReuseWaitTimeout) for the connection of {owner}, " +
                "which another call or an unfinished stream still holds. " +
                "ReuseConnection runs one command at a time; use OpenPerCall for concurrent work.");
        }

        return await EnteredAsync(async, forStream, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The connection, opened or reopened as needed, once this call holds the gate; a failure gives the gate back.</summary>
    private async ValueTask<Lease> EnteredAsync(bool async, bool forStream, CancellationToken cancellationToken)
    {
        try
        {
            Lease lease = await Kept.EnsureOpenAsync(async, cancellationToken).ConfigureAwait(false);
            if (forStream && !async)
                Volatile.Write(ref _streamThread, Environment.CurrentManagedThreadId);
            return lease;
        }
        catch
        {
            _gate.Release();
            throw;
        }
    }

    // The one connection is shared by every flow: joining one flow's scope would put every other flow's calls in it too.
    protected override InvalidOperationException? NotInScope(System.Transactions.Transaction ambient) =>
        AmbientTransactions.NotJoined(
            owner, "ReuseConnection mode keeps one connection for every caller, opened outside this scope",
            "Run the scope's work on a Database in OpenPerCall mode, " +
            "or on a session opened inside the scope (db.OpenSession() after creating the scope).");

    protected override void Leave() => Release();

    protected override async ValueTask CloseCoreAsync(bool async)
    {
        await Kept.CloseAsync(async).ConfigureAwait(false);
        Dispose();
    }

    /// <summary>Disposes the gate; the kept connection is closed by <see cref="ConnectionSource.CloseAsync"/>.</summary>
    public void Dispose() => _gate.Dispose();

    private void Release()
    {
        Volatile.Write(ref _streamThread, 0);
        _gate.Release();
    }
}
