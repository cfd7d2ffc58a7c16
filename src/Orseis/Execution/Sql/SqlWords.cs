namespace Orseis.Execution.Sql;

/// <summary>
/// Questions about a statement's keywords, read through <see cref="SqlLexer"/>: a keyword in a string literal, a quoted
/// name or a comment is not one. Used by the repeated-statement detector (whether a statement pages, whether it writes).
/// </summary>
internal static class SqlWords
{
    private static readonly string[] WriteVerbs = ["insert", "update", "delete", "replace", "merge", "upsert"];

    /// <summary>Whether the first keyword of <paramref name="sql"/> (after blanks and comments) writes rows.</summary>
    public static bool Writes(string sql)
    {
        int at = 0;
        if (!SqlLexer.Next(sql, ref at, SqlDialect.None, out SqlToken first) || first.Kind != SqlTokenKind.Word)
            return false;
        ReadOnlySpan<char> word = sql.AsSpan(first.Start, first.Length);
        foreach (string verb in WriteVerbs)
        {
            if (word.Equals(verb, StringComparison.OrdinalIgnoreCase))
                return true;
        }

        return false;
    }

    /// <summary>
    /// Whether <paramref name="sql"/> pages: an <c>OFFSET</c>, a <c>FETCH FIRST</c>/<c>FETCH NEXT</c>, or a <c>LIMIT</c> or
    /// <c>TOP</c> (its count in parentheses or not) of anything but the number 1.
    /// </summary>
    public static bool Pages(string sql)
    {
        int at = 0;
        while (SqlLexer.Next(sql, ref at, SqlDialect.None, out SqlToken token))
        {
            if (token.Kind != SqlTokenKind.Word)
                continue;
            ReadOnlySpan<char> word = sql.AsSpan(token.Start, token.Length);
            if (word.Equals("offset", StringComparison.OrdinalIgnoreCase))
                return true;
            if (word.Equals("fetch", StringComparison.OrdinalIgnoreCase) && NextWordIs(sql, at, "first", "next"))
                return true;
            if (word.Equals("limit", StringComparison.OrdinalIgnoreCase) && CountNotOne(sql, at, parenthesis: false))
                return true;
            if (word.Equals("top", StringComparison.OrdinalIgnoreCase) && CountNotOne(sql, at, parenthesis: true))
                return true;
        }

        return false;
    }

    private static bool NextWordIs(string sql, int at, string one, string other)
    {
        if (!SqlLexer.Next(sql, ref at, SqlDialect.None, out SqlToken next) || next.Kind != SqlTokenKind.Word)
            return false;
        ReadOnlySpan<char> word = sql.AsSpan(next.Start, next.Length);
        return word.Equals(one, StringComparison.OrdinalIgnoreCase) || word.Equals(other, StringComparison.OrdinalIgnoreCase);
    }

    /// <summary>Whether the token after a LIMIT or TOP is a count other than 1: a number, a name or a parameter.</summary>
    private static bool CountNotOne(string sql, int at, bool parenthesis)
    {
        if (!SqlLexer.Next(sql, ref at, SqlDialect.None, out SqlToken count))
            return false;
        if (parenthesis && count.Is(sql, '(') && !SqlLexer.Next(sql, ref at, SqlDialect.None, out count))
            return false;
        return count.Kind switch
        {
            SqlTokenKind.Word => !sql.AsSpan(count.Start, count.Length).SequenceEqual("1"),
            SqlTokenKind.Parameter => true,
            SqlTokenKind.Symbol => count.Is(sql, '?'),
            _ => false,
        };
    }
}
