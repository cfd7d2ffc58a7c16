using System.Data;
using System.Data.Common;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Orseis.Execution.Scopes;

/// <summary>
/// A <see cref="ConnectionScope"/>'s hold on one database: at most one parked connection, the command its last call
/// used (so SQLite keeps its prepared statement), and the time it was parked. A call in the scope takes the parked
/// connection instead of opening one (<see cref="TryTake"/>); a call that ends parks its connection when the slot is
/// empty (<see cref="TryPark"/>), else gives it back to the pool; <see cref="ParkSweep"/> gives a parked connection back
/// once it sat idle for <see cref="OrseisOptions.ScopeIdleWindow"/>. Two calls never share a connection: a parked one is
/// taken by exactly one call, and concurrent calls of the scope open their own.
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

    // The kept command is typed object so the atomics on it are Interlocked's object overloads: the generic ones run shared
    // code that asks typeof(T).IsValueType at run time.
    private object? _command; // a DbCommand
    private long _parkedAt; // a timestamp while the pool's telemetry is timed, else 0
    private long _parkedTick;
    private int _defaultTimeout;
    private int _queued; // 1 while the slot is in the sweep's queue
    private bool _ended;
    private long _reuses;
    private int _unused; // parked connections the sweep gave back unused since the last reuse
    private int _releases; // calls that ended while _unused > 0
    private string? _statement; // the text of the call ending now (TryKeepCommand), until its TryPark
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

        if (!TryTakeParked(out DbConnection connection, out long parkedAt, out int parkedKey))
            return false;

        // No look at its state: a provider cannot know a parked connection broke before using it, and reading the state
        // costs some providers an allocation (Npgsql 10: 96 bytes). A dead one fails the call as a session's would.

        _reuses++; // one taker at a time: a take follows the park it takes, and a park the take before it
        if (Volatile.Read(ref _unused) != 0)
            Volatile.Write(ref _unused, 0);
        _memory.Reused(parkedKey);
        Diagnostics.PoolTelemetry telemetry = _telemetry;
        StackTrace? acquirer = forStream ? telemetry.CaptureAcquirer(heldAcrossCalls: true) : null;
        lease = new Lease(connection, telemetry.Unparked(connection, _owner, acquirer, parkedAt), this);
        return true;
    }

    /// <summary>Takes the parked connection and its park's facts out of the slot, for one taker; false when none is parked.</summary>
    private bool TryTakeParked(out DbConnection connection, out long parkedAt, out int parkedKey)
    {
        if (Volatile.Read(ref _state) != Parked || Interlocked.CompareExchange(ref _state, Taking, Parked) != Parked)
        {
            connection = null!;
            parkedAt = 0;
            parkedKey = 0;
            return false;
        }

        connection = _parked!;
        parkedAt = _parkedAt;
        parkedKey = _parkedKey;
        _parked = null;
        Volatile.Write(ref _state, Empty);
        return true;
    }

    /// <summary>
    /// Parks <paramref name="lease"/>'s connection, at the end of a call, for the next call of the scope; false when the
    /// scope ended, another connection is parked already, or the call <paramref name="failed"/> and left the connection
    /// closed (the caller closes it then). A call that succeeded left it open.
    /// </summary>
    public bool TryPark(in Lease lease, bool failed)
    {
        DbConnection connection = lease.Connection;
        string? statement = _statement;
        _statement = null;
        if (Volatile.Read(ref _ended) || (failed && connection.State != ConnectionState.Open))
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
        Interlocked.Exchange(ref _state, Parked); // a full fence, as the reads below need
        if (Volatile.Read(ref _queued) == 0 && Interlocked.CompareExchange(ref _queued, 1, 0) == 0)
            _sweep.Enqueue(this);
        if (Volatile.Read(ref _ended) && TryTakeParked(out DbConnection given, out long givenAt, out _))
        {
            // The scope ended while this call parked, and its end saw the slot being parked: given back here, as the end would.
            Pool.Telemetry.ParkEnded(givenAt);
            CloseParked(given, DropCommand(given));
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

    /// <summary>The command for a call on <paramref name="connection"/>: the last call's on the same connection, or a new one.</summary>
    public DbCommand RentCommand(DbConnection connection)
    {
        DbCommand? command = Unsafe.As<DbCommand?>(Volatile.Read(ref _command));
        if (command is not null &&
            (!ReferenceEquals(command.Connection, connection) || Interlocked.CompareExchange(ref _command, null, command) != command))
        {
            command = null; // another connection's, or taken meanwhile
        }

        if (command is null)
        {
            command = connection.CreateCommand();
            _defaultTimeout = command.CommandTimeout;
        }
        else if (command.CommandTimeout != _defaultTimeout)
        {
            command.CommandTimeout = _defaultTimeout;
        }

        return command;
    }

    /// <summary>Keeps a call's command (its parameters cleared) for the next call on its connection; false when it is not kept.</summary>
    public bool TryKeepCommand(DbCommand command, bool failed)
    {
        _statement = command.CommandText; // for TryPark, which the call's end runs next
        if (failed || Volatile.Read(ref _ended) || Interlocked.CompareExchange(ref _command, command, null) is not null)
            return false;
        if (!Volatile.Read(ref _ended))
            return true;

        // The scope ended meanwhile: its end may have missed this command; whoever takes it back out disposes it.
        return Interlocked.CompareExchange(ref _command, null, command) != command;
    }

    /// <summary>The kept command of <paramref name="connection"/>, taken out to be disposed with it; null when none.</summary>
    public DbCommand? DropCommand(DbConnection connection)
    {
        DbCommand? command = Unsafe.As<DbCommand?>(Volatile.Read(ref _command));
        return command is not null && ReferenceEquals(command.Connection, connection) &&
               Interlocked.CompareExchange(ref _command, null, command) == command
            ? command
            : null;
    }

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
            if (TryTakeParked(out DbConnection due, out long parkedAt, out int key))
            {
                DbCommand? command = DropCommand(due);
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

    /// <summary>The scope ended: the parked connection and the kept command go back now, and nothing parks again.</summary>
    public async ValueTask EndAsync(bool async)
    {
        if (Repeats is { } repeats)
            Pool.Telemetry.ScopeEnded(repeats); // in the scope's own flow, before anything is awaited
        // The end is written, then the state read, with a full fence between: a call parking meanwhile reads the end after
        // it marks its connection parked, and gives the connection back itself; a call taking it meanwhile does not park it
        // again when it ends.
        Volatile.Write(ref _ended, true);
        Interlocked.MemoryBarrier();
        DbConnection? parked = TryTakeParked(out DbConnection taken, out long parkedAt, out _) ? taken : null;
        DbCommand? command = Unsafe.As<DbCommand?>(Interlocked.Exchange(ref _command, null));

        if (command is not null)
        {
            if (async)
                await command.DisposeAsync().ConfigureAwait(false);
            else
                command.Dispose();
        }

        if (parked is null)
            return;
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
