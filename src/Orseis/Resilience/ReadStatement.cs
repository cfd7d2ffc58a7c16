using System.Data;

namespace Orseis.Execution;

/// <summary>
/// Whether a buffered call's SQL only reads, told from its text when its connection broke (never on a call that
/// succeeds): one statement whose first word is <c>SELECT</c>, <c>WITH</c>, <c>SHOW</c> or <c>VALUES</c>, and no word
/// anywhere (outside quotes and comments, read by <see cref="SqlLexer"/>) that writes or calls: <c>INSERT</c>,
/// <c>UPDATE</c>, <c>DELETE</c>, <c>MERGE</c>, <c>INTO</c> (<c>SELECT ... INTO</c> creates a table or writes a file),
/// <c>CALL</c>, <c>EXEC</c>, <c>EXECUTE</c>, <c>NEXTVAL</c>, <c>SETVAL</c>. A procedure call
/// (<see cref="CommandType.StoredProcedure"/>) never reads by this test, nor does a text with a backslash (where its
/// strings end depends on the server's settings) or a MySQL executable comment <c>/*! … */</c>. A function a
/// <c>SELECT</c> calls is not looked into.
/// </summary>
internal static class ReadStatement
{
    private static readonly string[] FirstWords = ["SELECT", "WITH", "SHOW", "VALUES"];

    private static readonly string[] WritingWords =
        ["INSERT", "UPDATE", "DELETE", "MERGE", "INTO", "CALL", "EXEC", "EXECUTE", "NEXTVAL", "SETVAL"];

    /// <summary>
    /// Whether <paramref name="request"/> only reads: the caller's word when it gave one (<see cref="ParameterBag.OnlyReads"/>),
    /// else as far as its text tells.
    /// </summary>
    public static bool OnlyReads(in CommandRequest request) => request.Args switch
    {
        ParameterBag { OnlyReads: { } word } => word,
        ParameterBag { CommandType: not CommandType.Text } => false,
        _ => OnlyReads(request.Sql),
    };

    /// <summary>Whether <paramref name="sql"/> is one statement that only reads, as far as its text tells.</summary>
    public static bool OnlyReads(string sql)
    {
        // A backslash escapes a quote in MySQL's strings and not in PostgreSQL's: where strings end is then not certain.
        // MySQL runs what is inside /*! ... */ as SQL, where the lexer reads a comment.
        if (sql.Contains('\\', StringComparison.Ordinal) || sql.Contains("/*!", StringComparison.Ordinal))
            return false;
        ReadOnlySpan<char> text = sql;
        bool first = true;
        bool ended = false;
        int at = 0;
        while (SqlLexer.Next(text, ref at, SqlDialect.None, out SqlToken token))
        {
            if (ended)
                return false; // a second statement
            if (token.Is(text, ';'))
            {
                ended = true;
            }
            else if (token.Is(text, '(') || token.Is(text, ')'))
            {
                continue;
            }
            else if (first)
            {
                if (token.Kind != SqlTokenKind.Word || !IsAny(text.Slice(token.Start, token.Length), FirstWords))
                    return false;
                first = false;
            }
            else if (token.Kind == SqlTokenKind.Word && IsAny(text.Slice(token.Start, token.Length), WritingWords))
            {
                return false;
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
}
