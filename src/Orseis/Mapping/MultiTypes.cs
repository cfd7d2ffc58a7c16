namespace Orseis.Mapping;

/// <summary>The types of a multi-mapped row, as one array per combination (part of the mapper cache key).</summary>
internal static class MultiTypes<T1, T2>
{
    public static readonly Type[] Types = [typeof(T1), typeof(T2)];
}

/// <inheritdoc cref="MultiTypes{T1, T2}"/>
internal static class MultiTypes<T1, T2, T3>
{
    public static readonly Type[] Types = [typeof(T1), typeof(T2), typeof(T3)];
}

/// <inheritdoc cref="MultiTypes{T1, T2}"/>
internal static class MultiTypes<T1, T2, T3, T4>
{
    public static readonly Type[] Types = [typeof(T1), typeof(T2), typeof(T3), typeof(T4)];
}
