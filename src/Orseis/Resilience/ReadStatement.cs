using System.Data;

namespace Orseis.Execution;

/// <summary>
/// Whether a buffered call's SQL only reads, told from its text when its connection broke (never on a call that
/// succeeds): one statement whose first word is <c>SELECT</c>, <c>WITH</c>, <c>SHOW</c> or <c>VALUES</c>, and no word
/// anywhere (outside quotes and comments) that writes or calls: <c>INSERT</c>, <c>UPDATE</c>, <c>DELETE</c>,
/// <c>MERGE</c>, <c>INTO</c> (<c>SELECT ... INTO</c> creates a table or writes a file), <c>CALL</c>, <c>EXEC</c>,
/// <c>EXECUTE</c>, <c>NEXTVAL</c>, <c>SETVAL</c>. A procedure call (<see cref="CommandType.StoredProcedure"/>) never
/// reads by this test, nor does a text with a backslash (where its strings end depends on the server's settings). A
/// function a <c>SELECT</c> calls is not looked into.
/// </summary>
internal static class ReadStatement
{
    private static readonly string[] FirstWords = ["SELECT", "WITH", "SHOW", "VALUES"];

    private static readonly string[] WritingWords =
        ["INSERT", "UPDATE", "DELETE", "MERGE", "INTO", "CALL", "EXEC", "EXECUTE", "NEXTVAL", "SETVAL"];

    /// <summary>Whether <paramref name="request"/> only reads, as far as its text tells.</summary>
    public static bool OnlyReads(in CommandRequest request) =>
        !(request.Args is ParameterBag { CommandType: not CommandType.Text }) && OnlyReads(request.Sql);

    /// <summary>Whether <paramref name="sql"/> is one statement that only reads, as far as its text tells.</summary>
    public static bool OnlyReads(string sql)
    {
        // A backslash escapes a quote in MySQL's strings and not in PostgreSQL's: where strings end is then not certain.
        if (sql.Contains('\\', StringComparison.Ordinal))
            return false;
        bool first = true;
        bool ended = false;
        int i = 0;
        while (i < sql.Length)
        {
            char c = sql[i];
            if (char.IsWhiteSpace(c) || c == '(' || c == ')')
            {
                i++;
            }
            else if (c == '-' && At(sql, i, "--") || c == '#')
            {
                i = End(sql, i, "\n");
            }
            else if (c == '/' && At(sql, i, "/*"))
            {
                i = End(sql, i + 2, "*/");
            }
            else if (c is '\'' or '"' or '`' or '[')
            {
                if (first || ended)
                    return false;
                i = End(sql, i + 1, c == '[' ? "]" : c.ToString());
            }
            else if (c == ';')
            {
                ended = true;
                i++;
            }
            else if (char.IsLetter(c) || c == '_')
            {
                int start = i;
                while (i < sql.Length && (char.IsLetterOrDigit(sql[i]) || sql[i] is '_' or '$'))
                    i++;
                ReadOnlySpan<char> word = sql.AsSpan(start, i - start);
                if (ended)
                    return false; // a second statement
                if (first)
                {
                    if (!IsAny(word, FirstWords))
                        return false;
                    first = false;
                }
                else if (IsAny(word, WritingWords))
                {
                    return false;
                }
            }
            else
            {
                if (first || ended)
                    return false;
                i++;
            }
        }

        return !first;
    }

    private static bool IsAny(ReadOnlySpan<char> word, string[] words)
    {
        foreach (string w in words)
        {
            if (word.Equals(w, StringComparison.OrdinalIgnoreCase))
                return true;
        }

        return false;
    }

    private static bool At(string sql, int i, string text) => string.CompareOrdinal(sql, i, text, 0, text.Length) == 0;

    /// <summary>Just past the first <paramref name="end"/> from <paramref name="from"/>; the text's end when there is none.</summary>
    private static int End(string sql, int from, string end)
    {
        int at = sql.IndexOf(end, from, StringComparison.Ordinal);
        return at < 0 ? sql.Length : at + end.Length;
    }
}
