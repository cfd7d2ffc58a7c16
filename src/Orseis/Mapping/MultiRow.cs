using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// Turns the per-type mappers of a multi-mapped layout (<see cref="MultiMapper"/>) into one row function that calls the
/// caller's map function; one overload per number of types.
/// </summary>
internal static class MultiRow
{
    /// <summary>Turns the per-type mappers of a layout into one row function that calls <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, TResult>(Func<T1, T2, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var m1 = (Func<DbDataReader, T1>)mappers[0];
            var m2 = (Func<DbDataReader, T2>)mappers[1];
            return reader => map(m1(reader), m2(reader));
        };
    }

    /// <summary>Turns the per-type mappers of a layout into one row function that calls <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, TResult>(Func<T1, T2, T3, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var m1 = (Func<DbDataReader, T1>)mappers[0];
            var m2 = (Func<DbDataReader, T2>)mappers[1];
            var m3 = (Func<DbDataReader, T3>)mappers[2];
            return reader => map(m1(reader), m2(reader), m3(reader));
        };
    }

    /// <summary>Turns the per-type mappers of a layout into one row function that calls <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, T4, TResult>(Func<T1, T2, T3, T4, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var m1 = (Func<DbDataReader, T1>)mappers[0];
            var m2 = (Func<DbDataReader, T2>)mappers[1];
            var m3 = (Func<DbDataReader, T3>)mappers[2];
            var m4 = (Func<DbDataReader, T4>)mappers[3];
            return reader => map(m1(reader), m2(reader), m3(reader), m4(reader));
        };
    }
}
