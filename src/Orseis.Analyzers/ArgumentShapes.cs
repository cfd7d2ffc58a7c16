using System.Collections.Generic;
using System.Linq;
using System.Text;
using Microsoft.CodeAnalysis;

namespace Orseis.Analyzers;

/// <summary>
/// The argument shape of a type passed as <c>args</c>: its public properties with a public getter (not indexers), then its
/// public fields, in reflection's order (the runtime's ParameterBinder rule), read by one generated switch. An anonymous
/// type is named by a template, <c>new { Id = default(int) }</c>, which is the caller's type (the compiler makes one type per
/// assembly for the same names, types and order).
/// </summary>
internal static class ArgumentShapes
{
    public static ShapeSource? Of(ITypeSymbol type, IAssemblySymbol within) => Of(type, within, out _);

    /// <summary>The argument shape of <paramref name="type"/>; when there is none, <paramref name="why"/> says why it matters (null
    /// when the runtime needs none: a dictionary, a ParameterBag, a list, or a type it refuses anyway).</summary>
    public static ShapeSource? Of(ITypeSymbol type, IAssemblySymbol within, out string? why)
    {
        why = null;
        if (type is ITypeParameterSymbol)
        {
            why = Shapes.TypeParameterWhy;
            return null;
        }

        if (type is INamedTypeSymbol { TypeKind: TypeKind.Class, IsAbstract: true, IsStatic: false } abstractClass
            && !IsCollection(abstractClass) && !Shapes.Framework(abstractClass))
        {
            why = "it is an abstract class: the object's own type is not known at the call";
            return null;
        }

        if (type is not INamedTypeSymbol named || named.TypeKind is not (TypeKind.Class or TypeKind.Struct) || named.IsTupleType
            || named.SpecialType != SpecialType.None || named.IsAbstract || named.IsRefLikeType || IsCollection(named)
            || Shapes.Framework(named))
        {
            return null;
        }

        string? template = Template(named, within);
        if (template is null)
        {
            why = named.IsAnonymousType
                ? "it is an anonymous type with a member whose type generated code cannot name"
                : "generated code cannot name it (a private or protected type, or an internal type of another assembly)";
            return null;
        }

        var (properties, fields) = Shapes.PublicMembers(named);
        var names = new List<string>();
        var reads = new List<string>();
        foreach (IPropertySymbol property in properties)
        {
            if (property.GetMethod?.DeclaredAccessibility != Accessibility.Public)
                continue;
            reads.Add($"{names.Count} => (object)x.{Shapes.Escape(property.Name)}");
            names.Add(property.Name);
        }

        foreach (IFieldSymbol field in fields)
        {
            reads.Add($"{names.Count} => (object)x.{Shapes.Escape(field.Name)}");
            names.Add(field.Name);
        }

        var code = new StringBuilder();
        code.Line("private static void $NAME$() =>")
            .Line($"    global::Orseis.Shapes.ShapeRegistry.AddArguments({template},")
            .Line($"        new string[] {{ {string.Join(", ", names.Select(Shapes.Literal))} }},")
            .Line($"        static (x, i) => i switch {{ {string.Concat(reads.Select(r => r + ", "))}_ => null }});");
        return new ShapeSource("args " + (named.IsAnonymousType ? template : Shapes.Name(named)), code.ToString());
    }

    /// <summary>An expression of the type: <c>default(T)</c>, or for an anonymous type one built with the same members.</summary>
    private static string? Template(INamedTypeSymbol type, IAssemblySymbol within)
    {
        if (!type.IsAnonymousType)
            return Shapes.Nameable(type, within) ? $"default({Shapes.Name(type)})" : null;
        var parts = new List<string>();
        foreach (IPropertySymbol property in type.GetMembers().OfType<IPropertySymbol>())
        {
            string? value = property.Type is INamedTypeSymbol { IsAnonymousType: true } inner ? Template(inner, within)
                : Shapes.Nameable(property.Type, within) || property.Type is IArrayTypeSymbol ? $"default({Shapes.Name(property.Type)})"
                : null;
            if (value is null)
                return null;
            parts.Add($"{Shapes.Escape(property.Name)} = {value}");
        }

        return $"new {{ {string.Join(", ", parts)} }}";
    }

    private static bool IsCollection(INamedTypeSymbol type) =>
        type.AllInterfaces.Any(i => i.SpecialType == SpecialType.System_Collections_IEnumerable)
        || type.AllInterfaces.Any(i => i.ToDisplayString() == "System.Runtime.CompilerServices.ITuple");
}
