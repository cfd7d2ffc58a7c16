using System.Collections.Concurrent;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace Orseis.Mapping;

/// <summary>
/// A row type known only at run time (<c>Query(Type, …)</c>, <c>GridReader.Read(Type)</c>, multi-mapping by
/// <c>Type[]</c>): the same cached mapper as <c>Query&lt;T&gt;</c>, seen as returning <see cref="object"/>. One instance per
/// type, made once; a reference type's mapper is used as it is (delegate variance), a value type's is wrapped to box.
/// </summary>
internal abstract class RuntimeRowType : IRowSource<object?>
{
    private static readonly ConcurrentDictionary<Type, RuntimeRowType> Types = new();

    /// <summary>The row type of <paramref name="type"/>.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="type"/> is null.</exception>
    /// <exception cref="ArgumentException">No row can be of that type (a generic definition, a pointer, <c>void</c>, …).</exception>
    public static RuntimeRowType For(Type type, string parameter)
    {
        ArgumentNullException.ThrowIfNull(type, parameter);
        if (Types.TryGetValue(type, out RuntimeRowType? known))
            return known;
        if (type.ContainsGenericParameters || type.IsByRef || type.IsPointer || type.IsByRefLike || type == typeof(void)
            || (type.IsAbstract && type.IsSealed))
        {
            throw new ArgumentException(
                $"Rows cannot be mapped to {type}: it is {Kind(type)}. Give a class, record, struct or scalar type.", parameter);
        }

        if (Shapes.ShapeRegistry.RuntimeRow(type) is { } registered)
            return Types.GetOrAdd(type, registered);
        if (!CompiledMapping.IsSupported)
            throw CompiledMapping.NoShape(type, "rows of a run-time Type");
        return Types.GetOrAdd(type, Made(type));
    }

    /// <summary>The row type of <typeparamref name="T"/>, made with no reflection (generated code registers it).</summary>
    internal static RuntimeRowType Create<T>() => new Of<T>();

    [RequiresDynamicCode(CompiledMapping.Needs)]
    [RequiresUnreferencedCode(CompiledMapping.Needs)]
    private static RuntimeRowType Made(Type type) => (RuntimeRowType)Activator.CreateInstance(typeof(Of<>).MakeGenericType(type))!;

    public abstract Type Type { get; }

    /// <summary>The mapper of the reader's current result set, as <c>RowMapper&lt;T&gt;.Get</c> gives it.</summary>
    public abstract Func<DbDataReader, object?> Mapper(DbDataReader reader, string sql, TypeHandlerSet? handlers);

    /// <summary>A multi-mapping part's mapper (a <c>Func&lt;DbDataReader, T&gt;</c>) seen as returning <see cref="object"/>.</summary>
    public abstract Func<DbDataReader, object?> Boxed(Delegate mapper);

    private static string Kind(Type type) =>
        type.ContainsGenericParameters ? "an open generic type"
        : type.IsByRef ? "a by-reference type"
        : type.IsPointer ? "a pointer type"
        : type.IsByRefLike ? "a ref struct"
        : type == typeof(void) ? "void"
        : "a static class";

    private sealed class Of<T> : RuntimeRowType
    {
        /// <summary>The boxing wrappers of a value type's mappers, made once per cached mapper.</summary>
        private readonly ConditionalWeakTable<Func<DbDataReader, T>, Func<DbDataReader, object?>> _boxed = [];

        public override Type Type => typeof(T);

        public override Func<DbDataReader, object?> Mapper(DbDataReader reader, string sql, TypeHandlerSet? handlers) =>
            Boxed(RowMapper<T>.Get(reader, sql, handlers));

        public override Func<DbDataReader, object?> Boxed(Delegate mapper)
        {
            var typed = (Func<DbDataReader, T>)mapper;
            if (!typeof(T).IsValueType)
                return (Func<DbDataReader, object?>)(object)typed;
            return _boxed.GetValue(typed, static m => reader => m(reader));
        }
    }
}
