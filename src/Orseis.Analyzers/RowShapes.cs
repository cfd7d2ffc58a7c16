using System.Collections.Generic;
using System.Linq;
using System.Text;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace Orseis.Analyzers;

/// <summary>
/// The row shape of a type, following the runtime's rules (Orseis' MappedMember and MapperCompiler): public constructors;
/// members set by a column are public properties with a setter of any visibility (also a base class's private one), public
/// get-only auto-properties (their backing field) and public fields, readonly ones included. What plain C# cannot reach is
/// reached through <c>[UnsafeAccessor]</c> (no reflection, Native AOT safe). A type not described exactly gets null.
/// </summary>
internal static class RowShapes
{
    private const string S = "global::Orseis.Shapes.";
    private const string Accessor = "[global::System.Runtime.CompilerServices.UnsafeAccessor(" +
        "global::System.Runtime.CompilerServices.UnsafeAccessorKind.";

    public static ShapeSource? Of(ITypeSymbol type, IAssemblySymbol within) => Of(type, within, out _);

    /// <summary>The row shape of <paramref name="type"/>; when there is none, <paramref name="why"/> says why (or is null when
    /// the runtime needs none: <c>object</c>, <c>dynamic</c>, a framework or Orseis type it reads itself).</summary>
    public static ShapeSource? Of(ITypeSymbol type, IAssemblySymbol within, out string? why)
    {
        why = null;
        if (type is ITypeParameterSymbol)
        {
            why = Shapes.TypeParameterWhy;
            return null;
        }

        if (type is not INamedTypeSymbol named || named.IsUnboundGenericType)
            return null; // an array (byte[] is a scalar), dynamic, a pointer: not the generator's business
        if (named.IsAnonymousType)
        {
            why = "it is an anonymous type, which generated code cannot name";
            return null;
        }

        if (!Shapes.Nameable(named, within))
        {
            why = "generated code cannot name it (a private or protected type, an internal type of another assembly, or such a " +
                "type as a type argument)";
            return null;
        }

        if (named.IsTupleType)
            return Tuple(named);
        if (IsNullable(named, out INamedTypeSymbol? inner) && !IsScalar(inner!))
            return NullableRow(named, inner!, within, out why);
        if (IsScalar(named))
            return named.SpecialType == SpecialType.System_Object ? null : Scalar(named);
        if (Shapes.Framework(named))
            return null;
        if (named.IsAbstract || named.IsStatic || named.IsRefLikeType || named.TypeKind is not (TypeKind.Class or TypeKind.Struct))
        {
            why = named.TypeKind == TypeKind.Interface ? "it is an interface: the generator cannot know what type to make"
                : named.IsAbstract ? "it is an abstract class: the generator cannot know what type to make"
                : named.IsRefLikeType ? "it is a ref struct"
                : "it is not a class, record or struct";
            return null;
        }

        return Object(named, within, out why);
    }

    private static bool IsNullable(INamedTypeSymbol type, out INamedTypeSymbol? inner)
    {
        inner = type.OriginalDefinition.SpecialType == SpecialType.System_Nullable_T ? type.TypeArguments[0] as INamedTypeSymbol : null;
        return inner is not null;
    }

    /// <summary>
    /// <c>Query&lt;Point?&gt;</c>: the struct's own shape and <c>AddNullableRow</c>, so the runtime maps the struct and wraps it,
    /// as its compiled mapper does; and the one-column reads of <c>Point?</c> too, for a struct read by a type handler.
    /// </summary>
    private static ShapeSource? NullableRow(INamedTypeSymbol type, INamedTypeSymbol inner, IAssemblySymbol within, out string? why)
    {
        why = null;
        if (inner.IsTupleType)
        {
            why = "it is a nullable value tuple";
            return null;
        }

        if (Shapes.Framework(inner))
            return null;
        if (Object(inner, within, out why) is not { } row)
        {
            why = $"its struct {inner.Name} gets no shape: {why}";
            return null;
        }

        string name = Shapes.Name(inner);
        var code = new StringBuilder();
        code.Line("private static void $NAME$()")
            .Line("{")
            .Line("    $NAME$_Row();")
            .Line($"    {S}ShapeRegistry.AddNullableRow<{name}>();")
            .Line($"    {S}ShapeRegistry.AddScalar<{name}?>({Shapes.Value(type)});")
            .Line("}")
            .Append(row.Code.Replace("$NAME$", "$NAME$_Row"));
        return new ShapeSource("row " + Shapes.Name(type), code.ToString());
    }

