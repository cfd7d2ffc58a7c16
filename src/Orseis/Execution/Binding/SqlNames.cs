namespace Orseis.Execution.Binding;

/// <summary>Finds how the SQL text spells a parameter, so <c>new { Id }</c> binds to <c>@id</c> on providers that match names exactly
/// (SQLite). The text is read by <see cref="SqlLexer"/>: a name in a string literal, a quoted name or a comment is not a
/// parameter.</summary>
internal static class SqlNames
{
    /// <summary>The spelling of <paramref name="name"/> as a parameter (after @, :, $ or ?) in <paramref name="sql"/>, or null when the SQL
    /// does not use it.</summary>
    public static string? FindSpelling(string sql, string name) => FindSpelling(sql, name, out _);

    /// <summary>As <see cref="FindSpelling(string, string)"/>, also giving the prefix character the SQL wrote before it.</summary>
    /// <remarks>
    /// Not told the provider, it reads the text both with and without MySQL's backslash escapes when it has a backslash,
    /// and finds a name either reading finds: a parameter bound that the SQL does not use is harmless, one missed is an
    /// error from the server.
    /// </remarks>
    public static string? FindSpelling(string sql, string name, out char prefix) =>
        FindSpelling(sql, name, SqlDialect.None, out prefix) ??
        (sql.Contains('\\', StringComparison.Ordinal) ? FindSpelling(sql, name, SqlDialect.BackslashEscapes, out prefix) : null);

    /// <summary>
    /// As <see cref="FindSpelling(string, string, out char)"/>, reading <paramref name="sql"/> as <paramref name="dialect"/>.
    /// </summary>
    public static string? FindSpelling(string sql, string name, SqlDialect dialect, out char prefix)
    {
        prefix = '\0';
        // Most texts never mention the name: a vectorised search answers those without reading a token.
        int first = sql.IndexOf(name, StringComparison.OrdinalIgnoreCase);
        if (first < 0)
            return null;
        int at = 0;
        while (SqlLexer.NextName(sql, ref at, dialect, out SqlToken token))
        {
            if (token.Kind != SqlTokenKind.Parameter || token.End <= first ||
                !token.NameIn(sql).Equals(name, StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            // The usual case spells it as given: return the caller's string rather than allocating a copy.
            prefix = sql[token.Start];
            return string.CompareOrdinal(sql, token.Start + 1, name, 0, name.Length) == 0
                ? name
                : sql.Substring(token.Start + 1, name.Length);
        }

        return null;
    }
}
