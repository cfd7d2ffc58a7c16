namespace Orseis.Diagnostics;

/// <summary>
/// The <c>db.operation.name</c> of a call's SQL: its first keyword, when the text is one statement and the keyword one
/// of <see cref="Names"/>. Several statements (text after a <c>;</c>) have no single operation, and an unknown first
/// word (a CTE's <c>WITH</c>, a dialect's own verb) names none, so span names stay low-cardinality. Reported upper case,
/// one string per keyword: nothing is allocated.
/// </summary>
internal static class SqlOperation
{
    public static readonly string[] Names =
    [
        "SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "CALL", "EXEC", "EXECUTE",
        "CREATE", "ALTER", "DROP", "TRUNCATE", "SET", "SHOW", "PRAGMA", "VALUES",
    ];

    /// <summary>The index in <see cref="Names"/> of <paramref name="sql"/>'s operation, or -1 when it has no single known one.</summary>
    public static int Find(string sql)
    {
        int start = SkipBlank(sql, 0);
        int end = start;
        while (end < sql.Length && char.IsAsciiLetter(sql[end]))
            end++;
        ReadOnlySpan<char> word = sql.AsSpan(start, end - start);
        int found = -1;
        for (int i = 0; i < Names.Length && found < 0; i++)
        {
            if (word.Equals(Names[i], StringComparison.OrdinalIgnoreCase))
                found = i;
        }

        if (found < 0)
            return -1;
        int semicolon = sql.IndexOf(';', end);
        return semicolon < 0 || SkipBlank(sql, semicolon + 1) == sql.Length ? found : -1;
    }

    /// <summary>The index of the first character at or after <paramref name="at"/> that is not white space or inside a comment.</summary>
    private static int SkipBlank(string sql, int at)
    {
        while (at < sql.Length)
        {
            if (char.IsWhiteSpace(sql[at]))
            {
                at++;
            }
            else if (sql[at] == '-' && at + 1 < sql.Length && sql[at + 1] == '-')
            {
                int newline = sql.IndexOf('\n', at);
                at = newline < 0 ? sql.Length : newline + 1;
            }
            else if (sql[at] == '/' && at + 1 < sql.Length && sql[at + 1] == '*')
            {
                int close = sql.IndexOf("*/", at + 2, StringComparison.Ordinal);
                at = close < 0 ? sql.Length : close + 2;
            }
            else
            {
                break;
            }
        }

        return at;
    }
}
