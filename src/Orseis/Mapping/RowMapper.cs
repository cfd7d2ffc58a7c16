using System.Collections.Concurrent;
using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// The compiled row mappers of one result type, one per column layout, built once and shared by every thread.
/// The last layout used is checked first, so a repeated query finds its mapper without building a key; when the
/// last query was the same SQL text and that text fixes the column names (a plain <c>select</c> list, no <c>*</c>),
/// only the column count and types are checked, so no column name is read again.
/// </summary>
internal static class RowMapper<T>
{
    private static readonly bool s_scalar = ScalarTypes.IsScalar(typeof(T));
    private static readonly ConcurrentDictionary<Layout, Func<DbDataReader, T>> s_cache = new();
    private static volatile Entry? s_last;

    /// <summary>The mapper for the reader's current result; call it after the first successful Read.</summary>
    /// <param name="reader">The reader, positioned on a row.</param>
    /// <param name="sql">The command text that produced the result.</param>
    public static Func<DbDataReader, T> Get(DbDataReader reader, string sql)
    {
        Entry? last = s_last;
        if (last is not null)
        {
            bool sameFixedSql = last.FixedSql is not null && (ReferenceEquals(last.FixedSql, sql) || string.Equals(last.FixedSql, sql, StringComparison.Ordinal));
            if (last.Layout.Matches(reader, checkNames: !s_scalar && !sameFixedSql))
                return last.Map;
        }

        Layout layout = Layout.Capture(reader, !s_scalar);
        Func<DbDataReader, T> map = s_cache.GetOrAdd(layout, static l => MapperCompiler.Compile<T>(l, s_scalar));
        s_last = new Entry(layout, map, NamesFixedBy(sql) ? sql : null);
        return map;
    }

    /// <summary>
    /// True when the SQL text alone decides the result's column names: a single plain select list without <c>*</c>.
    /// Procedures, <c>*</c> (which follows the schema) and anything else are checked name by name every time.
    /// </summary>
    internal static bool NamesFixedBy(string sql) =>
        !sql.Contains('*', StringComparison.Ordinal) && sql.AsSpan().TrimStart().StartsWith("select", StringComparison.OrdinalIgnoreCase)
        && !sql.Contains(';', StringComparison.Ordinal);

    internal static int CachedLayouts => s_cache.Count;

    private sealed record Entry(Layout Layout, Func<DbDataReader, T> Map, string? FixedSql);
}
