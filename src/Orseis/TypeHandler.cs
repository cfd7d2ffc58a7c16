using System.Data.Common;

namespace Orseis;

/// <summary>
/// Teaches one <see cref="Database"/> a type of your own: how to send it as a parameter and how to read it from a column
/// (a JSON text column to a record, a string to a strongly typed id). Register it with
/// <see cref="OrseisOptions.AddTypeHandler{T}(TypeHandler{T})"/>; it then applies to members, scalars, list elements
/// (<c>in @ids</c>) and parameters of type <typeparamref name="T"/> and <c>Nullable&lt;T&gt;</c>.
/// </summary>
/// <typeparam name="T">The type handled.</typeparam>
/// <example>
/// <code>
/// sealed class UserIdHandler : TypeHandler&lt;UserId&gt;
/// {
///     public override UserId Parse(object value) =&gt; new((string)value);
///     public override void SetValue(DbParameter parameter, UserId value) =&gt; parameter.Value = value.Value;
/// }
/// </code>
/// </example>
public abstract class TypeHandler<T> : Mapping.ITypeHandler
{
    /// <summary>Converts a column's value to <typeparamref name="T"/>. Never called for NULL (a NULL maps to <see langword="default"/> or
    /// is an error, as for any type).</summary>
    /// <param name="value">The value as the provider's <see cref="DbDataReader.GetValue(int)"/> returns it.</param>
    /// <returns>The converted value.</returns>
    public abstract T Parse(object value);

    /// <summary>Sets <paramref name="parameter"/>'s <see cref="DbParameter.Value"/> (and <see cref="DbParameter.DbType"/>, if it matters)
    /// for <paramref name="value"/>. Never called for null.</summary>
    /// <param name="parameter">The parameter, already named.</param>
    /// <param name="value">The value to send.</param>
    public abstract void SetValue(DbParameter parameter, T value);

    Type Mapping.ITypeHandler.HandledType => typeof(T);

    void Mapping.ITypeHandler.SetBoxedValue(DbParameter parameter, object value) => SetValue(parameter, (T)value);

    object? Mapping.ITypeHandler.ParseBoxed(object value) => Parse(value);
}
