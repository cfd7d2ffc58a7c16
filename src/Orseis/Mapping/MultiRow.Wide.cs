using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>The row functions of multi-mapping to 5, 6 and 7 types (see <see cref="MultiRow"/>).</summary>
internal static class MultiRowWide
{
    /// <summary>Turns the per-type mappers of a layout into one row function that calls <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, T4, T5, TResult>(
        Func<T1, T2, T3, T4, T5, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var m1 = (Func<DbDataReader, T1>)mappers[0];
            var m2 = (Func<DbDataReader, T2>)mappers[1];
            var m3 = (Func<DbDataReader, T3>)mappers[2];
            var m4 = (Func<DbDataReader, T4>)mappers[3];
            var m5 = (Func<DbDataReader, T5>)mappers[4];
            return reader => map(m1(reader), m2(reader), m3(reader), m4(reader), m5(reader));
        };
    }

    /// <summary>Turns the per-type mappers of a layout into one row function that calls <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, T4, T5, T6, TResult>(
        Func<T1, T2, T3, T4, T5, T6, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var m1 = (Func<DbDataReader, T1>)mappers[0];
            var m2 = (Func<DbDataReader, T2>)mappers[1];
            var m3 = (Func<DbDataReader, T3>)mappers[2];
            var m4 = (Func<DbDataReader, T4>)mappers[3];
            var m5 = (Func<DbDataReader, T5>)mappers[4];
            var m6 = (Func<DbDataReader, T6>)mappers[5];
            return reader => map(m1(reader), m2(reader), m3(reader), m4(reader), m5(reader), m6(reader));
        };
    }

    /// <summary>Turns the per-type mappers of a layout into one row function that calls <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, T4, T5, T6, T7, TResult>(
        Func<T1, T2, T3, T4, T5, T6, T7, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var m1 = (Func<DbDataReader, T1>)mappers[0];
            var m2 = (Func<DbDataReader, T2>)mappers[1];
            var m3 = (Func<DbDataReader, T3>)mappers[2];
            var m4 = (Func<DbDataReader, T4>)mappers[3];
            var m5 = (Func<DbDataReader, T5>)mappers[4];
            var m6 = (Func<DbDataReader, T6>)mappers[5];
            var m7 = (Func<DbDataReader, T7>)mappers[6];
            return reader => map(m1(reader), m2(reader), m3(reader), m4(reader), m5(reader), m6(reader), m7(reader));
        };
    }

}
