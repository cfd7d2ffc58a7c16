using System.Data;
using System.Data.Common;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Execution.Calls;

/// <summary>The shapes a call comes in: they differ in how long the connection is held and who reads the results.</summary>
internal enum CallShape
{
    /// <summary>Executed and read to the end inside the call (a list, a row, a scalar, an execute, an execute-many).</summary>
    Buffered,

    /// <summary>Read row by row by the caller (<c>Stream</c>): the connection is held until the enumeration ends.</summary>
    Stream,

    /// <summary>Several result sets read by the caller (<c>QueryMultiple</c>): held until the reader is disposed.</summary>
    Grid,

    /// <summary>
    /// A session's transaction committed or rolled back, on the connection the session holds under its guard: nothing
    /// acquired or released, no command; watched whole.
    /// </summary>
    TransactionEnd,
}

/// <summary>
/// The one path of a call, whatever its shape: acquire the connection, rent and fill the command, start the command's
/// telemetry and the watch over its timeout and token (<see cref="StartAsync"/>); run each provider operation under
/// that watch (<see cref="WatchAsync{T}"/>, <see cref="Token"/>); translate a failure (<see cref="Watched"/>, then
/// <see cref="Translate"/>); stop the telemetry and read back outputs (<see cref="Complete"/>, <see cref="Fail"/>);
/// give the connection back, or abandon it to a provider that is still using it (<see cref="EndAsync"/>).
/// </summary>
/// <remarks>
/// A struct held by whoever runs the call (a buffered call's frame, a stream's iterator, a <see cref="GridReader"/>),
/// so a call allocates nothing for its lifecycle; its methods are called on that one copy.
/// </remarks>
internal partial struct CallLifecycle
{
    private bool _completed;
    private bool _failed;

    // Fields, not properties: a buffered call reads them on its hot path, and a field is read in place (a property of a
    // struct may be a call that copies, where the JIT does not inline it). Not readonly: Init writes them in the caller's
    // own copy, and nothing else writes them.

    /// <summary>Who runs the call.</summary>
    public SqlRunner Runner;

    /// <summary>The call's SQL, arguments and timeout.</summary>
    public CommandRequest Request;

    /// <summary>The call's shape.</summary>
    public CallShape Shape;

    /// <summary>The connection the call holds, set once acquired.</summary>
    public Lease Lease;

    /// <summary>The caller's token.</summary>
    public CancellationToken Caller;

    /// <summary>The command, rented or created by <see cref="Begin"/>.</summary>
    public DbCommand Command;

