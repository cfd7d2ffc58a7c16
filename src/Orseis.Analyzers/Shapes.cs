using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using System.Text;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace Orseis.Analyzers;

/// <summary>The shapes one invocation of an Orseis method needs: its row type arguments and its <c>args</c> argument's type.</summary>
internal static class Shapes
{
    private static readonly SymbolDisplayFormat Full = SymbolDisplayFormat.FullyQualifiedFormat
        .WithMiscellaneousOptions(
            SymbolDisplayMiscellaneousOptions.UseSpecialTypes | SymbolDisplayMiscellaneousOptions.EscapeKeywordIdentifiers);

    public static ImmutableArray<ShapeSource> Of(InvocationExpressionSyntax invocation, SemanticModel model, CancellationToken token)
    {
        if (model.GetSymbolInfo(invocation, token).Symbol is not IMethodSymbol method || !IsOrseis(method.ContainingType))
            return ImmutableArray<ShapeSource>.Empty;
        var found = ImmutableArray.CreateBuilder<ShapeSource>();
        IAssemblySymbol within = model.Compilation.Assembly;
        if (OutputShapes.IsOutput(method))
        {
            if (OutputShapes.Of(method, invocation, model, token, out _) is { } output)
                found.Add(output);
            return found.ToImmutable();
        }

        if (HandledTypes.IsRegistration(method))
        {
            // OrseisOptions.AddTypeHandler<T>: T's one-column reads, which the handler serves.
            if (HandledTypes.Of(method, within) is { } handled)
                found.Add(HandledTypes.Reads(handled));
            return found.ToImmutable();
        }

        foreach (ITypeSymbol argument in method.TypeArguments)
        {
            if (RowShapes.Of(argument, within) is { } row)
                found.Add(row);
        }

        foreach (ArgumentSyntax argument in invocation.ArgumentList.Arguments)
        {
            IParameterSymbol? parameter = Parameter(method, invocation, argument);
            if (parameter is not null && IsTypes(parameter.Type))
            {
                // Query(typeof(User), ...), Read(typeof(User)), multi-mapping by new[] { typeof(A), typeof(B) }.
                foreach (TypeOfExpressionSyntax named in argument.Expression.DescendantNodesAndSelf().OfType<TypeOfExpressionSyntax>())
                {
                    if (model.GetTypeInfo(named.Type, token).Type is not { } rowType)
                        continue;
                    if (RowShapes.RuntimeRow(rowType, within) is { } runtime)
                        found.Add(runtime);
                    if (RowShapes.Of(rowType, within) is { } row)
                        found.Add(row);
                }
            }

            if (parameter is not { Name: "args", Type.SpecialType: SpecialType.System_Object })
                continue;
            ITypeSymbol? type = model.GetTypeInfo(argument.Expression, token).Type;
            if (type is IArrayTypeSymbol array)
                type = array.ElementType; // execute-many: one statement per item
            if (type is not null && ArgumentShapes.Of(type, within) is { } shape)
                found.Add(shape);
        }

        return found.ToImmutable();
    }

    /// <summary>Why a type parameter gets no shape: the generator sees no type at the call.</summary>
    public const string TypeParameterWhy = "it is a type parameter, so the generator sees no type at this call";

    /// <summary>Whether a parameter takes row types as <c>Type</c> values (a <c>Type</c>, or an array of them).</summary>
    public static bool IsTypes(ITypeSymbol type) =>
        type is IArrayTypeSymbol array ? IsTypes(array.ElementType) : type.ToDisplayString() == "System.Type";

    /// <summary>Whether <paramref name="type"/> is the framework's or Orseis' own, which the runtime reads without a shape.</summary>
    public static bool Framework(INamedTypeSymbol type) =>
        type.ContainingNamespace?.ToDisplayString() is { } ns && (ns == "System" || ns.StartsWith("System.") || ns == "Orseis");

    /// <summary>The parameter an argument of the call is for (by name, or by position).</summary>
    public static IParameterSymbol? Parameter(IMethodSymbol method, InvocationExpressionSyntax invocation, ArgumentSyntax argument)
    {
        if (argument.NameColon is { } named)
            return method.Parameters.FirstOrDefault(p => p.Name == named.Name.Identifier.ValueText);
        int position = invocation.ArgumentList.Arguments.IndexOf(argument);
        return position < method.Parameters.Length ? method.Parameters[position] : null;
    }

