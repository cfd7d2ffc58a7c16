using System.Data;
using System.Data.Common;
using System.Diagnostics;

namespace Orseis.Execution.Scopes;

/// <summary>
/// A <see cref="ConnectionScope"/>'s hold on one database: at most one parked connection, the command its last call
/// used (parked and taken with it, in its <see cref="Lease"/>, so SQLite keeps its prepared statement), and the time it was
/// parked. A call in the scope takes the parked connection instead of opening one (<see cref="TryTake"/>); a call that
/// ends parks its connection when the slot is empty (<see cref="TryPark"/>), else gives it back to the pool;
/// <see cref="ParkSweep"/> gives a parked connection back once it sat idle for <see cref="OrseisOptions.ScopeIdleWindow"/>.
/// Two calls never share a connection: a parked one is taken by exactly one call, and concurrent calls of the scope open
/// their own.
/// </summary>
/// <remarks>
/// A parked connection is not held in the pool's telemetry: its hold ends when it parks and a new one starts when a call
/// takes it, so the use time, the held-too-long detector and the in-use count see each call's own hold, and a reused
/// call makes no open (no churn). The parked time is counted apart.
/// </remarks>
internal sealed class ScopeSlot
{
    private readonly ParkSweep _sweep;
    private readonly ParkMemory _memory;
    private readonly Diagnostics.PoolTelemetry _telemetry;
    private readonly string _owner;
    // Who has the parking: Empty, Parking (a call writes its connection and facts), Parked, Taking (a call, the sweep or the
    // end reads them out). Moved by compare-exchanges on this int, so one call at a time writes or reads the fields below
    // (an atomic on an int is one instruction; one on an object reference is a call with the GC's write barrier).
    private const int Empty = 0;
    private const int Parking = 1;
    private const int Parked = 2;
    private const int Taking = 3;
    private int _state;
    private DbConnection? _parked; // while Parked
    private DbCommand? _parkedCommand; // the parked connection's kept command, while Parked; null when it has none
    private long _parkedAt; // a timestamp while the pool's telemetry is timed, else 0
    private long _parkedTick;
    private int _defaultTimeout;
    private int _queued; // 1 while the slot is in the sweep's queue
    private bool _ended;
    private long _reuses;
    private int _unused; // parked connections the sweep gave back unused since the last reuse
    private int _releases; // calls that ended while _unused > 0
    private int _parkedKey; // the statement the parked connection was parked after (ParkMemory.KeyOf)
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
    public bool Ended => Volatile.Read(ref _ended);

    /// <summary>Calls served by the parked connection instead of an open.</summary>
    public long Reuses => Volatile.Read(ref _reuses);

    /// <summary>
    /// The parked connection for one call, if there is one and it is still open; its hold starts now. False when the
    /// call must open its own.
    /// </summary>
    public bool TryTake(bool forStream, out Lease lease)
    {
        lease = default;

        if (!TryTakeParked(out DbConnection connection, out DbCommand? command, out long parkedAt, out int parkedKey))
            return false;

        // No look at its state: a provider cannot know a parked connection broke before using it, and reading the state
        // costs some providers an allocation (Npgsql 10: 96 bytes). A dead one fails the call as a session's would.

        _reuses++; // one taker at a time: a take follows the park it takes, and a park the take before it
        if (Volatile.Read(ref _unused) != 0)
            Volatile.Write(ref _unused, 0);
        _memory.Reused(parkedKey);
        Diagnostics.PoolTelemetry telemetry = _telemetry;
        StackTrace? acquirer = forStream ? telemetry.CaptureAcquirer(heldAcrossCalls: true) : null;
        lease = new Lease(connection, telemetry.Unparked(connection, _owner, acquirer, parkedAt), this, command);
        return true;
    }

