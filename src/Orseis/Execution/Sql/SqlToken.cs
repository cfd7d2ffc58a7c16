namespace Orseis.Execution.Sql;

/// <summary>What a <see cref="SqlToken"/> is.</summary>
internal enum SqlTokenKind : byte
{
    /// <summary>A keyword or a bare name: letters, digits, <c>_</c>, <c>$</c>; or a server variable (<c>@@rowcount</c>).</summary>
    Word,

    /// <summary>A parameter: <c>@name</c>, <c>:name</c>, <c>?name</c> or <c>$name</c> (<c>$1</c> too), its name after the prefix.</summary>
    Parameter,

    /// <summary>Dapper's literal form <c>{=name}</c>: the name is between <c>{=</c> and <c>}</c>.</summary>
    Literal,

    /// <summary>A string literal, quotes included (<c>'…'</c>, <c>E'…'</c>, <c>$tag$…$tag$</c>); may run to the end unterminated.</summary>
    String,

    /// <summary>A quoted name, quotes included (<c>"…"</c>, <c>`…`</c>, <c>[…]</c>); may run to the end unterminated.</summary>
    QuotedName,

    /// <summary>Any other single character (<c>( ) , ; * .</c>, an operator's character, a bare <c>?</c>).</summary>
    Symbol,
}

/// <summary>One token of SQL text: its kind and where it is. Blanks and comments are never tokens.</summary>
internal readonly record struct SqlToken(SqlTokenKind Kind, int Start, int Length)
{
    /// <summary>The index just past the token.</summary>
    public int End => Start + Length;

    /// <summary>
    /// The name of a <see cref="SqlTokenKind.Parameter"/> (after its prefix) or a <see cref="SqlTokenKind.Literal"/> (inside <c>{=…}</c>).
    /// </summary>
    public ReadOnlySpan<char> NameIn(ReadOnlySpan<char> sql) => Kind switch
    {
        SqlTokenKind.Parameter => sql.Slice(Start + 1, Length - 1),
        SqlTokenKind.Literal => sql.Slice(Start + 2, Length - 3),
        _ => default,
    };

    /// <summary>True for a <see cref="SqlTokenKind.Symbol"/> that is <paramref name="c"/>.</summary>
    public bool Is(ReadOnlySpan<char> sql, char c) => Kind == SqlTokenKind.Symbol && sql[Start] == c;
}