    public static bool IsOrseis(INamedTypeSymbol? type)
    {
        INamespaceSymbol? ns = type?.ContainingNamespace;
        while (ns is { ContainingNamespace.IsGlobalNamespace: false })
            ns = ns.ContainingNamespace;
        return ns?.Name == "Orseis" && type!.ContainingAssembly?.Name == "Orseis";
    }

    /// <summary>The type's name in generated code, without nullable reference annotations.</summary>
    public static string Name(ITypeSymbol type) => type.WithNullableAnnotation(NullableAnnotation.NotAnnotated).ToDisplayString(Full);

    /// <summary>True when generated code in <paramref name="within"/> can name <paramref name="type"/> (and its type arguments).</summary>
    public static bool Nameable(ITypeSymbol type, IAssemblySymbol within)
    {
        switch (type)
        {
            case IArrayTypeSymbol array:
                return Nameable(array.ElementType, within);
            case INamedTypeSymbol named:
                if (named.IsAnonymousType || named.TypeKind == TypeKind.Error)
                    return false;
                for (INamedTypeSymbol? t = named; t is not null; t = t.ContainingType)
                {
                    if (!Visible(t.DeclaredAccessibility, t.ContainingAssembly, within))
                        return false;
                }

                return named.TypeArguments.All(a => Nameable(a, within));
            default:
                return false;
        }
    }

    public static bool Visible(Accessibility accessibility, IAssemblySymbol? owner, IAssemblySymbol within) => accessibility switch
    {
        Accessibility.Public => true,
        Accessibility.Internal or Accessibility.ProtectedOrInternal => SymbolEqualityComparer.Default.Equals(owner, within)
            || (owner?.GivesAccessTo(within) ?? false),
        _ => false,
    };

    /// <summary><c>ShapeValue.Of&lt;T&gt;()</c>, or <c>ShapeValue.Nullable&lt;T&gt;()</c> for <c>T?</c>.</summary>
    public static string Value(ITypeSymbol type) =>
        type is INamedTypeSymbol { OriginalDefinition.SpecialType: SpecialType.System_Nullable_T } nullable
            ? $"global::Orseis.Shapes.ShapeValue.Nullable<{Name(nullable.TypeArguments[0])}>()"
            : $"global::Orseis.Shapes.ShapeValue.Of<{Name(type)}>()";

    /// <summary>An identifier as generated code writes it: <c>@class</c> for a keyword.</summary>
    public static string Escape(string name) =>
        Microsoft.CodeAnalysis.CSharp.SyntaxFacts.GetKeywordKind(name) != Microsoft.CodeAnalysis.CSharp.SyntaxKind.None ? "@" + name : name;

    /// <summary>A C# string literal.</summary>
    public static string Literal(string text) => "\"" + text.Replace("\\", "\\\\").Replace("\"", "\\\"") + "\"";

    /// <summary>The public instance properties (not indexers) and fields of <paramref name="type"/> and its bases, as reflection
    /// lists them: properties of the type itself before those of its bases, a property hidden by name left out; then fields.</summary>
    public static (List<IPropertySymbol> Properties, List<IFieldSymbol> Fields) PublicMembers(INamedTypeSymbol type)
    {
        var properties = new List<IPropertySymbol>();
        var fields = new List<IFieldSymbol>();
        var names = new HashSet<string>();
        var fieldNames = new HashSet<string>();
        for (INamedTypeSymbol? t = type; t is not null && t.SpecialType != SpecialType.System_Object; t = t.BaseType)
        {
            foreach (ISymbol member in t.GetMembers())
            {
                if (member.IsStatic || member.IsImplicitlyDeclared && member is not IPropertySymbol)
                    continue;
                if (member is IPropertySymbol { IsIndexer: false } property && PublicAccessor(property) && names.Add(property.Name))
                {
                    properties.Add(property);
                }
                else if (member is IFieldSymbol { DeclaredAccessibility: Accessibility.Public, AssociatedSymbol: null } field
                    && fieldNames.Add(field.Name))
                {
                    fields.Add(field);
                }
            }
        }

        return (properties, fields);
    }

    /// <summary>True when reflection lists the property as public (either accessor public).</summary>
    private static bool PublicAccessor(IPropertySymbol property) =>
        property.GetMethod?.DeclaredAccessibility == Accessibility.Public
        || property.SetMethod?.DeclaredAccessibility == Accessibility.Public;

    public static StringBuilder Line(this StringBuilder text, string line) => text.Append("        ").AppendLine(line);
}