    /// <summary>Read from one column, as the runtime's ScalarTypes: primitives, string, decimal, enums, the date and time types,
    /// Guid, and any of them in <c>Nullable&lt;&gt;</c> (object is a dynamic row, not a scalar; a nullable struct of another kind
    /// is a row, <see cref="NullableRow"/>).</summary>
    public static bool IsScalar(INamedTypeSymbol type) =>
        IsNullable(type, out INamedTypeSymbol? inner) ? IsScalar(inner!)
        : type.SpecialType != SpecialType.None || type.TypeKind == TypeKind.Enum
        || type.ContainingNamespace?.ToDisplayString() == "System"
            && type.Name is "DateTimeOffset" or "DateOnly" or "TimeOnly" or "TimeSpan" or "Guid";

    /// <summary>A one-column row: its reads (the runtime applies the column rules, as for a member of that type).</summary>
    private static ShapeSource? Scalar(INamedTypeSymbol type)
    {
        if (type.OriginalDefinition.SpecialType == SpecialType.System_Nullable_T && type.TypeArguments[0] is not INamedTypeSymbol)
            return null;
        string name = Shapes.Name(type);
        var code = new StringBuilder();
        code.Line("private static void $NAME$() =>")
            .Line($"    {S}ShapeRegistry.AddScalar<{name}>({Shapes.Value(type)});");
        return new ShapeSource("scalar " + name, code.ToString());
    }

    /// <summary>A type a call names by <c>typeof</c>: its run-time row type registered, so none is made by reflection.</summary>
    public static ShapeSource? RuntimeRow(ITypeSymbol type, IAssemblySymbol within)
    {
        if (type is not INamedTypeSymbol named || named.IsUnboundGenericType || named.IsStatic || !Shapes.Nameable(named, within))
            return null;
        string name = Shapes.Name(named);
        var code = new StringBuilder();
        code.Line("private static void $NAME$() =>")
            .Line($"    {S}ShapeRegistry.AddRuntimeRow<{name}>();");
        return new ShapeSource("runtime " + name, code.ToString());
    }

    private static ShapeSource? Tuple(INamedTypeSymbol tuple)
    {
        string name = Shapes.Name(tuple);
        var elements = tuple.TupleElements;
        var values = string.Join(", ", elements.Select(e => Shapes.Value(e.Type)));
        var gets = elements.Select((e, i) => $"a.Get<{Shapes.Name(e.Type)}>({i})").ToList();
        string create = gets.Count == 1 ? $"new {name}({gets[0]})" : $"({string.Join(", ", gets)})";
        var code = new StringBuilder();
        code.Line("private static void $NAME$() =>")
            .Line($"    {S}ShapeRegistry.AddRow({S}ShapeRegistry.TupleShape<{name}>(")
            .Line($"        new {S}ShapeValue[] {{ {values} }},")
            .Line($"        static a => {create}));");
        return new ShapeSource("row " + name, code.ToString());
    }

