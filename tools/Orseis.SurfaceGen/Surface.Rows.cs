namespace Orseis.SurfaceGen;

// The row-reading families: every row buffered (Query), or one row by a limit (First, Single and their OrDefault forms),
// each read as a type parameter's type, as dynamic rows, or as a Type given at run time.
public static partial class Surface
{
    /// <summary>How many rows a family reads, and what its docs say about it.</summary>
    private sealed record Limit(
        string Name, string? RowLimit, string Which, string Tail, string Returns, string? Error, bool Nullable, bool List = false);

    private static Limit[] Limits =>
    [
        new("Query", null, "every row", ", buffered in a list", "The rows", null, Nullable: false, List: true),
        new("QuerySingle", "Single", "its only row", "", "The row", "The query returned no row, or more than one.", Nullable: false),
        new("QuerySingleOrDefault", "SingleOrDefault", "its only row", ", or returns {0} when there is none", "The row, or {0}",
            "The query returned more than one row.", Nullable: true),
        new("QueryFirst", "First", "its first row", "; later rows are not read", "The first row", "The query returned no row.", Nullable: false),
        new("QueryFirstOrDefault", "FirstOrDefault", "its first row", ", or returns {0} when there is none", "The first row, or {0}", null,
            Nullable: true),
    ];

    private static IEnumerable<Family> RowFamilies => Limits.Select(limit => new Family(
        $"SqlRunner.Surface.{limit.Name}.cs",
        $"{limit.Name}: {limit.Which}, as T, as dynamic or as a run-time Type (ListBody and RowBody in SqlRunner.Query.cs).",
        [DataCommon, Execution, Mapping],
        [Typed(limit), Dynamic(limit), RunTime(limit)]));

    private const string DefaultWord = "<see langword=\"default\"/>";
    private const string NullWord = "<see langword=\"null\"/>";

    private static Call Typed(Limit limit)
    {
        string body = limit.List
            ? "ListBody<T>(command, handlers, null, async, ct)"
            : $"RowBody<T>(command, handlers, null, RowLimit.{limit.RowLimit}, async, ct)";
        string result = limit.List ? "List<T>" : limit.Nullable ? "T?" : "T";
        return new()
        {
            Name = limit.Name,
            TypeParams = "<T>",
            Result = result,
            AsyncResult = $"Task<{result}>",
            Summary = Summary(limit, "maps", "to <typeparamref name=\"T\"/>", DefaultWord),
            ArgsDoc = ArgsObjectDoc,
            Returns = string.Format(null, limit.Returns, DefaultWord) + (limit.List ? ", in the order the database returned them." : "."),
            Tail = limit.List
                ? "<exception cref=\"MappingException\">A column cannot be mapped; the message names the column and the member.</exception>"
                : RowError(limit),
            SyncBody = Buffered(body, async: false) + (limit.Nullable || limit.List ? "" : "!"),
            // NotNull: a row that Single or First guarantees, awaited without an async method of its own (see SqlRunner.Query.cs).
            AsyncBody = limit.Nullable || limit.List
                ? Buffered(body, async: true)
                : $"NotNull(RunAsync(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => {body}, async: true, cancellationToken))",
        };
    }

    private static Call Dynamic(Limit limit)
    {
        string result = limit.List ? "List<dynamic>" : limit.Nullable ? "dynamic?" : "dynamic";
        return new()
        {
            Name = limit.Name,
            Result = result,
            AsyncResult = $"Task<{result}>",
            Summary = Summary(limit, "reads", "as a <see cref=\"DynamicRow\"/>", NullWord,
                $" <c>{limit.Name}&lt;dynamic&gt;</c>, as Dapper's <c>{limit.Name}(sql)</c>."),
            Returns = string.Format(null, limit.Returns, NullWord) + ".",
            Tail = RowError(limit),
            SyncBody = $"{limit.Name}<dynamic>(sql, args, timeout)",
            AsyncBody = $"{limit.Name}Async<dynamic>(sql, args, timeout, cancellationToken)",
            InterpolatedTarget = $"{limit.Name}<dynamic>",
        };
    }

    private static Call RunTime(Limit limit)
    {
        string result = limit.List ? "List<object?>" : "object?";
        string body = limit.List
            ? "ListBody(command, handlers, rows, async, ct)"
            : $"RowBody(command, handlers, rows, RowLimit.{limit.RowLimit}, async, ct)";
        return new()
        {
            Name = limit.Name,
            Result = result,
            AsyncResult = $"Task<{result}>",
            Before =
            [
                new("Type", "type", "The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref=\"object\"/> for " +
                    "<see cref=\"DynamicRow\"/>s."),
            ],
            Summary = Summary(limit, "maps", "to <paramref name=\"type\"/>", NullWord,
                $" <see cref=\"{limit.Name}{{T}}(string, object?, TimeSpan?)\"/> for a type known at run time."),
            Returns = string.Format(null, limit.Returns, NullWord) + (limit.List ? ", in the order the database returned them (boxed for a value type)." : "."),
            Tail = "<exception cref=\"ArgumentException\"><paramref name=\"type\"/> cannot be a row type (an open generic type, a static class, …).</exception>\n" +
                (limit.List
                    ? "<exception cref=\"MappingException\">A column cannot be mapped; the message names the column, the member and the type.</exception>"
                    : RowError(limit)),
            Block = true,
            SyncBody = $"""
                RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
                return Run(new CommandRequest(sql, args, timeout), (command, handlers, async, ct) => {body});
                """,
            AsyncBody = $"""
                RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
                return RunAsync(new CommandRequest(sql, args, timeout), (command, handlers, async, ct) => {body}, async: true, cancellationToken)
                    .AsTask();
                """,
        };
    }

    private static string Summary(Limit limit, string verb, string target, string none, string more = "") =>
        $"<summary>Runs <paramref name=\"sql\"/> and {verb} {limit.Which} {target}{string.Format(null, limit.Tail, none)}.{more}</summary>";

    private static string RowError(Limit limit) =>
        limit.Error is null ? "" : $"<exception cref=\"InvalidOperationException\">{limit.Error}</exception>";
}
