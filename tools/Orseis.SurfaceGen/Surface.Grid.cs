namespace Orseis.SurfaceGen;

// GridReader's reads of its current result set: the same row limits and row kinds as SqlRunner's calls, and the same
// multi-map arities, each read by one body in GridReader.Bodies.cs.
public static partial class Surface
{
    /// <summary>GridReader's generated files.</summary>
    public static Family[] GridFamilies =>
    [
        new("GridReader.Surface.Rows.cs",
            "Reads of the current result set: every row or one by a limit, as T, as dynamic or as a run-time Type (GridReader.Bodies.cs).",
            [Execution, Mapping], [.. GridLimits.SelectMany(limit => new[] { GridTyped(limit), GridDynamic(limit), GridRunTime(limit) })],
            Grid: true),
        new("GridReader.Surface.MultiMap.cs",
            "Multi-mapping of the current result set, as SqlRunner.Query<T1, T2, TResult> does (GridReader.Bodies.cs).",
            [Execution, Mapping], [.. Enumerable.Range(2, 6).Select(GridMultiMap), GridMultiMapTypes], Grid: true),
    ];

    private const string MovesOn = "and moves to the next";

    private const string Done = "every result set has been read";

    /// <summary>The grid's row limits: SqlRunner's, read from the current result set.</summary>
    private sealed record GridLimit(string Name, string? RowLimit, string Which, string Returns, string? Error, bool Nullable, bool List = false);

    private static GridLimit[] GridLimits =>
    [
        new("Read", null, "every row", "The rows", null, Nullable: false, List: true),
        new("ReadSingle", "Single", "the only row", "The row", "The result set has no row or more than one", Nullable: false),
        new("ReadSingleOrDefault", "SingleOrDefault", "the only row", "The row, or {0}", "The result set has more than one row",
            Nullable: true),
        new("ReadFirst", "First", "the first row", "The first row", "The result set has no row", Nullable: false),
        new("ReadFirstOrDefault", "FirstOrDefault", "the first row", "The first row, or {0}", null, Nullable: true),
    ];

    private static string GridSummary(GridLimit limit, string target, string none, string more = "") =>
        $"<summary>Maps {limit.Which} of the current result set{target}" +
        (limit.Nullable ? $", or returns {none} when it has none," : "") + $" {MovesOn}.{more}</summary>";

    private static string GridError(GridLimit limit) =>
        $"<exception cref=\"InvalidOperationException\">{limit.Error ?? "E" + Done[1..]}{(limit.Error is null ? "" : ", or " + Done)}.</exception>";

    private static Call GridTyped(GridLimit limit)
    {
        string result = limit.List ? "List<T>" : limit.Nullable ? "T?" : "T";
        string body = limit.List ? "ReadListAsync<T>(async: {0}, {1})" : $"ReadRowAsync<T>(RowLimit.{limit.RowLimit}, async: {{0}}, {{1}})";
        string sync = string.Format(null, body, "false", "CancellationToken.None");
        string async = string.Format(null, body, "true", "cancellationToken");
        return new()
        {
            Name = limit.Name,
            TypeParams = "<T>",
            Result = result,
            AsyncResult = $"Task<{result}>",
            Summary = GridSummary(limit, "", DefaultWord),
            Returns = string.Format(null, limit.Returns, DefaultWord) + ".",
            Tail = GridError(limit),
            SyncBody = $"SyncPath.Done({sync})" + (limit.Nullable || limit.List ? "" : "!"),
            AsyncBody = limit.Nullable || limit.List ? async + ".AsTask()" : $"NotNull({async})",
        };
    }

    private static Call GridDynamic(GridLimit limit)
    {
        string result = limit.List ? "List<dynamic>" : limit.Nullable ? "dynamic?" : "dynamic";
        return new()
        {
            Name = limit.Name,
            Result = result,
            AsyncResult = $"Task<{result}>",
            Summary = GridSummary(limit, " as a <see cref=\"DynamicRow\"/>", NullWord, $" As <c>{limit.Name}&lt;dynamic&gt;</c>."),
            Returns = string.Format(null, limit.Returns, NullWord) + ".",
            Tail = GridError(limit),
            SyncBody = $"{limit.Name}<dynamic>()",
            AsyncBody = $"{limit.Name}Async<dynamic>(cancellationToken)",
        };
    }

    private static Call GridRunTime(GridLimit limit)
    {
        string result = limit.List ? "List<object?>" : "object?";
        string body = limit.List
            ? "ReadRowsAsync(RuntimeRowType.For(type, nameof(type)).Mapper, async: {0}, {1})"
            : $"ReadRowAsync(RowLimit.{limit.RowLimit}, RuntimeRowType.For(type, nameof(type)).Mapper, async: {{0}}, {{1}})";
        return new()
        {
            Name = limit.Name,
            Result = result,
            AsyncResult = $"Task<{result}>",
            Before =
            [
                new("Type", "type", "The row type: a class, record, struct or scalar type; <see cref=\"object\"/> for " +
                    "<see cref=\"DynamicRow\"/>s."),
            ],
            Summary = GridSummary(limit, " to <paramref name=\"type\"/>", NullWord,
                $" <see cref=\"{limit.Name}{{T}}()\"/> for a type known at run time."),
            Returns = string.Format(null, limit.Returns, NullWord) + (limit.List ? " (boxed for a value type)." : "."),
            Tail = "<exception cref=\"ArgumentException\"><paramref name=\"type\"/> cannot be a row type (an open generic type, a static " +
                "class, …).</exception>\n" + GridError(limit),
            SyncBody = "SyncPath.Done(" + string.Format(null, body, "false", "CancellationToken.None") + ")",
            AsyncBody = string.Format(null, body, "true", "cancellationToken") + ".AsTask()",
        };
    }

    private static Call GridMultiMap(int parts)
    {
        Call query = MultiMap(parts);
        string types = string.Join(", ", Enumerable.Range(1, parts).Select(i => $"T{i}"));
        string read = $"ReadMultiAsync(MultiTypes<{types}>.Types, splitOn, MultiRow.Compose(map), async: {{0}}, {{1}})";
        return query with
        {
            Name = "Read",
            Summary = $"<summary>Maps every row of the current result set to {parts} types combined by <paramref name=\"map\"/> (as " +
                $"<c>SqlRunner.Query&lt;{types}, TResult&gt;</c> does) {MovesOn}.</summary>",
            Tail = SplitError + "\n" + GridError(GridLimits[0]),
            Block = false,
            SyncBody = "SyncPath.Done(" + string.Format(null, read, "false", "CancellationToken.None") + ")",
            AsyncBody = string.Format(null, read, "true", "cancellationToken") + ".AsTask()",
        };
    }

    private static Call GridMultiMapTypes => MultiMapTypes with
    {
        Name = "Read",
        Summary = """
            <summary>Maps every row of the current result set to the <paramref name="types"/>, combined by <paramref name="map"/> (as
            <c>SqlRunner.Query&lt;TResult&gt;(sql, types, map)</c> does), and moves to the next.</summary>
            """,
        Tail = MultiMapTypes.Tail + "\n" + GridError(GridLimits[0]),
        Block = false,
        SyncBody = "SyncPath.Done(ReadTypesAsync(types, map, splitOn, async: false, CancellationToken.None))",
        AsyncBody = "ReadTypesAsync(types, map, splitOn, async: true, cancellationToken).AsTask()",
    };
}
