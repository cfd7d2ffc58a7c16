using System.ComponentModel;
using System.Data.Common;
using Orseis.Mapping;

namespace Orseis.Shapes;

/// <summary>
/// For generated code: a member of <typeparamref name="T"/> a column can set (the members Orseis' mapping rules set: a
/// property with a setter, a public field), with a typed setter.
/// </summary>
/// <typeparam name="T">The row type.</typeparam>
[EditorBrowsable(EditorBrowsableState.Never)]
public abstract class ShapeMember<T>
{
    private protected ShapeMember(string name, ShapeValue value)
    {
        Name = name;
        Value = value;
    }

    /// <summary>The name a column matches.</summary>
    public string Name { get; }

    /// <summary>The member's type.</summary>
    public ShapeValue Value { get; }

    /// <summary>The member bound to its column for one layout.</summary>
    internal abstract Bound Bind(int ordinal, Type columnType, string memberName, Layout layout, bool skipNull);

    /// <summary>A member bound to its column: reads it and stores it.</summary>
    internal abstract class Bound(int ordinal, bool skipNull)
    {
        public void Set(ref T target, DbDataReader reader)
        {
            if (!skipNull || !reader.IsDBNull(ordinal))
                Store(ref target, reader);
        }

        protected abstract void Store(ref T target, DbDataReader reader);
    }

    internal sealed class Typed<TValue>(string name, ShapeValue<TValue> value, Func<T, TValue, T> set) : ShapeMember<T>(name, value)
    {
        internal override Bound Bind(int ordinal, Type columnType, string memberName, Layout layout, bool skipNull) =>
            new BoundTyped(value.Column(ordinal, columnType, memberName, layout, checkedNotNull: skipNull), set, skipNull);

        private sealed class BoundTyped(ShapeColumn<TValue> column, Func<T, TValue, T> set, bool skipNull)
            : Bound(column.Ordinal, skipNull)
        {
            protected override void Store(ref T target, DbDataReader reader) => target = set(target, column.Read(reader));
        }
    }
}

/// <summary>For generated code: a constructor parameter's name and type.</summary>
/// <param name="name">The parameter's name, which a column matches.</param>
/// <param name="value">The parameter's type.</param>
[EditorBrowsable(EditorBrowsableState.Never)]
public sealed class ShapeParameter(string name, ShapeValue value)
{
    /// <summary>The parameter's name.</summary>
    public string Name { get; } = name ?? throw new ArgumentNullException(nameof(name));

    /// <summary>The parameter's type.</summary>
    public ShapeValue Value { get; } = value ?? throw new ArgumentNullException(nameof(value));
}

/// <summary>For generated code: a public constructor of <typeparamref name="T"/> and a factory calling it.</summary>
/// <typeparam name="T">The row type.</typeparam>
/// <param name="parameters">The constructor's parameters, in order.</param>
/// <param name="create">Calls the constructor with <c>a.Get&lt;TParameter&gt;(i)</c> for parameter i.</param>
[EditorBrowsable(EditorBrowsableState.Never)]
public sealed class ShapeConstructor<T>(ShapeParameter[] parameters, Func<RowArguments, T> create)
{
    /// <summary>The constructor's parameters, in order.</summary>
    public IReadOnlyList<ShapeParameter> Parameters { get; } = parameters ?? throw new ArgumentNullException(nameof(parameters));

    internal Func<RowArguments, T> Create { get; } = create ?? throw new ArgumentNullException(nameof(create));
}
