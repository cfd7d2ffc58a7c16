namespace Orseis.Diagnostics;

/// <summary>
/// The one table a single-table statement names, for <c>db.query.summary</c> (<c>SELECT orders</c>): the table after the
/// only <c>FROM</c>, <c>INTO</c> or <c>UPDATE</c> of a <c>SELECT</c>, <c>INSERT</c>, <c>REPLACE</c>, <c>UPDATE</c> or
/// <c>DELETE</c>, as written (schema prefix and quotes included). A statement that may touch several tables (a join, a
/// comma, a subquery, a second <c>FROM</c>/<c>JOIN</c>/<c>USING</c>, a <c>UNION</c> of two) names none, and neither
/// does anything this small reader is unsure of: it never guesses. The text is read by <see cref="SqlLexer"/>: string
/// literals and comments are skipped, so their words are never read as keywords; nothing is allocated.
/// </summary>
internal static class SqlCollection
{
    private const int MaxLength = 128;

    private static readonly string[] Introducers = ["FROM", "JOIN", "INTO", "USING", "UPDATE"];

    private static readonly string[] ClauseEnds =
    [
        "WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "FOR", "OFFSET", "FETCH", "WINDOW", "RETURNING", "SET", "LOCK",
        "UNION", "EXCEPT", "INTERSECT",
    ];

    /// <summary>
    /// The table of <paramref name="sql"/>, whose operation is <paramref name="operation"/> (a <see cref="SqlOperation.Names"/>
    /// entry); empty when it names no single one.
    /// </summary>
    public static ReadOnlySpan<char> Find(string sql, string operation)
    {
        bool update = operation == "UPDATE";
        if (!update && operation is not ("SELECT" or "INSERT" or "REPLACE" or "DELETE"))
            return default;
        int at = 0, tables = 0, tableStart = 0, tableLength = 0;
        bool first = true;
        while (Next(sql, ref at, out int start, out int length, out bool word))
        {
            ReadOnlySpan<char> token = sql.AsSpan(start, length);
            bool introduces = word && (first
                ? update
                : IsAny(token, Introducers) && !token.Equals("UPDATE", StringComparison.OrdinalIgnoreCase));
            first = false;
            if (!introduces)
                continue;
            if (++tables > 1 || !Name(sql, ref at, out tableStart, out tableLength))
                return default;
            bool from = !token.Equals("INTO", StringComparison.OrdinalIgnoreCase);
            if (from && !AloneInClause(sql, at))
                return default;
        }

        return tableLength is > 0 and <= MaxLength ? sql.AsSpan(tableStart, tableLength) : default;
    }

    /// <summary>The next token from <paramref name="at"/> (<see cref="SqlLexer"/>): whether it is a word, and where it is.</summary>
    private static bool Next(string sql, ref int at, out int start, out int length, out bool word)
    {
        bool found = SqlLexer.Next(sql, ref at, SqlDialect.None, out SqlToken token);
        (start, length, word) = (token.Start, token.Length, token.Kind == SqlTokenKind.Word);
        return found;
    }

    /// <summary>Reads a table name at <paramref name="at"/>: dotted parts, each a word or a quoted name.</summary>
    private static bool Name(string sql, ref int at, out int begin, out int length)
    {
        begin = SqlLexer.SkipBlank(sql, at, SqlDialect.None);
        int end = begin;
        while (true)
        {
            at = end;
            if (!SqlLexer.Next(sql, ref at, SqlDialect.None, out SqlToken token) || token.Start != end)
                break;
            bool word = token.Kind == SqlTokenKind.Word && (char.IsAsciiLetter(sql[token.Start]) || sql[token.Start] == '_');
            if (!word && token.Kind != SqlTokenKind.QuotedName)
                break;
            end = at;
            if (end >= sql.Length || sql[end] != '.')
                break;
            end++;
        }

        length = end - begin;
        ReadOnlySpan<char> name = sql.AsSpan(begin, length);
        at = end;
        bool keyword = name.Equals("ONLY", StringComparison.OrdinalIgnoreCase)
            || name.Equals("LATERAL", StringComparison.OrdinalIgnoreCase);
        return name.Length > 0 && name[^1] != '.' && !keyword;
    }

    /// <summary>Whether the table just read is the only thing in its clause: at most an alias (with or without AS) follows it.</summary>
    private static bool AloneInClause(string sql, int at)
    {
        int words = 0;
        while (Next(sql, ref at, out int start, out int length, out bool word))
        {
            ReadOnlySpan<char> token = sql.AsSpan(start, length);
            if (word && IsAny(token, ClauseEnds) || token is ";" or ")")
                return true;
            if (!word || token.Equals("JOIN", StringComparison.OrdinalIgnoreCase) || ++words > 2)
                return false;
        }

        return true;
    }

    private static bool IsAny(ReadOnlySpan<char> token, string[] words)
    {
        foreach (string candidate in words)
        {
            if (token.Equals(candidate, StringComparison.OrdinalIgnoreCase))
                return true;
        }

        return false;
    }
}
