using System.Buffers;

namespace Orseis.Execution.Sql;

/// <summary>
/// The one reader of SQL text: every place that looks into a statement (parameter names, lists, <c>{=literal}</c>s, the
/// operation and table for telemetry, whether a text fixes its column names, whether it is one statement) reads it
/// through these tokens, so none of them sees a <c>@name</c>, a <c>;</c> or a keyword inside a string literal, a quoted
/// name or a comment. Allocation-free: a token is a kind and a position in the caller's span.
/// </summary>
/// <remarks>
/// <para>Text the server would refuse is read as far as it goes, never refused here: an unterminated string, quoted name
/// or comment runs to the end of the text (as the server reads it), so nothing after it is taken as a parameter, and the
/// statement goes to the server as written, whose own error names the fault.</para>
/// <para>Readers that want only some tokens use <see cref="NextSpecial"/>, which jumps (vectorised) from one character that
/// may start a string, a name, a comment, a parameter or a literal to the next, and never reads words one by one.</para>
/// </remarks>
internal static class SqlLexer
{
    /// <summary>Where something other than a word, a blank or a plain symbol may start; and <c>;</c> and <c>*</c>.</summary>
    private static readonly SearchValues<char> Special = SearchValues.Create("'\"`[-/#$@:?{;*");

    /// <summary>
    /// The next token at or after <paramref name="at"/> (blanks and comments skipped); <paramref name="at"/> moves past it.
    /// False at the end of the text.
    /// </summary>
    public static bool Next(ReadOnlySpan<char> sql, ref int at, SqlDialect dialect, out SqlToken token)
    {
        at = SkipBlank(sql, at, dialect);
        if (at >= sql.Length)
        {
            token = default;
            return false;
        }

        token = Read(sql, at, dialect);
        at = token.End;
        return true;
    }

    /// <summary>
    /// The next token at or after <paramref name="at"/> that starts with one of <c>' " ` [ $ @ : ? { ; * - / #</c> and is
    /// not a comment: strings, quoted names, parameters, literals, and those characters as symbols. Words and other
    /// symbols are passed over without being read.
    /// </summary>
    public static bool NextSpecial(ReadOnlySpan<char> sql, ref int at, SqlDialect dialect, out SqlToken token)
    {
        while (at < sql.Length)
        {
            int skip = sql[at..].IndexOfAny(Special);
            if (skip < 0)
                break;
            at += skip;
            int after = CommentEnd(sql, at, dialect);
            if (after != at)
            {
                at = after;
                continue;
            }

            token = Read(sql, at, dialect);
            at = token.End;
            return true;
        }

        at = sql.Length;
        token = default;
        return false;
    }

    /// <summary>The next parameter or literal token at or after <paramref name="at"/>.</summary>
    public static bool NextName(ReadOnlySpan<char> sql, ref int at, SqlDialect dialect, out SqlToken token)
    {
        while (NextSpecial(sql, ref at, dialect, out token))
        {
            if (token.Kind is SqlTokenKind.Parameter or SqlTokenKind.Literal)
                return true;
        }

        return false;
    }

    /// <summary>The index of the first character at or after <paramref name="at"/> that is neither a blank nor in a comment.</summary>
    public static int SkipBlank(ReadOnlySpan<char> sql, int at, SqlDialect dialect)
    {
        while (at < sql.Length)
        {
            if (char.IsWhiteSpace(sql[at]))
            {
                at++;
                continue;
            }

            int after = CommentEnd(sql, at, dialect);
            if (after == at)
                break;
            at = after;
        }

        return at;
    }

    /// <summary>True for a character of a bare name: a letter, a digit or <c>_</c>.</summary>
    public static bool IsNameChar(char c) => char.IsLetterOrDigit(c) || c == '_';

    /// <summary>The end of the comment that starts at <paramref name="at"/>, or <paramref name="at"/> when none does.</summary>
    private static int CommentEnd(ReadOnlySpan<char> sql, int at, SqlDialect dialect)
    {
        char c = sql[at];
        char next = at + 1 < sql.Length ? sql[at + 1] : '\0';
        bool mySql = (dialect & SqlDialect.MySqlComments) != 0;
        if (c == '-' && next == '-' && (!mySql || at + 2 == sql.Length || char.IsWhiteSpace(sql[at + 2]) || char.IsControl(sql[at + 2])))
            return LineEnd(sql, at + 2);
        if (c == '#' && mySql)
            return LineEnd(sql, at + 1);
        if (c == '/' && next == '*')
            return BlockEnd(sql, at + 2, (dialect & SqlDialect.NestedComments) != 0);
        return at;
    }

    private static int LineEnd(ReadOnlySpan<char> sql, int from)
    {
        int newline = sql[from..].IndexOfAny('\n', '\r');
        return newline < 0 ? sql.Length : from + newline + 1;
    }

