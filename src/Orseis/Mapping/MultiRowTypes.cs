using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// Multi-mapping by a <see cref="Type"/> array (Dapper's <c>Query(sql, types, map)</c>): the per-type mappers of
/// <see cref="MultiMapper"/> seen as returning <see cref="object"/>, and one row function that passes the parts, as an
/// array, to the caller's map function.
/// </summary>
internal static class MultiRowTypes
{
    /// <summary>
    /// A private copy of <paramref name="types"/> with each checked, and the row types that box their parts.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="types"/> is empty, or one of them cannot be a row type.</exception>
    public static (Type[] Types, RuntimeRowType[] Rows) Check(Type[] types)
    {
        ArgumentNullException.ThrowIfNull(types);
        if (types.Length == 0)
            throw new ArgumentException("types is empty: give the type of each part of the row, in column order.", nameof(types));
        var copy = new Type[types.Length];
        var rows = new RuntimeRowType[types.Length];
        for (int i = 0; i < types.Length; i++)
        {
            if (types[i] is null)
                throw new ArgumentException($"types[{i}] is null: give the type of each part of the row.", nameof(types));
            copy[i] = types[i];
            rows[i] = RuntimeRowType.For(types[i], nameof(types));
        }

        return (copy, rows);
    }

    /// <summary>Turns the per-type mappers of a layout into one row function that calls <paramref name="map"/> with the parts.</summary>
    public static Func<Delegate[], Func<DbDataReader, TResult>> Compose<TResult>(RuntimeRowType[] rows, Func<object?[], TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var parts = new Func<DbDataReader, object?>[mappers.Length];
            for (int i = 0; i < parts.Length; i++)
                parts[i] = rows[i].Boxed(mappers[i]);
            return reader =>
            {
                var values = new object?[parts.Length];
                for (int i = 0; i < values.Length; i++)
                    values[i] = parts[i](reader);
                return map(values);
            };
        };
    }
}
