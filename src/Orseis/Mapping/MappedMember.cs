using System.Diagnostics.CodeAnalysis;
using System.Linq.Expressions;
using System.Reflection;
using System.Reflection.Emit;

namespace Orseis.Mapping;

/// <summary>
/// A member a column can set, as Dapper sets them: a public property with a setter of any visibility (public, init,
/// protected, private, also one declared on a base class), a public get-only auto-property (through its compiler-made
/// backing field), and a public field, <c>readonly</c> ones included. Non-public properties and fields are never set: a
/// column reaches only what the type shows.
/// </summary>
[RequiresDynamicCode(CompiledMapping.Needs)]
[RequiresUnreferencedCode(CompiledMapping.Needs)]
internal sealed class MappedMember
{
    private const BindingFlags Declared = BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly;

    private readonly PropertyInfo? _property;
    private readonly FieldInfo? _field;

    private MappedMember(string name, Type type, PropertyInfo? property, FieldInfo? field)
    {
        Name = name;
        Type = type;
        _property = property;
        _field = field;
    }

    /// <summary>The name a column matches.</summary>
    public string Name { get; }

    /// <summary>The member's type.</summary>
    public Type Type { get; }

    /// <summary>The members of <paramref name="type"/> a column can set, properties first.</summary>
    public static IEnumerable<MappedMember> Of(Type type)
    {
        foreach (PropertyInfo property in type.GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            if (property.GetIndexParameters().Length != 0)
                continue;
            if (Settable(property) is { } settable)
                yield return new MappedMember(property.Name, property.PropertyType, settable, null);
            else if (BackingField(property) is { } backing)
                yield return new MappedMember(property.Name, property.PropertyType, null, backing);
        }

        foreach (FieldInfo field in type.GetFields(BindingFlags.Public | BindingFlags.Instance))
            yield return new MappedMember(field.Name, field.FieldType, null, field);
    }

    /// <summary>
    /// <c>target.Member = value</c>. A <c>readonly</c> field (a get-only auto-property's backing field) cannot be assigned
    /// in an expression tree, so it is stored by a small compiled method, called directly (no delegate, no reflection per row).
    /// </summary>
    public Expression Assign(ParameterExpression target, Expression value)
    {
        if (_property is not null)
            return Expression.Assign(Expression.Property(target, _property), value);
        if (!_field!.IsInitOnly)
            return Expression.Assign(Expression.Field(target, _field), value);
        return Expression.Call(InitOnlyStore(_field, target.Type), target, value);
    }

    /// <summary>The property itself when it has a setter; else, for a property of a base class whose setter is private to
    /// that class, the base class's own view of it, which has the setter.</summary>
    private static PropertyInfo? Settable(PropertyInfo property)
    {
        if (property.SetMethod is not null)
            return property;
        if (property.DeclaringType is not { } declaring || declaring == property.ReflectedType)
            return null;
        PropertyInfo? own = Array.Find(
            declaring.GetProperties(Declared), p => p.Name == property.Name && p.PropertyType == property.PropertyType);
        return own?.SetMethod is not null ? own : null;
    }

    /// <summary>The compiler's backing field of a get-only auto-property (<c>public int Id { get; }</c>), or null.</summary>
    private static FieldInfo? BackingField(PropertyInfo property) =>
        property.GetMethod is { IsPublic: true } && property.DeclaringType is { } declaring
            ? declaring.GetField($"<{property.Name}>k__BackingField", Declared) is { } field && field.FieldType == property.PropertyType
                ? field
                : null
            : null;

    /// <summary><c>static void Store(T target, TField value)</c> (<c>ref T</c> for a struct) storing into a readonly field.</summary>
    private static DynamicMethod InitOnlyStore(FieldInfo field, Type owner)
    {
        Type targetType = owner.IsValueType ? owner.MakeByRefType() : owner;
        var method = new DynamicMethod($"Store_{field.Name}", null, [targetType, field.FieldType], owner.Module, skipVisibility: true);
        ILGenerator il = method.GetILGenerator();
        il.Emit(OpCodes.Ldarg_0);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Stfld, field);
        il.Emit(OpCodes.Ret);
        return method;
    }
}