    private static ShapeSource? Object(INamedTypeSymbol type, IAssemblySymbol within, out string? why)
    {
        why = null;
        bool isStruct = type.TypeKind == TypeKind.Struct;
        bool generic = type.IsGenericType || type.ContainingType is not null && type.ContainingType.IsGenericType;
        string name = Shapes.Name(type);
        var code = new StringBuilder();
        var accessors = new StringBuilder();
        var constructors = new List<string>();
        var members = new List<string>();
        if (type.GetMembers().Any(m => m is IPropertySymbol { IsRequired: true } or IFieldSymbol { IsRequired: true }))
        {
            why = "it has required members, which generated code cannot leave unset when it calls the constructor";
            return null;
        }

        IMethodSymbol[] publicConstructors = [.. type.InstanceConstructors.Where(c => c.DeclaredAccessibility == Accessibility.Public)];
        bool parameterless = isStruct || publicConstructors.Any(c => c.Parameters.Length == 0);
        if (parameterless)
        {
            constructors.Add($"new {S}ShapeConstructor<{name}>(new {S}ShapeParameter[0], static _ => new {name}())");
        }
        else
        {
            foreach (IMethodSymbol constructor in publicConstructors)
            {
                if (constructor.Parameters.FirstOrDefault(p => p.RefKind != RefKind.None || !Shapes.Nameable(p.Type, within)) is { } bad)
                {
                    why = $"its constructor parameter '{bad.Name}' is by reference or of a type generated code cannot name";
                    return null;
                }

                string parameters = string.Join(", ", constructor.Parameters.Select(p =>
                    $"new {S}ShapeParameter({Shapes.Literal(p.Name)}, {Shapes.Value(p.Type)})"));
                string arguments = string.Join(", ", constructor.Parameters.Select((p, i) => $"a.Get<{Shapes.Name(p.Type)}>({i})"));
                constructors.Add($"new {S}ShapeConstructor<{name}>(new {S}ShapeParameter[] {{ {parameters} }}, " +
                    $"static a => new {name}({arguments}))");
            }
        }

        string hidden = "null";
        if (!parameterless
            && type.InstanceConstructors.Any(c => c.Parameters.Length == 0 && c.DeclaredAccessibility != Accessibility.Public))
        {
            if (generic)
            {
                why = "it is generic and its parameterless constructor is not public (an accessor cannot reach it)";
                return null;
            }

            accessors.Line(Accessor + "Constructor)]")
                .Line($"private static extern {name} $NAME$_New();");
            hidden = "$NAME$_New";
        }

        var (properties, fields) = Shapes.PublicMembers(type);
        int n = 0;
        foreach (IPropertySymbol property in properties)
        {
            if (!Shapes.Nameable(property.Type, within))
            {
                why = $"generated code cannot name the type of its property {property.Name}";
                return null;
            }

            string valueType = Shapes.Name(property.Type);
            string? set = Setter(property, type, within, isStruct, generic, accessors, valueType, ref n);
            if (set == "skip")
                continue;
            if (set is null)
            {
                why = generic
                    ? $"it is generic and its property {property.Name} needs an accessor (an init or non-public setter, get-only)"
                    : $"its get-only property {property.Name} is declared in another assembly, whose backing field cannot be told";
                return null;
            }

            members.Add(Member(name, property.Name, property.Type, set));
        }

        foreach (IFieldSymbol field in fields)
        {
            if (!Shapes.Nameable(field.Type, within))
            {
                why = $"generated code cannot name the type of its field {field.Name}";
                return null;
            }

            string valueType = Shapes.Name(field.Type);
            string set;
            if (!field.IsReadOnly && !field.IsConst)
            {
                set = $"static ({name} t, {valueType} v) => {{ t.{Shapes.Escape(field.Name)} = v; return t; }}";
            }
            else
            {
                if (generic || field.IsConst)
                {
                    why = $"it is generic and its readonly field {field.Name} needs an accessor";
                    return null;
                }

                string accessor = FieldAccessor(accessors, field.ContainingType, field.Name, valueType, isStruct, ref n);
                set = $"static ({name} t, {valueType} v) => {{ {accessor}({(isStruct ? "ref " : "")}t) = v; return t; }}";
            }

            members.Add(Member(name, field.Name, field.Type, set));
        }

        code.Line("private static void $NAME$() =>")
            .Line($"    {S}ShapeRegistry.AddRow({S}ShapeRegistry.ObjectShape<{name}>(")
            .Line($"        new {S}ShapeConstructor<{name}>[] {{ {string.Join(", ", constructors)} }},")
            .Line($"        new {S}ShapeMember<{name}>[]")
            .Line("        {");
        foreach (string member in members)
            code.Line($"            {member},");
        code.Line("        },")
            .Line($"        {hidden}));")
            .Append(accessors);
        return new ShapeSource("row " + name, code.ToString());
    }

