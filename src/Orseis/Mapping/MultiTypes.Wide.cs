namespace Orseis.Mapping;

/// <inheritdoc cref="MultiTypes{T1, T2}"/>
internal static class MultiTypes<T1, T2, T3, T4, T5>
{
    public static readonly Type[] Types = [typeof(T1), typeof(T2), typeof(T3), typeof(T4), typeof(T5)];
}

/// <inheritdoc cref="MultiTypes{T1, T2}"/>
internal static class MultiTypes<T1, T2, T3, T4, T5, T6>
{
    public static readonly Type[] Types = [typeof(T1), typeof(T2), typeof(T3), typeof(T4), typeof(T5), typeof(T6)];
}

/// <inheritdoc cref="MultiTypes{T1, T2}"/>
internal static class MultiTypes<T1, T2, T3, T4, T5, T6, T7>
{
    public static readonly Type[] Types = [typeof(T1), typeof(T2), typeof(T3), typeof(T4), typeof(T5), typeof(T6), typeof(T7)];
}
