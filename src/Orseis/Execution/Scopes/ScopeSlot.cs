using System.Data;
using System.Data.Common;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Orseis.Execution.Scopes;

/// <summary>
/// A <see cref="ConnectionScope"/>'s hold on one database: at most one parked connection (a <see cref="ScopeConnection"/>,
/// with the command its last call used, so SQLite keeps its prepared statement, and the time it was parked). A call in the
/// scope takes the parked connection instead of opening one (<see cref="TryTake"/>); a call that ends parks its connection
/// when the slot is empty (<see cref="TryPark"/>), else gives it back to the pool; <see cref="ParkSweep"/> gives a parked
/// connection back once it sat idle for <see cref="OrseisOptions.ScopeIdleWindow"/>. Two calls never share a connection: a
/// parked one is taken by exactly one call, and concurrent calls of the scope open their own.
/// </summary>
/// <remarks>
/// <para>
/// The slot's state is one reference: null when empty, the parked <see cref="ScopeConnection"/>, or <see cref="EndedMark"/>
/// once the scope ended. A take is one compare-exchange (the parked one to null), a park one (null to the holder, its facts
/// written before), the end one exchange (to the mark): a park that loses to the end finds the mark and gives its
/// connection back itself, and the end gives back what it took out. The other atomics of a reused call: the pool's parked
/// count down as it takes and up as it parks; its reuse is counted in the holder of the scope's first connection, which
/// the call owns, or atomically in the slot for a later connection (the kept command needs none).
/// </para>
/// <para>
/// A parked connection is not held in the pool's telemetry: its hold ends when it parks and a new one starts when a call
/// takes it, so the use time, the held-too-long detector and the in-use count see each call's own hold, and a reused call
/// makes no open (no churn). It stays taken from the pool (<see cref="Diagnostics.PoolTelemetry.ParkedNow"/>).
/// </para>
/// </remarks>
internal sealed class ScopeSlot
{
    /// <summary>The state of a slot whose scope ended: nothing parks any more.</summary>
    private static readonly object EndedMark = new();

    /// <summary>Not where the sweep looks (<see cref="_queued"/>): nothing parked since it left the queue.</summary>
    internal const int NotQueued = 0;

    /// <summary>In the sweep's queue, or in the batch a sweep is looking at.</summary>
    internal const int InQueue = 1;

    /// <summary>In a thread's cell (<see cref="ParkSweep.Register"/>), until the next sweep takes it out.</summary>
    internal const int InCell = 2;

    private readonly ParkSweep _sweep;
    private readonly ParkMemory _memory;
    private readonly Diagnostics.PoolTelemetry _telemetry;
    private readonly string _owner;

    // Null, the parked ScopeConnection, or EndedMark. Typed object so the atomics on it are Interlocked's object overloads:
    // the generic ones run shared code that asks typeof(T).IsValueType at run time.
    private object? _state;
    private int _queued; // where the sweep finds the slot: NotQueued, InQueue or InCell
    private ScopeConnection? _primary; // the slot's first connection, whose reuses it counts itself
    private int _hasPrimary; // 1 once a holder is the first connection (an int: its compare-exchange needs no write barrier)
    private long _reuses; // reuses of the other connections
    private long _foldedReuses; // the part of _reuses told to the pool's telemetry
    private int _unused; // parked connections the sweep gave back unused since the last reuse
    private int _releases; // calls that ended while _unused > 0
    // The last statement TryPark keyed, and its key: a call repeating it (the same string) is not hashed again. Two calls
    // of the scope ending at once may pair a text with the other's key: a wrong record in the park memory, nothing more.
    private string? _keyedText;
    private int _keyedKey;

    public ScopeSlot(PoolContext pool, string owner)
    {
        Pool = pool;
        _owner = owner;
        _sweep = pool.Parks;
        _memory = pool.ParkMemory;
        _telemetry = pool.Telemetry;
    }

    public PoolContext Pool { get; }

    /// <summary>The scope's statements, for the repeated-statement detector, made on the first one while it is on.</summary>
    public Diagnostics.Detectors.StatementRepeats? Repeats;

    /// <summary>Whether the scope ended: nothing parks any more.</summary>
    public bool Ended => ReferenceEquals(Volatile.Read(ref _state), EndedMark);

    /// <summary>Calls served by the parked connection instead of an open.</summary>
    /// <remarks>
    /// The first connection's reuses are counted in its holder by the call that took it, which owns it (no atomic); those of
    /// connections opened next to it (concurrent calls, or after the first went back to the pool) here, atomically.
    /// </remarks>
    public long Reuses => Volatile.Read(ref _reuses) + (Volatile.Read(ref _primary) is { } primary ? Volatile.Read(ref primary.Reuses) : 0);

    /// <summary>The holder of a connection a call of the scope opened; the scope's first one counts its own reuses.</summary>
    public ScopeConnection Opened(DbConnection connection)
    {
        var held = new ScopeConnection(this, connection);
        if (Volatile.Read(ref _hasPrimary) == 0 && Interlocked.CompareExchange(ref _hasPrimary, 1, 0) == 0)
        {
            // Before the holder is ever parked: a call that takes it finds it first (its count read here from then on).
            held.Primary = true;
            Volatile.Write(ref _primary, held);
        }

        return held;
    }

