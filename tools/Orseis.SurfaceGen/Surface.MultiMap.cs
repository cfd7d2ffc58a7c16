namespace Orseis.SurfaceGen;

// Multi-mapping: 2 to 7 generic parts (as Dapper), and any number of parts by a Type array.
public static partial class Surface
{
    private static string[] Ordinals => ["first", "second", "third", "fourth", "fifth", "sixth", "seventh"];

    private const string SplitOnDoc =
        "The column where each type after the first starts: one name for every split, or one per type after the first, " +
        "comma-separated. Searched from the right, case-insensitively. Default <c>\"Id\"</c>.";

    private const string SplitError =
        "<exception cref=\"MappingException\">A split column is not in the result (the message lists the columns), or a part cannot be mapped.</exception>";

    private static Call MultiMap(int parts)
    {
        string types = string.Join(", ", Enumerable.Range(1, parts).Select(i => $"T{i}"));
        string compose = $"MultiTypes<{types}>.Types, splitOn, MultiRow.Compose(map)";
        return new()
        {
            Name = "Query",
            TypeParams = $"<{types}, TResult>",
            Result = "List<TResult>",
            AsyncResult = "Task<List<TResult>>",
            TypeParamDocs =
            [
                .. Enumerable.Range(1, parts).Select(i => $"<typeparam name=\"T{i}\">The type of the row's {Ordinals[i - 1]} part.</typeparam>"),
                "<typeparam name=\"TResult\">What <paramref name=\"map\"/> makes of the parts.</typeparam>",
            ],
            Middle =
            [
                new($"Func<{types}, TResult>", "map",
                    "Combines the parts of one row. A part after the first whose split column is NULL arrives as <see langword=\"default\"/>."),
            ],
            After = [new("string", "splitOn", SplitOnDoc, "\"Id\"")],
            Summary = $"""
                <summary>
                Runs <paramref name="sql"/> and maps each row to {parts} types, split at the columns <paramref name="splitOn"/> names,
                combined by <paramref name="map"/>; buffered in a list. Typically a join: <c>select u.id, u.name, o.id, o.total from users u join
                orders o …</c>.
                </summary>
                """,
            Returns = "What <paramref name=\"map\"/> returned for each row, in order.",
            Tail = SplitError,
            SyncBody = $"MultiMap(sql, args, timeout, {compose})",
            AsyncBody = $"MultiMapAsync(sql, args, timeout, {compose}, cancellationToken)",
        };
    }

    private static Call MultiMapTypes => new()
    {
        Name = "Query",
        TypeParams = "<TResult>",
        Result = "List<TResult>",
        AsyncResult = "Task<List<TResult>>",
        TypeParamDocs = ["<typeparam name=\"TResult\">What <paramref name=\"map\"/> makes of the parts.</typeparam>"],
        Middle =
        [
            new("Type[]", "types", "The type of each part, in column order (<see cref=\"object\"/> for a <see cref=\"DynamicRow\"/>)."),
            new("Func<object?[], TResult>", "map",
                "Combines the parts of one row, given in the order of <paramref name=\"types\"/> (value types boxed). A part after the first " +
                "whose split column is NULL arrives as <see langword=\"null\"/>."),
        ],
        After = [new("string", "splitOn", SplitOnDoc, "\"Id\"")],
        Summary = """
            <summary>
            Runs <paramref name="sql"/> and maps each row to the <paramref name="types"/>, one part per type, split at the columns <paramref
            name="splitOn"/> names, combined by <paramref name="map"/>; buffered in a list. The generic forms (<see
            cref="Query{T1, T2, TResult}(string, Func{T1, T2, TResult}, object?, string, TimeSpan?)"/> and on) for any number of types, or types
            known at run time.
            </summary>
            """,
        Returns = "What <paramref name=\"map\"/> returned for each row, in order.",
        Tail = """
            <exception cref="ArgumentException"><paramref name="types"/> is empty or holds a type no row can be (the message names it), or
            <paramref name="splitOn"/> names the wrong number of columns.</exception>
            """ + "\n" + SplitError,
        Block = true,
        SyncBody = """
            (Type[] checkedTypes, RuntimeRowType[] rows) = MultiRowTypes.Check(types);
            return MultiMap(sql, args, timeout, checkedTypes, splitOn, MultiRowTypes.Compose(rows, map));
            """,
        AsyncBody = """
            (Type[] checkedTypes, RuntimeRowType[] rows) = MultiRowTypes.Check(types);
            return MultiMapAsync(sql, args, timeout, checkedTypes, splitOn, MultiRowTypes.Compose(rows, map), cancellationToken);
            """,
    };
}
