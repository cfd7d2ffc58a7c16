using System.Collections.Concurrent;
using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// The per-type mappers of a multi-mapped row (<c>Query&lt;T1, T2, TResult&gt;</c>): the row's columns are split where
/// <c>splitOn</c> names them, and each part is mapped to its type by a mapper compiled once per (types, column layout,
/// splitOn) and cached, like single-type mapping.
/// </summary>
/// <remarks>
/// Split columns are searched from the right, as Dapper does for typed multi-mapping (<see cref="Splits"/> for <c>"*"</c> and longer
/// lists): the last type starts at the rightmost column named by the last name in <c>splitOn</c>, the type before it at the nearest such
/// column to the left of that, and so on; the first type gets every column before the first split. One name is used for every split
/// (<c>"Id"</c>, the default, splits <c>u.id, u.name, p.id, p.title</c> before <c>p.id</c>); several names, comma-separated, give one split
/// per type after the first, left to right. Names match case-insensitively. For every type after the first, a NULL in its split column maps
/// to <see langword="default"/> (null for a class): an outer join that found nothing.
/// </remarks>
internal static class MultiMapper
{
    private static readonly ConcurrentDictionary<Key, Delegate[]> Cache = new();

    /// <summary>The mappers of each of <paramref name="types"/> for the reader's current result; call after the first Read.</summary>
    /// <exception cref="ArgumentException"><paramref name="splitOn"/> is empty or names the wrong number of columns.</exception>
    /// <exception cref="MappingException">A split column is not in the result.</exception>
    public static Delegate[] Get(DbDataReader reader, Type[] types, string splitOn, TypeHandlerSet? handlers)
    {
        Layout layout = Layout.Capture(reader, withNames: true, handlers);
        return Cache.GetOrAdd(new Key(types, layout, splitOn), static key => Compile(key.Types, key.Layout, key.SplitOn));
    }

    internal static int CachedLayouts => Cache.Count;

    private static Delegate[] Compile(Type[] types, Layout layout, string splitOn)
    {
        int[] starts = Splits(types, layout.Names, splitOn);
        var mappers = new Delegate[types.Length];
        for (int i = 0; i < types.Length; i++)
        {
            int end = i + 1 < types.Length ? starts[i + 1] : layout.Names.Length;
            Type type = types[i];
            bool scalar = ScalarTypes.IsScalar(type) || layout.Handlers?.For(type) is not null;
            Layout slice = layout.Slice(starts[i], end - starts[i]);
            mappers[i] = RowMappers.Slice(type, slice, starts[i], scalar, nullWhenFirstIsNull: i > 0);
        }

        return mappers;
    }

    /// <summary>The first column of each type's part of the row.</summary>
    /// <remarks>
    /// As Dapper: <c>"*"</c> gives each type after the first one column (the first type gets the rest), alone or as one of
    /// several names; more names than splits use the last ones (one per type after the first, counted from the right).
    /// Unlike Dapper, a list with more than one name but fewer than the splits is refused rather than reusing its first name.
    /// </remarks>
    internal static int[] Splits(Type[] types, string[] columns, string splitOn)
    {
        string[] names = (splitOn ?? "").Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        if (names.Length == 0)
        {
            throw new ArgumentException(
                "splitOn names no column; give the column where each type after the first starts (default \"Id\").", nameof(splitOn));
        }

        if (names.Length != 1 && names.Length < types.Length - 1)
        {
            throw new ArgumentException(
                $"splitOn names {names.Length} columns ({string.Join(", ", names)}) for {types.Length} types; " +
                $"give one name, used at every split, or {types.Length - 1}, one per type after the first.", nameof(splitOn));
        }

        var starts = new int[types.Length];
        int end = columns.Length;
        for (int k = types.Length - 1; k > 0; k--)
        {
            string name = names.Length == 1 ? names[0] : names[names.Length - types.Length + k];
            int found = name == "*" ? (end - 1 >= k ? end - 1 : -1) : FindFromRight(columns, name, k, end);
            if (found < 0)
                throw SplitNotFound(types, columns, name, k, end);
            starts[k] = found;
            end = found;
        }

        return starts;
    }

    /// <summary>The rightmost column named <paramref name="name"/> in [<paramref name="first"/>, <paramref name="end"/>), or -1.</summary>
    private static int FindFromRight(string[] columns, string name, int first, int end)
    {
        for (int i = end - 1; i >= first; i--)
        {
            if (string.Equals(columns[i], name, StringComparison.OrdinalIgnoreCase))
                return i;
        }

        return -1;
    }

    private static MappingException SplitNotFound(Type[] types, string[] columns, string name, int k, int end) => name == "*"
        ? new MappingException(
            $"splitOn '*' gives each type after the first one column, but the result has {columns.Length} column(s) " +
            $"({string.Join(", ", columns)}) for {types.Length} types: {types[k].Name} has no column left. Select a column per type.",
            column: null, member: types[k].Name)
        : new MappingException(
            $"splitOn column '{name}' where {types[k].Name} starts was not found: " +
            $"searching from the right, in columns {k + 1} to {end} of " +
            $"({string.Join(", ", columns)}), leaving a column for each type before it. Name that column in splitOn " +
            "(comma-separated, one per type after the first) or alias it in SQL.",
            column: name, member: types[k].Name);

    private sealed class Key(Type[] types, Layout layout, string splitOn) : IEquatable<Key>
    {
        public Type[] Types { get; } = types;

        public Layout Layout { get; } = layout;

        public string SplitOn { get; } = splitOn;

        public bool Equals(Key? other) =>
            other is not null && Layout.Equals(other.Layout) && string.Equals(SplitOn, other.SplitOn, StringComparison.Ordinal) &&
            Types.AsSpan().SequenceEqual(other.Types);

        public override bool Equals(object? obj) => Equals(obj as Key);

        public override int GetHashCode() => HashCode.Combine(Layout, SplitOn, Types.Length, Types[0], Types[^1]);
    }
}