    /// <summary>
    /// Takes the parked connection, its kept command and its park's facts out of the slot, for one taker; false when none is
    /// parked.
    /// </summary>
    private bool TryTakeParked(out DbConnection connection, out DbCommand? command, out long parkedAt, out int parkedKey)
    {
        if (Volatile.Read(ref _state) != Parked || Interlocked.CompareExchange(ref _state, Taking, Parked) != Parked)
        {
            connection = null!;
            command = null;
            parkedAt = 0;
            parkedKey = 0;
            return false;
        }

        connection = _parked!;
        command = _parkedCommand;
        parkedAt = _parkedAt;
        parkedKey = _parkedKey;
        _parked = null;
        _parkedCommand = null;
        Volatile.Write(ref _state, Empty);
        return true;
    }

    /// <summary>
    /// Parks <paramref name="lease"/>'s connection and its kept command (<see cref="Lease.Command"/>, the call's own when it
    /// succeeded), at the end of a call, for the next call of the scope; false when the scope ended, another connection is
    /// parked already, or the call <paramref name="failed"/> and left the connection closed (the caller closes both then). A
    /// call that succeeded left it open.
    /// </summary>
    public bool TryPark(in Lease lease, bool failed)
    {
        DbConnection connection = lease.Connection;
        if (Volatile.Read(ref _ended) || (failed && connection.State != ConnectionState.Open))
            return false;
        // The statement the call ran: the text of its command, which a buffered call that succeeded keeps; none otherwise (a
        // failed call, a stream), and a park without a statement records nothing (ParkMemory.KeyOf).
        string? statement = lease.Command?.CommandText;

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

        // No lock: the call claims the empty slot (one of two calls ending at once wins), writes the park's facts, marks it
        // parked, then, after a full fence, reads whether the sweep's queue holds the slot and whether the scope ended
        // meanwhile (the sweep and the end write those, then read the state, fenced alike).
        if (Volatile.Read(ref _state) != Empty || Interlocked.CompareExchange(ref _state, Parking, Empty) != Empty)
            return false;
        // An untimed hold's end is two counters and a look at the clock, which cannot throw: no handler around it.
        long parkedAt = lease.Hold == Diagnostics.Detectors.HolderTable.NoHold
            ? _telemetry.ParkedUntimed()
            : ParkedTimed(connection, lease.Hold);

        _parkedAt = parkedAt;
        _parkedKey = key;
        _parkedTick = _sweep.Tick;
        _parked = connection;
        _parkedCommand = lease.Command;
        Interlocked.Exchange(ref _state, Parked); // a full fence, as the reads below need
        if (Volatile.Read(ref _queued) == 0 && Interlocked.CompareExchange(ref _queued, 1, 0) == 0)
            _sweep.Enqueue(this);
        if (Volatile.Read(ref _ended) && TryTakeParked(out DbConnection given, out DbCommand? givenCommand, out long givenAt, out _))
        {
            // The scope ended while this call parked, and its end saw the slot being parked: given back here, as the end would.
            Pool.Telemetry.ParkEnded(givenAt);
            CloseParked(given, givenCommand);
        }

        return true;
    }

    /// <summary>The telemetry's end of a timed hold as it parks; the slot is emptied again if it throws.</summary>
    private long ParkedTimed(DbConnection connection, int hold)
    {
        try
        {
            return _telemetry.Parked(connection, hold);
        }
        catch
        {
            Volatile.Write(ref _state, Empty);
            throw;
        }
    }

    /// <summary>
    /// A new command for a call on <paramref name="connection"/>, which came without one (opened for the call, or parked
    /// after a failed call): its timeout is the provider's default, which <see cref="Ready"/> restores on a kept command.
    /// </summary>
    public DbCommand RentCommand(DbConnection connection)
    {
        DbCommand command = connection.CreateCommand();
        _defaultTimeout = command.CommandTimeout;
        return command;
    }

