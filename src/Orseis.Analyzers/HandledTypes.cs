using System.Collections.Generic;
using System.Text;
using Microsoft.CodeAnalysis;

namespace Orseis.Analyzers;

/// <summary>
/// Types read through a type handler: <c>OrseisOptions.AddTypeHandler&lt;T&gt;(handler)</c> makes the database read
/// <c>T</c> (and <c>T?</c>) from one column with the handler, never through a row shape. At such a registration the
/// generator writes the one-column reads of <c>T</c> (and of <c>T?</c> for a struct), which a part of a multi-mapped row and
/// a nullable read need under Native AOT (a single <c>T</c> needs none); ORS0002 is silent about a row type the compilation
/// registers a handler for.
/// </summary>
/// <remarks>
/// What the compilation shows is a call of <c>AddTypeHandler</c> with its type known there: a handler registered in another
/// assembly (a library's helper), or through a type parameter, is not seen. Handlers belong to one database and the call may
/// run on another: the registration anywhere in the compilation is what counts.
/// </remarks>
internal static class HandledTypes
{
    /// <summary>True for <c>OrseisOptions.AddTypeHandler&lt;T&gt;</c>.</summary>
    public static bool IsRegistration(IMethodSymbol method) =>
        method is { Name: "AddTypeHandler", TypeArguments.Length: 1, ContainingType: { Name: "OrseisOptions" } owner }
        && Shapes.IsOrseis(owner);

    /// <summary>The type a registration handles, when generated code in <paramref name="within"/> can name it; else null (a type
    /// parameter, a private type).</summary>
    public static INamedTypeSymbol? Of(IMethodSymbol registration, IAssemblySymbol within) =>
        registration.TypeArguments[0] is INamedTypeSymbol { IsUnboundGenericType: false } type && Shapes.Nameable(type, within)
            ? type
            : null;

    /// <summary>The one-column reads of a handled type: <c>T</c>, and <c>T?</c> for a struct.</summary>
    public static ShapeSource Reads(INamedTypeSymbol type)
    {
        string name = Shapes.Name(type);
        var code = new StringBuilder();
        code.Line("private static void $NAME$()")
            .Line("{")
            .Line($"    global::Orseis.Shapes.ShapeRegistry.AddScalar<{name}>({Shapes.Value(type)});");
        if (type.IsValueType && type.OriginalDefinition.SpecialType != SpecialType.System_Nullable_T)
        {
            code.Line($"    global::Orseis.Shapes.ShapeRegistry.AddScalar<{name}?>(" +
                $"global::Orseis.Shapes.ShapeValue.Nullable<{name}>());");
        }

        code.Line("}");
        return new ShapeSource("handled " + name, code.ToString());
    }

    /// <summary>
    /// Whether a row type <paramref name="row"/> is read through a handler the compilation registers (<paramref name="handled"/>,
    /// by <see cref="SymbolEqualityComparer.Default"/>): the type itself, or the struct inside a <c>Nullable&lt;&gt;</c>.
    /// </summary>
    public static bool Covers(HashSet<ITypeSymbol> handled, ITypeSymbol row)
    {
        ITypeSymbol type = row.WithNullableAnnotation(NullableAnnotation.NotAnnotated);
        if (type is INamedTypeSymbol { OriginalDefinition.SpecialType: SpecialType.System_Nullable_T } nullable)
            type = nullable.TypeArguments[0];
        return handled.Contains(type);
    }
}
