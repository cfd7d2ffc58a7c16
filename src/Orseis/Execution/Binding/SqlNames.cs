namespace Orseis.Execution;

/// <summary>Finds how the SQL text spells a parameter, so <c>new { Id }</c> binds to <c>@id</c> on providers that match names exactly
/// (SQLite).</summary>
internal static class SqlNames
{
    /// <summary>The spelling of <paramref name="name"/> as a parameter (after @, :, $ or ?) in <paramref name="sql"/>, or null when the SQL
    /// does not use it.</summary>
    public static string? FindSpelling(string sql, string name) => FindSpelling(sql, name, out _);

    /// <summary>As <see cref="FindSpelling(string, string)"/>, also giving the prefix character the SQL wrote before it.</summary>
    public static string? FindSpelling(string sql, string name, out char prefix)
    {
        prefix = '\0';
        int from = 0;
        while (from < sql.Length)
        {
            int at = sql.IndexOf(name, from, StringComparison.OrdinalIgnoreCase);
            if (at < 0)
                return null;
            from = at + 1;
            if (at == 0 || "@:$?".IndexOf(sql[at - 1], StringComparison.Ordinal) < 0)
                continue;
            if (at >= 2 && (IsNamePart(sql[at - 2]) || sql[at - 2] == '@' || (sql[at - 1] == ':' && sql[at - 2] == ':')))
                continue; // part of another word, @@variable, or a ::cast
            int end = at + name.Length;
            if (end < sql.Length && IsNamePart(sql[end]))
                continue;
            // The usual case spells it as given: return the caller's string rather than allocating a copy.
            prefix = sql[at - 1];
            return string.CompareOrdinal(sql, at, name, 0, name.Length) == 0 ? name : sql.Substring(at, name.Length);
        }

        return null;
    }

    private static bool IsNamePart(char c) => char.IsLetterOrDigit(c) || c == '_';
}
