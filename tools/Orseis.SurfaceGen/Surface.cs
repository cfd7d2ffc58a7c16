namespace Orseis.SurfaceGen;

/// <summary>
/// The table of SqlRunner's calls: each family once, with its row kinds (a type parameter, dynamic, a run-time
/// <c>Type</c>) and multi-map arities expanded here. Every call gets an interpolated form and an ORSEIS001 guard, sync
/// and async; its string forms are generated too unless their body is hand-written beside its helpers.
/// </summary>
public static partial class Surface
{
    private const string DataCommon = "System.Data.Common";
    private const string Execution = "Orseis.Execution";
    private const string Mapping = "Orseis.Mapping";

    /// <summary>Every generated file, each a family of calls.</summary>
    public static readonly Family[] Families =
    [
        new("SqlRunner.Surface.Scalar.cs", "Scalar: the first column of the first row (ScalarBody in SqlRunner.Scalar.cs).",
            [DataCommon, Execution], [Scalar]),
        new("SqlRunner.Surface.Execute.cs", "Execute: rows affected, once or per item of an argument sequence (SqlRunner.Execute.cs).",
            [DataCommon, Execution], [Execute]),
        .. RowFamilies,
        new("SqlRunner.Surface.Stream.cs", "Stream: rows read lazily (StreamRowsAsync in SqlRunner.Stream.cs).",
            [Execution], [Stream, StreamDynamic]),
        new("SqlRunner.Surface.MultiMap.cs", "Multi-mapping: each row split into parts, combined by a map function (SqlRunner.MultiMap.cs).",
            [Mapping], [.. Enumerable.Range(2, 6).Select(MultiMap), MultiMapTypes]),
        new("SqlRunner.Surface.QueryMultiple.cs", "QueryMultiple: a GridReader over the result sets (OpenGridAsync in SqlRunner.Multiple.cs).",
            [Execution], [QueryMultiple]),
    ];

    /// <summary>Every generated file of SqlRunner and GridReader.</summary>
    public static Family[] AllFamilies => [.. Families, .. GridFamilies];

    /// <summary>The ORSEIS001 guards the table makes: one per call and form (sync, async).</summary>
    public static int GuardCount => Families.Sum(f => f.Calls.Length) * 2;

    private static Call Scalar => new()
    {
        Name = "Scalar",
        TypeParams = "<T>",
        Result = "T?",
        AsyncResult = "Task<T?>",
        Summary = "<summary>Runs <paramref name=\"sql\"/> and returns the first column of the first row, converted to <typeparamref name=\"T\"/>.</summary>",
        ArgsDoc = ArgsObjectDoc,
        Returns = "The value; <see langword=\"default\"/> when there is no row or the value is NULL and <typeparamref name=\"T\"/> can hold it.",
        Tail = "<exception cref=\"MappingException\">The value is NULL (or missing) and <typeparamref name=\"T\"/> cannot hold NULL, or it cannot convert.</exception>",
        SyncBody = Buffered("ScalarBody<T>(command, handlers, async, ct)", async: false),
        AsyncBody = Buffered("ScalarBody<T>(command, handlers, async, ct)", async: true),
    };

    private static Call Execute => new()
    {
        Name = "Execute",
        Result = "int",
        AsyncResult = "Task<int>",
        Summary = """
            <summary>
            Runs <paramref name="sql"/> and returns the number of rows it affected. Given a sequence of argument objects
            (<c>new[] { new { id = 1 }, new { id = 2 } }</c>), runs it once per item, in order, on one connection (inside the
            session's transaction, if any), and returns the rows affected in all.
            </summary>
            <remarks>
            Where the provider supports <see cref="DbBatch"/> (MySqlConnector, Npgsql, SqlClient), the items of a sequence
            are sent in batches of up to 1000 items and 2000 parameters, each sent as one; SQL containing a semicolon and a
            <see cref="ParameterBag"/> with outputs or a procedure run one command per item, as every item does on other
            providers. When an item fails, the provider's exception is thrown with the item's index in
            <see cref="Exception.Data"/> under <c>"Orseis.ItemIndex"</c> (in a batch, only where the provider names the
            failed command), and a failed batch's first item and size under <c>"Orseis.BatchStart"</c> and
            <c>"Orseis.BatchSize"</c>.
            </remarks>
            """,
        ArgsDoc = ArgsObjectDoc + " Or a sequence of such objects.",
        TimeoutDoc = "The command timeout for this call (for each statement or batch of a sequence); null for the database's default.",
        CancelDoc = "Cancels the call; a sequence stops before its next item or batch.",
        Returns = "The rows affected, as the provider counts them.",
        Block = true,
        SyncBody = """
            if (ArgumentSequence.Items(args) is not { } items)
                return Run(new CommandRequest(sql, args, timeout), static (command, _, async, ct) => ExecuteBody(command, async, ct));
            if (items.Count == 0)
                return 0;
            CallBody<int> each = (command, handlers, async, ct) => ExecuteManyBody(command, sql, items, handlers, async, ct);
            return Run(new CommandRequest(sql, null, timeout), each);
            """,
        AsyncBody = """
            if (ArgumentSequence.Items(args) is not { } items)
            {
                CallBody<int> once = static (command, _, async, ct) => ExecuteBody(command, async, ct);
                return RunAsync(new CommandRequest(sql, args, timeout), once, async: true, cancellationToken).AsTask();
            }

            if (items.Count == 0)
                return Task.FromResult(0);
            CallBody<int> each = (command, handlers, async, ct) => ExecuteManyBody(command, sql, items, handlers, async, ct);
            return RunAsync(new CommandRequest(sql, null, timeout), each, async: true, cancellationToken).AsTask();
            """,
    };

