using System.Collections.Concurrent;
using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// The compiled row mappers of one result type, one per column layout, built once and shared by every thread.
/// The last layout used is checked first, so a repeated query finds its mapper without building a key.
/// </summary>
internal static class RowMapper<T>
{
    private static readonly bool s_scalar = ScalarTypes.IsScalar(typeof(T));
    private static readonly ConcurrentDictionary<Layout, Func<DbDataReader, T>> s_cache = new();
    private static volatile Entry? s_last;

    /// <summary>The mapper for the reader's current result; call it after the first successful Read.</summary>
    public static Func<DbDataReader, T> Get(DbDataReader reader)
    {
        Entry? last = s_last;
        if (last is not null && last.Layout.Matches(reader, !s_scalar))
            return last.Map;

        Layout layout = Layout.Capture(reader, !s_scalar);
        Func<DbDataReader, T> map = s_cache.GetOrAdd(layout, static l => MapperCompiler.Compile<T>(l, s_scalar));
        s_last = new Entry(layout, map);
        return map;
    }

    internal static int CachedLayouts => s_cache.Count;

    private sealed record Entry(Layout Layout, Func<DbDataReader, T> Map);
}