    private static int BlockEnd(ReadOnlySpan<char> sql, int from, bool nested)
    {
        int depth = 1;
        int at = from;
        while (at < sql.Length)
        {
            int next = sql[at..].IndexOfAny('*', '/');
            if (next < 0)
                break;
            at += next;
            if (sql[at] == '*' && at + 1 < sql.Length && sql[at + 1] == '/')
            {
                at += 2;
                if (--depth == 0)
                    return at;
            }
            else if (nested && sql[at] == '/' && at + 1 < sql.Length && sql[at + 1] == '*')
            {
                at += 2;
                depth++;
            }
            else
            {
                at++;
            }
        }

        return sql.Length;
    }

    /// <summary>The token that starts at <paramref name="at"/>, which is neither a blank nor a comment's start.</summary>
    private static SqlToken Read(ReadOnlySpan<char> sql, int at, SqlDialect dialect)
    {
        char c = sql[at];
        char before = at > 0 ? sql[at - 1] : ' ';
        bool backslash = (dialect & SqlDialect.BackslashEscapes) != 0;
        switch (c)
        {
            case '\'':
                // PostgreSQL's E'…' takes backslash escapes whatever the server's standard_conforming_strings.
                bool escape = before is 'E' or 'e' && (at < 2 || !IsWordChar(sql[at - 2]));
                return Span(SqlTokenKind.String, at, Quoted(sql, at + 1, '\'', backslash || escape));
            case '"':
                return Span(SqlTokenKind.QuotedName, at, Quoted(sql, at + 1, '"', backslash));
            case '`':
                return Span(SqlTokenKind.QuotedName, at, Quoted(sql, at + 1, '`', false));
            case '[' when !IsWordChar(before) && before is not (')' or ']'):
                return Span(SqlTokenKind.QuotedName, at, Quoted(sql, at + 1, ']', false));
            case '$' when !IsWordChar(before):
                return Dollar(sql, at);
            case '@' or ':' or '?' when !IsWordChar(before) && before is not ('@' or ':' or '?' or '$'):
                if (c == '@' && at + 1 < sql.Length && sql[at + 1] == '@')
                    return Span(SqlTokenKind.Word, at, NameEnd(sql, at + 2)); // a server variable, @@rowcount
                int end = NameEnd(sql, at + 1);
                return end > at + 1 ? Span(SqlTokenKind.Parameter, at, end) : new SqlToken(SqlTokenKind.Symbol, at, 1);
            case '{' when !IsWordChar(before) && at + 1 < sql.Length && sql[at + 1] == '=':
                int close = NameEnd(sql, at + 2);
                return close > at + 2 && close < sql.Length && sql[close] == '}'
                    ? Span(SqlTokenKind.Literal, at, close + 1)
                    : new SqlToken(SqlTokenKind.Symbol, at, 1);
            default:
                if (!IsNameChar(c))
                    return new SqlToken(SqlTokenKind.Symbol, at, 1);
                int word = at + 1;
                while (word < sql.Length && IsWordChar(sql[word]))
                    word++;
                return Span(SqlTokenKind.Word, at, word);
        }
    }

    /// <summary>
    /// At a <c>$</c> not inside a word: PostgreSQL's dollar-quoted string (<c>$$…$$</c>, <c>$tag$…$tag$</c>), a parameter
    /// (<c>$name</c> for SQLite, <c>$1</c> for PostgreSQL), or the character.
    /// </summary>
    private static SqlToken Dollar(ReadOnlySpan<char> sql, int at)
    {
        int end = NameEnd(sql, at + 1);
        bool tag = end == at + 1 || !char.IsDigit(sql[at + 1]);
        if (tag && end < sql.Length && sql[end] == '$')
        {
            ReadOnlySpan<char> delimiter = sql[at..(end + 1)];
            int close = sql[(end + 1)..].IndexOf(delimiter);
            return Span(SqlTokenKind.String, at, close < 0 ? sql.Length : end + 1 + close + delimiter.Length);
        }

        return end > at + 1 ? Span(SqlTokenKind.Parameter, at, end) : new SqlToken(SqlTokenKind.Symbol, at, 1);
    }

    /// <summary>
    /// The end of a quoted token whose text starts at <paramref name="from"/> and ends at <paramref name="quote"/>; a
    /// doubled quote is one quote character, and with <paramref name="backslash"/> a backslash escapes the next character.
    /// Unterminated, it runs to the end.
    /// </summary>
    private static int Quoted(ReadOnlySpan<char> sql, int from, char quote, bool backslash)
    {
        int at = from;
        while (at < sql.Length)
        {
            int next = backslash ? sql[at..].IndexOfAny(quote, '\\') : sql[at..].IndexOf(quote);
            if (next < 0)
                break;
            at += next;
            if (sql[at] == '\\')
            {
                at += 2;
                continue;
            }

            if (at + 1 < sql.Length && sql[at + 1] == quote)
            {
                at += 2;
                continue;
            }

            return at + 1;
        }

        return sql.Length;
    }

    private static int NameEnd(ReadOnlySpan<char> sql, int from)
    {
        while (from < sql.Length && IsNameChar(sql[from]))
            from++;
        return from;
    }

    /// <summary>A character of a word: a name's, or <c>$</c> inside one (MySQL and SQL Server allow it).</summary>
    private static bool IsWordChar(char c) => IsNameChar(c) || c == '$';

    private static SqlToken Span(SqlTokenKind kind, int start, int end) => new(kind, start, end - start);
}