    /// <summary>
    /// <paramref name="kept"/>, the command a taken connection came with (<see cref="Lease.Command"/>), made ready for one
    /// call: its timeout back at the provider's default. Its parameters were cleared when its last call ended; the call sets
    /// its text, type and transaction.
    /// </summary>
    public DbCommand Ready(DbCommand kept)
    {
        if (kept.CommandTimeout != _defaultTimeout)
            kept.CommandTimeout = _defaultTimeout;
        return kept;
    }

    /// <summary>
    /// For <see cref="ConnectionSource.ReturnCommand"/>'s default: a command given back without its lease is not kept (the
    /// caller disposes it). A call in a scope hands its command to its <see cref="Lease"/> instead
    /// (<see cref="Calls.CallLifecycle.EndAsync"/>), which parks it with the connection.
    /// </summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage(
        "Performance", "CA1822:Mark members as static", Justification = "ConnectionSource's default calls it on the lease's slot.")]
    public bool TryKeepCommand(DbCommand command, bool failed) => false;

    /// <summary>
    /// The sweep's look at this slot at its <paramref name="tick"/> (<see cref="ParkSweep.Tick"/>): gives the parked
    /// connection back when its idle window has passed. True when the slot stays queued (a connection is still parked).
    /// </summary>
    internal bool Sweep(long tick)
    {
        // The sweep runs on one thread at a time. A connection taken and parked again between the tick's read below and
        // the take is at worst given back a window early.
        int state = Volatile.Read(ref _state);
        if (state == Parking)
            return true; // a call is parking: the slot stays queued
        if (state == Parked)
        {
            // Due once a whole sweep period (the idle window) passed over it: parked before the previous sweep.
            if (tick - Volatile.Read(ref _parkedTick) < 2 && !Volatile.Read(ref _ended))
                return true;
            if (TryTakeParked(out DbConnection due, out DbCommand? command, out long parkedAt, out int key))
            {
                if (!Volatile.Read(ref _ended))
                {
                    Interlocked.Increment(ref _unused);
                    _memory.Unused(key); // a park the scope's end gave back is neither: it held nothing idle
                }

                Pool.Telemetry.ParkEnded(parkedAt);
                CloseParked(due, command);
            }
        }

        // Nothing parked: the slot leaves the queue, unless a call parked meanwhile (a park after the exchange below
        // finds the slot out of the queue and queues it again itself; one before it is seen by the read after it).
        Interlocked.Exchange(ref _queued, 0);
        return Volatile.Read(ref _state) is Parking or Parked && Interlocked.CompareExchange(ref _queued, 1, 0) == 0;
    }

    /// <summary>The scope ended: the parked connection and its kept command go back now, and nothing parks again.</summary>
    public async ValueTask EndAsync(bool async)
    {
        if (Repeats is { } repeats)
            Pool.Telemetry.ScopeEnded(repeats); // in the scope's own flow, before anything is awaited
        // The end is written, then the state read, with a full fence between: a call parking meanwhile reads the end after
        // it marks its connection parked, and gives the connection back itself; a call taking it meanwhile does not park it
        // again when it ends.
        Volatile.Write(ref _ended, true);
        Interlocked.MemoryBarrier();
        if (!TryTakeParked(out DbConnection parked, out DbCommand? command, out long parkedAt, out _))
            return;
        if (command is not null)
        {
            if (async)
                await command.DisposeAsync().ConfigureAwait(false);
            else
                command.Dispose();
        }

        Pool.Telemetry.ParkEnded(parkedAt);
        if (async)
            await parked.DisposeAsync().ConfigureAwait(false);
        else
            parked.Dispose();
    }

    [System.Diagnostics.CodeAnalysis.SuppressMessage(
        "Design", "CA1031:Do not catch general exception types", Justification = "Nobody waits for a parked connection's close.")]
    private static void CloseParked(DbConnection connection, DbCommand? command)
    {
        try
        {
            command?.Dispose();
            connection.Dispose();
        }
        catch (Exception)
        {
        }
    }
}