    private static Call Stream => new()
    {
        Name = "Stream",
        TypeParams = "<T>",
        Result = "IEnumerable<T>",
        AsyncResult = "IAsyncEnumerable<T>",
        Summary = """
            <summary>
            Runs <paramref name="sql"/> when enumeration starts and yields rows one at a time, unbuffered. The connection and
            reader are held until the enumeration ends or is disposed (<c>foreach</c> and <c>await foreach</c> do both, also on
            <c>break</c> and on exceptions).
            </summary>
            """,
        Returns = "The rows, read lazily.",
        CancelDoc = "Cancels the call (as does the token given to <c>WithCancellation</c>).",
        Block = true,
        SyncBody = """
            Pool.Telemetry.EnterFlow();
            var request = new CommandRequest(sql, args, timeout);
            IEnumerable<T> rows = SyncRows(StreamRowsAsync<T>(request, async: false, CancellationToken.None));
            return Diagnostics.OrseisActivitySource.Tracing ? TracedStream(request, rows) : rows;
            """,
        AsyncBody = """
            Pool.Telemetry.EnterFlow();
            var request = new CommandRequest(sql, args, timeout);
            return Diagnostics.OrseisActivitySource.Tracing
                ? TracedStreamAsync(request, StreamRowsAsync<T>(request, async: true, cancellationToken), CancellationToken.None)
                : StreamRowsAsync<T>(request, async: true, cancellationToken);
            """,
    };

    private static Call StreamDynamic => new()
    {
        Name = "Stream",
        Result = "IEnumerable<dynamic>",
        AsyncResult = "IAsyncEnumerable<dynamic>",
        Summary = """
            <summary>Runs <paramref name="sql"/> when enumeration starts and yields its rows as <see cref="DynamicRow"/>s one at a time,
            unbuffered: <c>Stream&lt;dynamic&gt;</c>.</summary>
            """,
        Returns = "The rows, read lazily.",
        CancelDoc = "Cancels the call (as does the token given to <c>WithCancellation</c>).",
        SyncBody = "Stream<dynamic>(sql, args, timeout)",
        AsyncBody = "StreamAsync<dynamic>(sql, args, timeout, cancellationToken)",
        InterpolatedTarget = "Stream<dynamic>",
    };

    private static Call QueryMultiple => new()
    {
        Name = "QueryMultiple",
        Result = "GridReader",
        AsyncResult = "Task<GridReader>",
        Summary = """
            <summary>
            Runs <paramref name="sql"/> (several statements, or a procedure returning several result sets) and returns a
            <see cref="GridReader"/> to read its result sets in order. The connection is held until the reader is disposed,
            with the same rules as a stream: on a session or a ReuseConnection database no other call runs meanwhile.
            </summary>
            """,
        Returns = "The reader of result sets; dispose it.",
        Tail = """
            <example>
            <code>
            using GridReader grids = db.QueryMultiple(
                "select * from users where id = @id; select * from orders where user_id = @id", new { id });
            User user = grids.ReadSingle&lt;User&gt;();
            List&lt;Order&gt; orders = grids.Read&lt;Order&gt;();
            </code>
            </example>
            """,
        Block = true,
        SyncBody = """
            Pool.Telemetry.EnterFlow();
            return SyncPath.Done(OpenGridAsync(new CommandRequest(sql, args, timeout), async: false, CancellationToken.None));
            """,
        AsyncBody = """
            Pool.Telemetry.EnterFlow();
            return OpenGridAsync(new CommandRequest(sql, args, timeout), async: true, cancellationToken).AsTask();
            """,
    };

    private const string ArgsObjectDoc =
        "The parameters: an object whose properties are named after them, a dictionary, or <see cref=\"DbParameter\"/>s.";

    /// <summary>A buffered call through Run/RunAsync with a static body lambda.</summary>
    private static string Buffered(string body, bool async) => async
        ? $"RunAsync(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => {body}, async: true, cancellationToken).AsTask()"
        : $"Run(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => {body})";
}