    /// <summary>The timeout a watch enforces for the call (<see cref="PoolContext.WatchedTimeout"/>); null for none.</summary>
    public TimeSpan? Timeout
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        readonly get => _timeoutTicks == 0 ? null : new TimeSpan(_timeoutTicks);
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        set
        {
            Debug.Assert(value is null || value.Value > TimeSpan.Zero, "a watched timeout is positive (PoolContext.WatchedTimeout)");
            _timeoutTicks = value.GetValueOrDefault().Ticks; // null: 0, one store and no branch
        }
    }

    /// <summary>
    /// <see cref="Timeout"/>'s ticks, 0 for none (a watched timeout is never zero): 8 bytes where a nullable takes 16, which
    /// keeps the struct at 128 bytes with <see cref="_print"/>. Past 128 bytes the JIT clears it in a loop rather than by
    /// unrolled stores, and every frame that holds one clears more (issue 42).
    /// </summary>
    private long _timeoutTicks;

    /// <summary>The watch over the whole call (an async buffered call or stream); null when there is nothing to watch.</summary>
    public CallWatch? Watch;

    private bool _blocking;
    private long _started;

    /// <summary>The arguments' print taken by the binder (<see cref="ArgumentPrint"/>), while statements are followed.</summary>
    private ArgumentPrint _print;
    private long _timed;

    /// <summary>
    /// A new call written into <paramref name="call"/>, the caller's own copy, field by field: building it aside and
    /// copying it in would pass every reference it holds through a write barrier once more.
    /// </summary>
    /// <remarks>
    /// Every field is written here, none cleared first with <c>call = default</c>: the JIT clears a struct with references
    /// through a reference by unrolled stores only up to 128 bytes, and by a loop beyond (the 8 bytes of <see cref="_print"/>
    /// once took the struct to 136 bytes and every call 35 instructions more under the gate, issue 42; it is 128 again, see
    /// <see cref="_timeoutTicks"/>). The compiler checks that a field added later is written here too (an <c>out</c>
    /// parameter is assigned whole before the method returns).
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Init(
        out CallLifecycle call, SqlRunner runner, CommandRequest request, CallShape shape, bool blocking, CancellationToken caller)
    {
        call._completed = false;
        call._failed = false;
        call.Runner = runner;
        call.Request = request;
        call.Shape = shape;
        call.Lease = default;
        call.Caller = caller;
        call.Command = null!;
        call._timeoutTicks = 0;
        call.Watch = null;
        call._blocking = blocking;
        call._started = 0;
        call._print = default;
        call._timed = 0;
    }

    /// <summary>The token to give the provider: the watch's when there is one, the caller's otherwise.</summary>
    public readonly CancellationToken Token
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Watch?.Token ?? Caller;
    }

    private readonly ConnectionSource Source
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Runner.Source;
    }

    private readonly PoolContext Pool
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Runner.Source.Pool;
    }

    /// <summary>The lifecycle of ending a session's transaction on <paramref name="lease"/>, the connection it holds.</summary>
    public static CallLifecycle ForTransactionEnd(SqlRunner runner, Lease lease, bool async, CancellationToken cancellationToken)
    {
        Init(out CallLifecycle call, runner, TransactionEndRequest, CallShape.TransactionEnd, blocking: false, cancellationToken);
        call.Lease = lease;
        call.Timeout = runner.Pool.WatchedTimeout(null);
        if (async || call.Timeout is not null)
            call.Watch = CallWatch.Start(runner.Pool.Deadlines, call.Timeout, cancellationToken);
        return call;
    }

    private static readonly CommandRequest TransactionEndRequest = new("", null, null);

    private void Begin(bool async)
    {
        ConnectionSource source = Source;
        PoolContext pool = source.Pool;
        DbCommand command = Shape == CallShape.Buffered ? source.RentCommand(Lease) : Lease.Connection.CreateCommand();
        Command = command;

        // The call's transaction, timeout, parameters and text. A kept command may come from a procedure call
        // (ParameterBag.CommandType); any other call is text.
        string sql = Request.Sql;
        object? args = Request.Args;
        TimeSpan? requested = Request.Timeout;
        command.Transaction = source.Transaction;

        // Most calls have no timeout of their own nor a database default: they skip working one out.
        TimeSpan? timeout = null;
        if (pool.CommandTimeout(requested) is { } effective)
        {
            if (pool.TimeoutSeconds(effective) is { } seconds)
                command.CommandTimeout = seconds;
            timeout = pool.WatchedTimeout(effective);
        }

        if (args is not ParameterBag && command.CommandType != CommandType.Text)
            command.CommandType = CommandType.Text;
        // A call without arguments runs its text as written (the binder would return it as it is). While a detector
        // follows statements with arguments, the binder takes their print (hash and count) as it adds them; a call nobody
        // follows pays one test for it (issue 42). _print is Unknown unless taken (Init), so its Count is -1 otherwise.
        if (args is null)
            command.CommandText = sql;
        else if (!pool.Telemetry.HearsStatements)
            command.CommandText = ParameterBinder.Bind(command, sql, args, pool.Handlers);
        else
            command.CommandText = ParameterBinder.BindPrinted(command, sql, args, pool.Handlers, out _print);
        _started = pool.Telemetry.CommandStarting(sql, Lease.Hold, Lease.Scope, args is null ? null : command, _print.Count);

        // Only a call with a timeout reads the clock, to tell the provider's report of its expiry from other failures.
        Timeout = timeout;
        _timed = timeout is null ? 0 : Stopwatch.GetTimestamp();

        // A buffered call is watched whole. A stream's rows are read at the caller's pace: its token watches the whole
        // stream, and the provider's command timeout each wait. A grid watches each of its steps (WatchStep).
        if (async && Shape != CallShape.Grid)
            StartWatch(pool, timeout);
    }

    /// <summary>
    /// <see cref="Begin"/>'s watch for an async call: a method of its own, so a sync call's start does not set up its frame.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void StartWatch(PoolContext pool, TimeSpan? timeout) =>
        Watch = CancellingCommand(CallWatch.Start(pool.Deadlines, Shape == CallShape.Buffered ? timeout : null, Caller));

    /// <summary>
    /// Waits for a provider operation under the call's watch (the operation must have been given <see cref="Token"/>);
    /// exactly the operation when nothing watches.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public readonly ValueTask<T> WatchAsync<T>(ValueTask<T> operation) => Watch is null ? operation : Watch.WaitAsync(operation);

    /// <summary>
    /// A buffered call's <paramref name="body"/> run on the call's command under its watch, given the watch's token
    /// (<see cref="WatchAsync{T}(ValueTask{T})"/>, <see cref="Token"/>): the one step between the start and the end.
    /// </summary>
    public readonly ValueTask<T> RunBodyAsync<T>(CallBody<T> body, bool async)
    {
        CallWatch? watch = Watch;
        return watch is null
            ? body(Command, Runner.Handlers, async, Caller)
            : watch.WaitAsync(body(Command, Runner.Handlers, async, watch.Token));
    }

    /// <inheritdoc cref="WatchAsync{T}(ValueTask{T})"/>
    public readonly ValueTask WatchAsync(Task operation) => Watch is null ? new ValueTask(operation) : Watch.WaitAsync(operation);

    /// <summary>
    /// What the call reports for <paramref name="error"/> as far as <paramref name="watch"/> knows (the call's own when
    /// null): an abandoned operation becomes a cancellation or a timeout, an operation the watch stopped likewise;
    /// any other error is returned as it is.
    /// </summary>
    public readonly Exception Watched(Exception error, CallWatch? watch = null)
    {
        watch ??= Watch;
        if (watch is null)
            return error;
        if (error is CallAbandonedException abandoned)
            return abandoned.Reported = CallErrors.Abandoned(watch, Timeout, abandoned, Caller);
        return CallErrors.Stopped(watch, Timeout, error, Caller) ?? error;
    }

    /// <summary>
    /// What the caller is thrown instead of <paramref name="error"/> (already <see cref="Watched"/>), or null to let it
    /// pass: a cancellation the provider misreports, then the source's translation (a broken connection, an exhausted
    /// pool, a transaction the server ended), then a provider's own report of the call's timeout. The failure is noted
    /// for the source (<see cref="ConnectionSource.NoteFailure"/>): it may have ended a transaction.
    /// </summary>
    /// <param name="error">The failure, as <see cref="Watched"/> reported it.</param>
    /// <param name="cancellationToken">The token of the operation that failed.</param>
    /// <remarks>
    /// The provider's report of a timeout is told by the time since the call started, whatever step failed: a provider
    /// times a command from its execute (MySqlConnector across all its reads) or each wait (Npgsql), never less.
    /// </remarks>
    public readonly Exception? Translate(Exception error, CancellationToken cancellationToken)
    {
        DbConnection connection = Lease.Connection;
        Source.NoteFailure(connection, error);
        Exception? reported = Cancellation.IsMisreported(error, cancellationToken)
            ? Cancellation.Reported(error, cancellationToken)
            : Source.TranslateFailure(connection, error);
        bool inTransaction = Source.Transaction is not null;
        return CallErrors.TimedOut(Timeout, _timed, error, connection, inTransaction, cancellationToken) ?? reported;
    }

    /// <summary>
    /// The failure of a buffered call, start to end: the command's telemetry stops with <paramref name="error"/>, the
    /// error is translated, and the server is asked whether it ended the call's transaction. Returns what to throw
    /// (null: rethrow the original).
    /// </summary>
    public ValueTask<Exception?> FailAsync(Exception error, bool async)
    {
        // Not async itself: the outcome is recorded on the caller's own copy of the lifecycle.
        Exception seen = Watched(error);
        Fail(seen);
        Pool.Telemetry.CommandFailed(Request.Sql, seen);
        Exception? reported = Reported(error, seen, Watch, Caller);
        if (reported is ConnectionBrokenException broken)
            broken.CallOnlyRead = Shape == CallShape.Buffered && ReadStatement.OnlyReads(Request);
        return Watch?.Abandoned is not null ? new ValueTask<Exception?>(reported) : SettleAsync(Source, Lease, reported, async);
    }

    /// <summary>While the call still holds the connection: did the server end the transaction the statement ran in?</summary>
    private static async ValueTask<Exception?> SettleAsync(ConnectionSource source, Lease lease, Exception? reported, bool async) =>
        await source.SettleAsync(lease, async).ConfigureAwait(false) ?? reported;

    /// <summary>
    /// What the caller is thrown instead of <paramref name="error"/>, a failure of one of the call's provider operations
    /// (<see cref="Watched"/> then <see cref="Translate"/>; an abandoned operation is reported as the watch says); null to
    /// let it pass.
    /// </summary>
    /// <param name="error">The failure.</param>
    /// <param name="cancellationToken">The token of the operation that failed.</param>
    /// <param name="watch">The operation's own watch, for a step timed on its own (<see cref="WatchStep"/>); null for the call's.</param>
    public readonly Exception? Report(Exception error, CancellationToken cancellationToken, CallWatch? watch = null) =>
        Reported(error, Watched(error, watch), watch ?? Watch, cancellationToken);

    /// <summary>
    /// What to throw for <paramref name="error"/>, which the watch reported as <paramref name="seen"/>: an abandoned operation as the
    /// watch says, anything else translated (<see cref="Translate"/>); null to rethrow the original.
    /// </summary>
    private readonly Exception? Reported(Exception error, Exception seen, CallWatch? watch, CancellationToken cancellationToken)
    {
        if (watch?.Abandoned is not null)
            return seen;
        return Translate(seen, cancellationToken) ?? (ReferenceEquals(seen, error) ? null : seen);
    }

    /// <summary>
    /// A watch over one step of a call timed step by step (a grid's execute and each of its reads, read at the caller's
    /// pace): the call's timeout counted from now, and the step's token. Null when there is nothing to watch.
    /// </summary>
    public readonly CallWatch? WatchStep(bool async, CancellationToken cancellationToken) =>
        async ? CancellingCommand(CallWatch.Start(Pool.Deadlines, Timeout, cancellationToken)) : null;

    /// <summary>
    /// A watch over an enumeration read at the caller's pace (a grid's unbuffered result set): its token only, as a
    /// stream's; the provider's command timeout bounds each wait. Null when the token cannot be cancelled.
    /// </summary>
    public readonly CallWatch? WatchEnumeration(CancellationToken cancellationToken) =>
        CancellingCommand(CallWatch.Start(Pool.Deadlines, cancellationToken));

    /// <summary>
    /// <paramref name="watch"/>, made to cancel the command itself when it stops, for a provider whose async methods run
    /// synchronously and never look at their token again (MySql.Data's reads): its <c>Cancel</c> stops the statement.
    /// </summary>
    private readonly CallWatch? CancellingCommand(CallWatch? watch)
    {
        if (watch is not null && Pool.Traits.AsyncRunsSynchronously)
            watch.CancelOnStop(Command);
        return watch;
    }
}
