namespace Orseis.Mapping;

/// <summary>
/// The type handlers of one <see cref="Database"/>, and its other mapping settings (<see cref="NullKeepsDefault"/>),
/// frozen when it is created. Compiled mappers embed the handlers they use and the settings they were compiled for, so a
/// set is part of the mapper cache key (<see cref="Layout"/>), compared by reference: each database with handlers or
/// settings of its own compiles its own mappers, and a database with neither (null set) shares the plain ones.
/// </summary>
internal sealed class TypeHandlerSet
{
    private readonly Dictionary<Type, ITypeHandler> _handlers;

    private TypeHandlerSet(Dictionary<Type, ITypeHandler> handlers, bool nullKeepsDefault)
    {
        _handlers = handlers;
        NullKeepsDefault = nullKeepsDefault;
    }

    /// <summary>
    /// <see cref="OrseisOptions.NullKeepsDefault"/>: a NULL read into a member that cannot hold it leaves the member as
    /// constructed (a constructor parameter, tuple element or single-column value gets <see langword="default"/>).
    /// </summary>
    public bool NullKeepsDefault { get; }

    /// <summary>
    /// The set of <paramref name="handlers"/> and settings, or null when there is no handler and every setting is the default
    /// (so the plain path stays a null test).
    /// </summary>
    public static TypeHandlerSet? From(IReadOnlyDictionary<Type, ITypeHandler> handlers, bool nullKeepsDefault = false) =>
        handlers.Count == 0 && !nullKeepsDefault
            ? null
            : new TypeHandlerSet(new Dictionary<Type, ITypeHandler>(handlers), nullKeepsDefault);

    /// <summary>The handler of <paramref name="type"/> or of the type inside <c>Nullable&lt;&gt;</c>, or null.</summary>
    public ITypeHandler? For(Type type) =>
        _handlers.TryGetValue(type, out ITypeHandler? handler) ? handler
        : Nullable.GetUnderlyingType(type) is { } inner && _handlers.TryGetValue(inner, out handler) ? handler
        : null;
}
