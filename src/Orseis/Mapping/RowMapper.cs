using System.Collections.Concurrent;
using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// The compiled row mappers of one result type, one per column layout, built once and shared by every thread.
/// The few layouts used last are checked first, against the field types read once per call, so a repeated query finds
/// its mapper without building a key even when its rows alternate between layouts (SQLite reports a column's type from
/// each row's value, so a NULL or a differently stored value gives another layout); when a cached layout came from the
/// same SQL text and that text fixes the column names (a plain <c>select</c> list, no <c>*</c>), only the column count
/// and types are checked, so no column name is read again.
/// </summary>
internal static class RowMapper<T>
{
    /// <summary>How many recently used layouts are checked before the cache proper.</summary>
    private const int RecentLayouts = 8;

    // object (what dynamic compiles to) reads a DynamicRow of every column, as in Dapper; elsewhere it is a scalar.
    private static readonly bool IsScalarType = ScalarTypes.IsScalar(typeof(T)) && !DynamicRows.IsRowType(typeof(T));
    private static readonly ConcurrentDictionary<Layout, Func<DbDataReader, T>> Cache = new();
    private static volatile Entry[] _recent = [];

    /// <summary>The mapper for the reader's current result; call it after the first successful Read.</summary>
    /// <param name="reader">The reader, positioned on a row.</param>
    /// <param name="sql">The command text that produced the result.</param>
    /// <param name="handlers">The database's type handlers; null when it has none.</param>
    public static Func<DbDataReader, T> Get(DbDataReader reader, string sql, TypeHandlerSet? handlers = null)
    {
        // A type with a handler is read from one column, like the built-in scalars.
        bool scalar = IsScalarType || (handlers is not null && handlers.For(typeof(T)) is not null);
        Entry[] recent = _recent;
        if (recent.Length != 0)
        {
            int count = scalar ? 1 : reader.FieldCount;
            Type readerType = reader.GetType();
            Type[] types = Layout.ReadTypes(reader, count);
            foreach (Entry entry in recent)
            {
                if (ReferenceEquals(entry.Layout.Handlers, handlers) && entry.Layout.MatchesTypes(readerType, types, count)
                    && (scalar || entry.FixesNamesFor(sql) || entry.Layout.MatchesNames(reader)))
                {
                    return entry.Map;
                }
            }
        }

        Layout layout = Layout.Capture(reader, !scalar, handlers);
        Func<DbDataReader, T> map =
            Cache.GetOrAdd(layout, static l => RowMappers.For<T>(l, IsScalarType || l.Handlers?.For(typeof(T)) is not null));
        var added = new Entry(layout, map, NamesFixedBy(sql) ? sql : null);
        var next = new Entry[Math.Min(recent.Length + 1, RecentLayouts)];
        next[0] = added;
        Array.Copy(recent, 0, next, 1, next.Length - 1);
        _recent = next;
        return map;
    }

    /// <summary>
    /// True when the SQL text alone decides the result's column names: a single plain select list without <c>*</c>.
    /// Procedures, <c>*</c> (which follows the schema) and anything else are checked name by name every time. The text is
    /// read by <see cref="SqlLexer"/>: a <c>*</c> or <c>;</c> in a string literal, a quoted name or a comment is
    /// not one, and a comment may come before the <c>select</c>.
    /// </summary>
    internal static bool NamesFixedBy(string sql)
    {
        int at = 0;
        if (!SqlLexer.Next(sql, ref at, SqlDialect.None, out SqlToken first) ||
            first.Kind != SqlTokenKind.Word ||
            !sql.AsSpan(first.Start, first.Length).Equals("select", StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        while (SqlLexer.NextSpecial(sql, ref at, SqlDialect.None, out SqlToken token))
        {
            if (token.Is(sql, '*') || token.Is(sql, ';'))
                return false;
        }

        return true;
    }

    internal static int CachedLayouts => Cache.Count;

    private sealed record Entry(Layout Layout, Func<DbDataReader, T> Map, string? FixedSql)
    {
        /// <summary>True when <paramref name="sql"/> is the text this layout came from and that text fixes the column names.</summary>
        public bool FixesNamesFor(string sql) =>
            FixedSql is not null && (ReferenceEquals(FixedSql, sql) || string.Equals(FixedSql, sql, StringComparison.Ordinal));
    }
}
