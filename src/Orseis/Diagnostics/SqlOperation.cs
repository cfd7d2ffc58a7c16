namespace Orseis.Diagnostics;

/// <summary>
/// The <c>db.operation.name</c> of a call's SQL: its first keyword, when the text is one statement and the keyword one
/// of <see cref="Names"/>. Several statements (text after a <c>;</c> outside strings and comments, read by
/// <see cref="SqlLexer"/>) have no single operation, and an unknown first
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
    public static int Find(string sql) => Find(sql, SqlDialect.None);

    /// <summary>As <see cref="Find(string)"/>, reading <paramref name="sql"/> as <paramref name="dialect"/>.</summary>
    public static int Find(string sql, SqlDialect dialect)
    {
        // The usual text starts with its keyword: read it without the lexer; blanks, comments or a quote first go through it.
        int at = 0;
        int start = 0;
        if (sql.Length == 0 || !char.IsAsciiLetter(sql[0]))
        {
            if (!SqlLexer.Next(sql, ref at, dialect, out SqlToken first) || first.Kind != SqlTokenKind.Word)
                return -1;
            start = first.Start;
            at = start;
        }

        while (at < sql.Length && char.IsAsciiLetter(sql[at]))
            at++;
        ReadOnlySpan<char> word = sql.AsSpan(start, at - start);
        int found = -1;
        for (int i = 0; i < Names.Length && found < 0; i++)
        {
            if (word.Equals(Names[i], StringComparison.OrdinalIgnoreCase))
                found = i;
        }

        if (found < 0 || sql.IndexOf(';', at) < 0) // no semicolon at all (a vectorised search): one statement, nothing to read
            return found;
        while (SqlLexer.NextSpecial(sql, ref at, dialect, out SqlToken token))
        {
            if (token.Is(sql, ';'))
                return SqlLexer.SkipBlank(sql, at, dialect) == sql.Length ? found : -1;
        }

        return found;
    }
}
