using System.Collections.Concurrent;
using System.ComponentModel;
using System.Data.Common;
using Orseis.Mapping;

namespace Orseis.Shapes;

/// <summary>
/// For generated code: the row and argument shapes the Orseis source generator wrote, registered by a module initializer
/// of the application's assembly. A type with a shape is mapped and bound over it; a type without one, by reflection and
/// compiled expressions (which Native AOT cannot do for every type: see docs/aot.md).
/// </summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public static class ShapeRegistry
{
    private static readonly ConcurrentDictionary<Type, object> Rows = new();
    private static readonly ConcurrentDictionary<Type, ArgumentShape> Arguments = new();
    private static readonly ConcurrentDictionary<Type, IRowEntry> Scalars = new();
    private static readonly ConcurrentDictionary<Type, RuntimeRowType> RuntimeRows = new();

    /// <summary>Off in a process whose <c>AppContext</c> switch <c>Orseis.DisableGeneratedShapes</c> is on: every type compiled.</summary>
    internal static bool Enabled { get; set; } =
        !(AppContext.TryGetSwitch("Orseis.DisableGeneratedShapes", out bool off) && off);

    /// <summary>Registers the row shape of <typeparamref name="T"/> (the first registration of a type wins).</summary>
    /// <typeparam name="T">The row type.</typeparam>
    /// <param name="shape">Its shape.</param>
    public static void AddRow<T>(RowShape<T> shape)
    {
        ArgumentNullException.ThrowIfNull(shape);
        Rows.TryAdd(typeof(T), new RowEntry<T>(shape));
    }

    /// <summary>
    /// Registers <c>Nullable&lt;<typeparamref name="T"/>&gt;</c> as a row type (<c>Query&lt;Point?&gt;</c>), mapped as the compiled
    /// mapper maps it: over the shape of the struct <typeparamref name="T"/> (registered with <see cref="AddRow{T}"/>), wrapped. A
    /// row is never null; no row gives null (<c>QueryFirstOrDefault</c>), as does a NULL split column of a multi-mapped part.
    /// </summary>
    /// <typeparam name="T">The struct row type.</typeparam>
    public static void AddNullableRow<T>()
        where T : struct => Rows.TryAdd(typeof(T?), new NullableRowEntry<T>());

    /// <summary>
    /// Registers the output member <paramref name="path"/> of <typeparamref name="T"/> (<c>ParameterBag.Output(target, x =&gt;
    /// x.Address.Id)</c> is path <c>Address.Id</c>): reads of the chain's owners and typed accessors of its last member, so no
    /// setter is compiled at run time.
    /// </summary>
    /// <typeparam name="T">The target's type, as the call's lambda names it.</typeparam>
    /// <typeparam name="TValue">The last member's type.</typeparam>
    /// <param name="path">The members' names from <typeparamref name="T"/>, joined by dots.</param>
    /// <param name="owners">Reads each member of the chain but the last from the object before it.</param>
    /// <param name="read">Reads the last member from its owner.</param>
    /// <param name="write">Writes the last member on its owner.</param>
    public static void AddOutput<T, TValue>(
        string path, Func<object, object?>[] owners, Func<object, TValue> read, Action<object, TValue> write)
        where T : class
    {
        ArgumentNullException.ThrowIfNull(path);
        ArgumentNullException.ThrowIfNull(owners);
        ArgumentNullException.ThrowIfNull(read);
        ArgumentNullException.ThrowIfNull(write);
        OutputTable.Outputs.TryAdd((typeof(T), path), new OutputShape(
            typeof(TValue), owners, owner => read(owner), (owner, bag, name) => write(owner, bag.Get<TValue>(name)!)));
    }

    /// <summary>Registers a row type read from one column (<c>Query&lt;int&gt;</c>, <c>Query&lt;string?&gt;</c>, a type with a
    /// type handler): its reads, so no mapper is compiled for it.</summary>
    /// <typeparam name="T">The row type.</typeparam>
    /// <param name="value">Its reads: <see cref="ShapeValue.Of{T}"/>, or <see cref="ShapeValue.Nullable{T}"/> for
    /// <c>Nullable&lt;&gt;</c>.</param>
    public static void AddScalar<T>(ShapeValue<T> value)
    {
        ArgumentNullException.ThrowIfNull(value);
        Scalars.TryAdd(typeof(T), new ScalarEntry<T>(value));
    }

    /// <summary>Registers <typeparamref name="T"/> as a row type a call names by <c>typeof</c> (<c>Query(typeof(User), ...)</c>), so
    /// its run-time row type is made without <c>MakeGenericType</c>.</summary>
    /// <typeparam name="T">The row type.</typeparam>
    public static void AddRuntimeRow<T>() => RuntimeRows.TryAdd(typeof(T), RuntimeRowType.Create<T>());

    /// <summary>
    /// Registers the argument shape of <typeparamref name="T"/>: its public properties and fields, read by
    /// <paramref name="read"/> (member i of <paramref name="names"/>). <paramref name="template"/> only names the type, so an
    /// anonymous type can be registered (<c>new { Id = default(int) }</c> is the same type as the caller's <c>new { Id = 5 }</c>).
    /// </summary>
    /// <typeparam name="T">The argument type.</typeparam>
    /// <param name="template">Any value of the type (or null); not kept.</param>
    /// <param name="names">The members' names, in reflection's order (properties, then fields).</param>
    /// <param name="read">Reads member i of an argument object, boxed.</param>
    public static void AddArguments<T>(T template, string[] names, Func<T, int, object?> read)
    {
        ArgumentNullException.ThrowIfNull(names);
        ArgumentNullException.ThrowIfNull(read);
        Arguments.TryAdd(typeof(T), new ArgumentShape(names, (args, i) => read((T)args, i)));
    }

    /// <summary>A class, record or struct mapped by name.</summary>
    /// <param name="constructors">Its public constructors in declaration order (a struct's parameterless one included).</param>
    /// <param name="members">Its members a column can set, in reflection's order (properties, then fields).</param>
    /// <param name="hidden">Calls its non-public parameterless constructor, when it has one; else null.</param>
    /// <typeparam name="T">The row type.</typeparam>
    /// <returns>The shape.</returns>
    public static RowShape<T> ObjectShape<T>(ShapeConstructor<T>[] constructors, ShapeMember<T>[] members, Func<T>? hidden = null)
    {
        ArgumentNullException.ThrowIfNull(constructors);
        ArgumentNullException.ThrowIfNull(members);
        return new RowShape<T>(constructors, members, hidden, null, null);
    }

    /// <summary>A value tuple mapped by position.</summary>
    /// <param name="elements">Its element types in order, those nested in <c>TRest</c> included.</param>
    /// <param name="create">Builds the tuple from <c>a.Get&lt;TElement&gt;(i)</c> for element i.</param>
    /// <typeparam name="T">The row type.</typeparam>
    /// <returns>The shape.</returns>
    public static RowShape<T> TupleShape<T>(ShapeValue[] elements, Func<RowArguments, T> create)
    {
        ArgumentNullException.ThrowIfNull(elements);
        ArgumentNullException.ThrowIfNull(create);
        return new RowShape<T>(null, null, null, elements, create);
    }

    /// <summary>A member of type <typeparamref name="TValue"/>.</summary>
    /// <typeparam name="T">The row type.</typeparam>
    /// <typeparam name="TValue">The member's type.</typeparam>
    /// <param name="name">The member's name.</param>
    /// <param name="set">Stores a value into a row and returns the row (a struct's updated copy).</param>
    /// <param name="value">The member's reads: <see cref="ShapeValue.Nullable{T}"/> for a <c>Nullable&lt;&gt;</c> member; omitted,
    /// <see cref="ShapeValue.Of{T}"/>.</param>
    /// <returns>The member.</returns>
    public static ShapeMember<T> Member<T, TValue>(string name, Func<T, TValue, T> set, ShapeValue<TValue>? value = null)
    {
        ArgumentNullException.ThrowIfNull(name);
        ArgumentNullException.ThrowIfNull(set);
        return new ShapeMember<T>.Typed<TValue>(name, value ?? ShapeValue<TValue>.Plain, set);
    }

    /// <summary>The shape of row type <typeparamref name="T"/>, or null.</summary>
    internal static RowShape<T>? Row<T>() =>
        Enabled && Rows.TryGetValue(typeof(T), out object? entry) && entry is RowEntry<T> row ? row.Shape : null;

    /// <summary>The mapper of rows of <paramref name="layout"/> to <typeparamref name="T"/> over its registered shape, or null.</summary>
    internal static Func<DbDataReader, T>? RowMapper<T>(Layout layout) =>
        (Func<DbDataReader, T>?)Slice(typeof(T), layout, offset: 0, scalar: false, nullWhenFirstIsNull: false);

    /// <summary>
    /// The reads of the one-column row type <typeparamref name="T"/>: its registered ones; else, where nothing may be compiled
    /// (<paramref name="compiledAllowed"/> false), those of a type that is not <c>Nullable&lt;&gt;</c>, which need no generated
    /// code; else null (compiled).
    /// </summary>
    internal static ShapeValue<T>? Scalar<T>(bool compiledAllowed) =>
        Enabled && Scalars.TryGetValue(typeof(T), out IRowEntry? entry) ? ((ScalarEntry<T>)entry).Value
        : !compiledAllowed && Nullable.GetUnderlyingType(typeof(T)) is null ? ShapeValue<T>.Plain
        : null;

    /// <summary>A mapper of a part of a multi-mapped row to <paramref name="type"/> over its shape, or null when it has none.</summary>
    internal static Delegate? Slice(Type type, Layout slice, int offset, bool scalar, bool nullWhenFirstIsNull) =>
        !Enabled ? null
        : scalar ? Scalars.TryGetValue(type, out IRowEntry? value) ? value.Slice(slice, offset, nullWhenFirstIsNull) : null
        : Rows.TryGetValue(type, out object? entry) ? ((IRowEntry)entry).Slice(slice, offset, nullWhenFirstIsNull) : null;

    /// <summary>The registered output member <paramref name="path"/> of <paramref name="target"/>, or null.</summary>
    internal static OutputShape? OutputOf(Type target, string path) =>
        Enabled && OutputTable.Outputs.TryGetValue((target, path), out OutputShape? shape) ? shape : null;

    /// <summary>The registered run-time row type of <paramref name="type"/>, or null.</summary>
    internal static RuntimeRowType? RuntimeRow(Type type) => RuntimeRows.TryGetValue(type, out RuntimeRowType? row) ? row : null;

    /// <summary>The argument shape of <paramref name="type"/>, or null.</summary>
    internal static ArgumentShape? ArgumentsOf(Type type) =>
        Enabled && Arguments.TryGetValue(type, out ArgumentShape? shape) ? shape : null;

    /// <summary>How many row shapes are registered (tests).</summary>
    internal static int RowCount => Rows.Count;

    private interface IRowEntry
    {
        /// <summary>The mapper of one layout; null when it cannot be made over shapes (a nullable struct's struct has none).</summary>
        Delegate? Slice(Layout slice, int offset, bool nullWhenFirstIsNull);
    }

    private sealed class ScalarEntry<T>(ShapeValue<T> value) : IRowEntry
    {
        public ShapeValue<T> Value { get; } = value;

        public Delegate Slice(Layout slice, int offset, bool nullWhenFirstIsNull) =>
            ShapeMappers.Scalar(Value, slice, offset, nullWhenFirstIsNull);
    }

    private sealed class RowEntry<T>(RowShape<T> shape) : IRowEntry
    {
        public RowShape<T> Shape { get; } = shape;

        public Delegate Slice(Layout slice, int offset, bool nullWhenFirstIsNull) =>
            ShapeMappers.Build(Shape, slice, offset, nullWhenFirstIsNull);
    }

    private sealed class NullableRowEntry<T> : IRowEntry
        where T : struct
    {
        public Delegate? Slice(Layout slice, int offset, bool nullWhenFirstIsNull) =>
            Rows.TryGetValue(typeof(T), out object? entry) && entry is RowEntry<T> row
                ? ShapeMappers.Nullable(row.Shape, slice, offset, nullWhenFirstIsNull)
                : null;
    }

    /// <summary>
    /// The output members' table, made at the first output registered or looked up, not with the other tables when the
    /// application's module initializer registers its first shape: a dictionary keyed by a value tuple is code the JIT
    /// compiles for that key, at the start of every process, and most never have an output member (issue 44).
    /// </summary>
    private static class OutputTable
    {
        public static readonly ConcurrentDictionary<(Type Target, string Path), OutputShape> Outputs = new();
    }
}

/// <summary>An argument type's public members (names, in reflection's order) and a reader of member i.</summary>
internal sealed class ArgumentShape(string[] names, Func<object, int, object?> read)
{
    public string[] Names { get; } = names;

    public Func<object, int, object?> Read { get; } = read;
}
