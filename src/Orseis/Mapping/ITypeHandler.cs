using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>A <see cref="TypeHandler{T}"/> seen without its type argument, as the binder and the handler set use it.</summary>
internal interface ITypeHandler
{
    /// <summary>The type this handler converts.</summary>
    Type HandledType { get; }

    /// <summary>Sets <paramref name="parameter"/> for a non-null value of <see cref="HandledType"/>.</summary>
    void SetBoxedValue(DbParameter parameter, object value);

    /// <summary>Converts a non-NULL column value to <see cref="HandledType"/>, boxed.</summary>
    object? ParseBoxed(object value);
}