    /// <summary>
    /// The parked connection for one call, if there is one; its hold starts now. False when the call must open its own.
    /// </summary>
    public bool TryTake(bool forStream, out Lease lease)
    {
        object? state = Volatile.Read(ref _state);
        if (state is null || ReferenceEquals(state, EndedMark) || Interlocked.CompareExchange(ref _state, null, state) != state)
        {
            lease = default;
            return false;
        }

        // No look at its state: a provider cannot know a parked connection broke before using it, and reading the state
        // costs some providers an allocation (Npgsql 10: 96 bytes). A dead one fails the call as a session's would.
        ScopeConnection parked = Unsafe.As<ScopeConnection>(state);
        // The first connection's holder is this call's now; the others' count is atomic: two takes of one scope can overlap
        // (a concurrent call parks its own connection, another takes it).
        if (parked.Primary)
            parked.Reuses++;
        else
            Interlocked.Increment(ref _reuses);
        if (Volatile.Read(ref _unused) != 0)
            Volatile.Write(ref _unused, 0);
        _memory.Reused(parked.ParkedKey);
        Diagnostics.PoolTelemetry telemetry = _telemetry;
        DbConnection connection = parked.Connection;
        StackTrace? acquirer = forStream ? telemetry.CaptureAcquirer(heldAcrossCalls: true) : null;
        lease = new Lease(connection, telemetry.Unparked(connection, _owner, acquirer, parked.ParkedAt, parked.ParkedHold), parked);
        return true;
    }

    /// <summary>
    /// Parks <paramref name="lease"/>'s connection (<paramref name="held"/>, the lease's holder), at the end of a call, for
    /// the next call of the scope; false when the scope ended, another connection is parked already, or the call
    /// <paramref name="failed"/> and left the connection closed (the caller gives it back to the pool then, its kept command
    /// disposed). A call that succeeded left it open.
    /// </summary>
    public bool TryPark(in Lease lease, ScopeConnection held, bool failed)
    {
        DbConnection connection = lease.Connection;
        string? statement = held.Statement;
        held.Statement = null;
        if (Volatile.Read(ref _state) is { } state)
            return Refused(state); // parked already (a concurrent call's), or ended
        if (failed && connection.State != ConnectionState.Open)
            return false;

        // A scope whose parked connection went back unused pauses longer than the window between calls (an HTTP call, a
        // delay): parking there only holds a connection idle. It parks one call in four, to notice calls coming back to back
        // again (a reuse), and gives the others' connections back at once. A scope that has not learned that (one request's
        // scope lives too short to) asks the pool's memory of the statement just run: parks after it that went back unused
        // (ParkMemory) mean the same pause follows it in other scopes.
        int key;
        if (ReferenceEquals(statement, _keyedText))
        {
            key = _keyedKey;
        }
        else
        {
            key = ParkMemory.KeyOf(statement);
            _keyedKey = key;
            _keyedText = statement;
        }

        if (Volatile.Read(ref _unused) > 0 ? (Interlocked.Increment(ref _releases) & 3) != 0 : _memory.Skips(key))
            return false;

        // The call's hold ends and the park's facts are written before the compare-exchange publishes them: the next taker
        // reads them after its own. An untimed hold's end is a counter and a look at the clock, which cannot throw.
        int hold = lease.Hold;
        held.ParkedAt = hold == Diagnostics.Detectors.HolderTable.NoHold
            ? _telemetry.ParkedUntimed()
            : _telemetry.Parked(connection, ref hold);
        held.ParkedHold = hold; // the holder table's slot it keeps for its next hold, or NoHold
        held.ParkedKey = key;
        held.ParkedTick = _sweep.Tick;
        if (Interlocked.CompareExchange(ref _state, held, null) is { } first)
        {
            // A concurrent call parked first, or the scope ended meanwhile: the caller gives the connection back (its hold
            // ended already, so the release finds none to end).
            _telemetry.ParkRefused(hold);
            return Refused(first);
        }

        // The compare-exchange is a full fence: the sweep clears _queued, then reads the state, fenced alike.
        if (Volatile.Read(ref _queued) == NotQueued)
            _sweep.Register(this);
        return true;
    }

    /// <summary>Marks the slot as found by the sweep <paramref name="where"/>; false when it is found already (or being put).</summary>
    internal bool TryQueue(int where) =>
        Volatile.Read(ref _queued) == NotQueued && Interlocked.CompareExchange(ref _queued, where, NotQueued) == NotQueued;

