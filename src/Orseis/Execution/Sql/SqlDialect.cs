namespace Orseis.Execution.Sql;

/// <summary>
/// How one server's SQL differs from what <see cref="SqlLexer"/> reads everywhere. Everywhere: <c>'text'</c> with
/// <c>''</c> escapes, <c>"name"</c>, <c>`name`</c>, <c>[name]</c> (where <c>[</c> starts a token: after a word, <c>)</c> or
/// <c>]</c> it is a PostgreSQL subscript), <c>-- line</c> and <c>/* block */</c> comments, PostgreSQL's <c>$tag$ … $tag$</c>
/// and <c>E'…'</c> strings (no other server has a token there). Each provider's dialect is
/// <see cref="ProviderTraits.Dialect"/>; a reader that is not told the provider reads <see cref="None"/>.
/// </summary>
[Flags]
internal enum SqlDialect
{
    /// <summary>Only what every server agrees on.</summary>
    None = 0,

    /// <summary>A backslash escapes the next character in a string (MySQL and MariaDB, unless NO_BACKSLASH_ESCAPES).</summary>
    BackslashEscapes = 1,

    /// <summary><c>#</c> starts a line comment, and <c>--</c> does only when a blank or the end follows it (MySQL and MariaDB).</summary>
    MySqlComments = 2,

    /// <summary>Block comments nest (PostgreSQL, SQL Server).</summary>
    NestedComments = 4,
}
