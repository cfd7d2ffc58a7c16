using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// Turns the per-type mappers of a multi-mapped layout (<see cref="MultiMapper"/>) into one row function that calls the
/// caller's map function; one overload per number of types, 2 to 7 (the run-time-type form is <see cref="MultiRowTypes"/>).
/// Each is called once per layout, not per row: the row function it returns calls the typed mappers directly.
/// </summary>
internal static class MultiRow
{
    /// <summary>The row function of 2 parts combined by <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, TResult>(Func<T1, T2, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var (m1, m2) = (Part<T1>(mappers, 0), Part<T2>(mappers, 1));
            return reader => map(m1(reader), m2(reader));
        };
    }

    /// <summary>The row function of 3 parts combined by <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, TResult>(Func<T1, T2, T3, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var (m1, m2, m3) = (Part<T1>(mappers, 0), Part<T2>(mappers, 1), Part<T3>(mappers, 2));
            return reader => map(m1(reader), m2(reader), m3(reader));
        };
    }

    /// <summary>The row function of 4 parts combined by <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, T4, TResult>(Func<T1, T2, T3, T4, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var (m1, m2, m3, m4) = (Part<T1>(mappers, 0), Part<T2>(mappers, 1), Part<T3>(mappers, 2), Part<T4>(mappers, 3));
            return reader => map(m1(reader), m2(reader), m3(reader), m4(reader));
        };
    }

    /// <summary>The row function of 5 parts combined by <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, T4, T5, TResult>(
        Func<T1, T2, T3, T4, T5, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var (m1, m2, m3, m4, m5) =
                (Part<T1>(mappers, 0), Part<T2>(mappers, 1), Part<T3>(mappers, 2),
                Part<T4>(mappers, 3), Part<T5>(mappers, 4));
            return reader => map(m1(reader), m2(reader), m3(reader), m4(reader), m5(reader));
        };
    }

    /// <summary>The row function of 6 parts combined by <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, T4, T5, T6, TResult>(
        Func<T1, T2, T3, T4, T5, T6, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var (m1, m2, m3, m4, m5, m6) =
                (Part<T1>(mappers, 0), Part<T2>(mappers, 1), Part<T3>(mappers, 2),
                Part<T4>(mappers, 3), Part<T5>(mappers, 4), Part<T6>(mappers, 5));
            return reader => map(m1(reader), m2(reader), m3(reader), m4(reader), m5(reader), m6(reader));
        };
    }

    /// <summary>The row function of 7 parts combined by <paramref name="map"/>.</summary>
    internal static Func<Delegate[], Func<DbDataReader, TResult>> Compose<T1, T2, T3, T4, T5, T6, T7, TResult>(
        Func<T1, T2, T3, T4, T5, T6, T7, TResult> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        return mappers =>
        {
            var (m1, m2, m3, m4, m5, m6, m7) =
                (Part<T1>(mappers, 0), Part<T2>(mappers, 1), Part<T3>(mappers, 2), Part<T4>(mappers, 3),
                Part<T5>(mappers, 4), Part<T6>(mappers, 5), Part<T7>(mappers, 6));
            return reader => map(m1(reader), m2(reader), m3(reader), m4(reader), m5(reader), m6(reader), m7(reader));
        };
    }

    private static Func<DbDataReader, T> Part<T>(Delegate[] mappers, int index) => (Func<DbDataReader, T>)mappers[index];
}