    /// <summary>
    /// The slot was taken out of a thread's cell (by the sweep, or by the thread's next registration). True when it goes into
    /// the queue now, marked so: a connection is still parked in it. Otherwise it is in neither, and its next park registers
    /// it again (a park after the exchange below finds it out; one before it is seen by the read after it).
    /// </summary>
    internal bool LeftCell() =>
        Interlocked.CompareExchange(ref _queued, NotQueued, InCell) == InCell &&
        Volatile.Read(ref _state) is { } now && !ReferenceEquals(now, EndedMark) &&
        Interlocked.CompareExchange(ref _queued, InQueue, NotQueued) == NotQueued;

    /// <summary>A park refused by the slot's <paramref name="state"/>; once the scope ended, the reuses not told yet are told.</summary>
    private bool Refused(object state)
    {
        if (ReferenceEquals(state, EndedMark))
            FoldReuses();
        return false;
    }

    /// <summary>
    /// The sweep's look at this slot at its <paramref name="tick"/> (<see cref="ParkSweep.Tick"/>): gives the parked
    /// connection back when its idle window has passed. True when the slot stays queued (a connection is still parked).
    /// </summary>
    internal bool Sweep(long tick)
    {
        // The sweep runs on one thread at a time. A connection taken and parked again between the tick's read below and
        // the take is at worst given back a window early.
        object? state = Volatile.Read(ref _state);
        if (state is not null && !ReferenceEquals(state, EndedMark))
        {
            ScopeConnection parked = Unsafe.As<ScopeConnection>(state);
            // Due once a whole sweep period (the idle window) passed over it: parked before the previous sweep.
            if (tick - parked.ParkedTick < 2)
                return true;
            if (Interlocked.CompareExchange(ref _state, null, state) == state)
            {
                Interlocked.Increment(ref _unused);
                _memory.Unused(parked.ParkedKey);
                FoldReuses();
                _telemetry.ParkGivenBack(parked.ParkedAt, parked.ParkedHold);
                CloseParked(parked);
            }
        }

        // Nothing parked: the slot leaves the queue, unless a call parked meanwhile (a park after the exchange below
        // finds the slot out of the queue and queues it again itself; one before it is seen by the read after it).
        Interlocked.Exchange(ref _queued, NotQueued);
        return Volatile.Read(ref _state) is { } now && !ReferenceEquals(now, EndedMark) &&
               Interlocked.CompareExchange(ref _queued, InQueue, NotQueued) == NotQueued;
    }

    /// <summary>Tells the pool's telemetry the reuses it was not told yet (as the scope ends, or its connection goes back idle).</summary>
    /// <remarks>
    /// Two may fold at once (the sweep and the end); each tells only what it moves the told part forward by, so nothing is
    /// told twice. A take just before the end counts its reuse after the end folded: its release, which finds the scope
    /// ended, folds again.
    /// </remarks>
    private void FoldReuses()
    {
        long reuses = Reuses;
        long told = Volatile.Read(ref _foldedReuses);
        while (reuses > told)
        {
            long seen = Interlocked.CompareExchange(ref _foldedReuses, reuses, told);
            if (seen == told)
            {
                _telemetry.ScopeReused(reuses - told);
                return;
            }

            told = seen;
        }
    }

    /// <summary>The scope ended: the parked connection and its kept command go back now, and nothing parks again.</summary>
    public void End()
    {
        if (TakeAtEnd() is not { } parked)
            return;
        DbCommand? command = parked.Command;
        parked.Command = null;
        command?.Dispose();
        parked.Connection.Dispose();
    }

    /// <summary><see cref="End"/>, the parked connection and its command disposed asynchronously.</summary>
    /// <returns>A task that completes when the parked connection is back in the pool.</returns>
    public ValueTask EndAsync() => TakeAtEnd() is { } parked ? CloseAsync(parked) : default;

    /// <summary>
    /// Marks the slot ended (in the scope's own flow: a scope whose statements were followed reports them here) and takes out
    /// the parked connection, if any, counted as given back.
    /// </summary>
    private ScopeConnection? TakeAtEnd()
    {
        if (Repeats is { } repeats)
            Pool.Telemetry.ScopeEnded(repeats);
        // A call parking after this finds the mark and gives its connection back itself; a call that took the parked one
        // before it gives it back when it ends.
        object? state = Interlocked.Exchange(ref _state, EndedMark);
        FoldReuses();
        if (state is null || ReferenceEquals(state, EndedMark))
            return null;

        ScopeConnection parked = Unsafe.As<ScopeConnection>(state);
        _telemetry.ParkGivenBack(parked.ParkedAt, parked.ParkedHold);
        return parked;
    }

    private static async ValueTask CloseAsync(ScopeConnection parked)
    {
        DbCommand? command = parked.Command;
        parked.Command = null;
        if (command is not null)
            await command.DisposeAsync().ConfigureAwait(false);
        await parked.Connection.DisposeAsync().ConfigureAwait(false);
    }

    [System.Diagnostics.CodeAnalysis.SuppressMessage(
        "Design", "CA1031:Do not catch general exception types", Justification = "Nobody waits for a parked connection's close.")]
    private static void CloseParked(ScopeConnection parked)
    {
        try
        {
            parked.DropCommand();
            parked.Connection.Dispose();
        }
        catch (Exception)
        {
        }
    }
}