    private static string Member(string owner, string name, ITypeSymbol type, string set)
    {
        string value = type is INamedTypeSymbol { OriginalDefinition.SpecialType: SpecialType.System_Nullable_T }
            ? ", " + Shapes.Value(type)
            : "";
        return $"{S}ShapeRegistry.Member<{owner}, {Shapes.Name(type)}>({Shapes.Literal(name)}, {set}{value})";
    }

    /// <summary>The setter lambda of a property; "skip" when a column never sets it; null when it cannot be written.</summary>
    private static string? Setter(
        IPropertySymbol property, INamedTypeSymbol type, IAssemblySymbol within, bool isStruct, bool generic, StringBuilder accessors,
        string valueType, ref int n)
    {
        string name = Shapes.Name(type);
        string target = isStruct ? "ref t" : "t";
        if (property.SetMethod is { } setter)
        {
            if (!setter.IsInitOnly && Shapes.Visible(setter.DeclaredAccessibility, property.ContainingAssembly, within))
                return $"static ({name} t, {valueType} v) => {{ t.{Shapes.Escape(property.Name)} = v; return t; }}";
            if (generic)
                return null;
            string accessor = $"$NAME$_Set{n++}";
            string owner = Shapes.Name(property.ContainingType);
            accessors.Line(Accessor + "Method, " +
                    $"Name = {Shapes.Literal(setter.Name)})]")
                .Line($"private static extern void {accessor}({(isStruct ? "ref " : "")}{owner} target, {valueType} value);");
            return $"static ({name} t, {valueType} v) => {{ {accessor}({target}, v); return t; }}";
        }

        if (property.GetMethod?.DeclaredAccessibility != Accessibility.Public)
            return "skip";
        bool? auto = IsAutoProperty(property);
        if (auto is null || generic)
            return null;
        if (auto == false)
            return "skip";
        string field = FieldAccessor(accessors, property.ContainingType, $"<{property.Name}>k__BackingField", valueType, isStruct, ref n);
        return $"static ({name} t, {valueType} v) => {{ {field}({target}) = v; return t; }}";
    }

    private static string FieldAccessor(
        StringBuilder accessors, INamedTypeSymbol owner, string field, string valueType, bool isStruct, ref int n)
    {
        string accessor = $"$NAME$_Field{n++}";
        accessors.Line(Accessor + "Field, " +
                $"Name = {Shapes.Literal(field)})]")
            .Line($"private static extern ref {valueType} {accessor}({(isStruct ? "ref " : "")}{Shapes.Name(owner)} target);");
        return accessor;
    }

    /// <summary>True for a get-only auto-property (<c>{ get; }</c>), false for a computed one, null when it cannot be told
    /// (a type from another assembly whose private fields the compilation does not see).</summary>
    private static bool? IsAutoProperty(IPropertySymbol property)
    {
        if (property.DeclaringSyntaxReferences.Length == 0)
        {
            return property.ContainingType.GetMembers().OfType<IFieldSymbol>().Any(f => f.Name == $"<{property.Name}>k__BackingField")
                ? true
                : null;
        }

        foreach (SyntaxReference reference in property.DeclaringSyntaxReferences)
        {
            if (reference.GetSyntax() is PropertyDeclarationSyntax { ExpressionBody: null, AccessorList: { } list }
                && list.Accessors.All(a => a.Body is null && a.ExpressionBody is null))
            {
                return true;
            }
        }

        return false;
    }

}
