namespace Orseis.Mapping;

/// <summary>
/// The type handlers of one <see cref="Database"/>, frozen when it is created. Compiled mappers embed the handlers they
/// use, so a set is part of the mapper cache key (<see cref="Layout"/>), compared by reference: each database with
/// handlers compiles its own mappers, and a database without any (null set) shares the plain ones.
/// </summary>
internal sealed class TypeHandlerSet
{
    private readonly Dictionary<Type, ITypeHandler> _handlers;

    private TypeHandlerSet(Dictionary<Type, ITypeHandler> handlers) => _handlers = handlers;

    /// <summary>The set of <paramref name="handlers"/>, or null when there is none (so the plain path stays a null test).</summary>
    public static TypeHandlerSet? From(IReadOnlyDictionary<Type, ITypeHandler> handlers) =>
        handlers.Count == 0 ? null : new TypeHandlerSet(new Dictionary<Type, ITypeHandler>(handlers));

    /// <summary>The handler of <paramref name="type"/> or of the type inside <c>Nullable&lt;&gt;</c>, or null.</summary>
    public ITypeHandler? For(Type type) =>
        _handlers.TryGetValue(type, out ITypeHandler? handler) ? handler
        : Nullable.GetUnderlyingType(type) is { } inner && _handlers.TryGetValue(inner, out handler) ? handler
        : null;
}
