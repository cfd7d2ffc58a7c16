using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace Orseis.Analyzers;

/// <summary>
/// The output member of a <c>ParameterBag.Output(target, x =&gt; x.Address.Id)</c> call: the chain's reads and the last
/// member's typed read and write, registered by path (<c>Address.Id</c>) for the lambda's target type, so the runtime's
/// OutputMember finds them instead of compiling a setter. A lambda the runtime refuses (not a member chain, a member that
/// cannot be set, a struct in the chain) gets nothing: the runtime's own error stays the answer.
/// </summary>
internal static class OutputShapes
{
    private const string Accessor = "[global::System.Runtime.CompilerServices.UnsafeAccessor(" +
        "global::System.Runtime.CompilerServices.UnsafeAccessorKind.Method, Name = ";

    /// <summary>True for <c>ParameterBag.Output&lt;T&gt;</c>.</summary>
    public static bool IsOutput(IMethodSymbol method) =>
        method is { Name: "Output", TypeArguments.Length: 1, ContainingType.Name: "ParameterBag" };

    /// <summary>The output member of the call; when there is none, <paramref name="why"/> says why (null when the runtime refuses
    /// the lambda anyway, or no lambda is written at the call).</summary>
    public static ShapeSource? Of(
        IMethodSymbol method, InvocationExpressionSyntax invocation, SemanticModel model, CancellationToken token, out string? why)
    {
        why = null;
        ITypeSymbol target = method.TypeArguments[0];
        ArgumentSyntax? argument = invocation.ArgumentList.Arguments
            .FirstOrDefault(a => Shapes.Parameter(method, invocation, a)?.Name == "member");
        if (argument?.Expression is not LambdaExpressionSyntax { Body: ExpressionSyntax body } lambda)
            return null;
        string? parameter = lambda switch
        {
            SimpleLambdaExpressionSyntax simple => simple.Parameter.Identifier.ValueText,
            ParenthesizedLambdaExpressionSyntax { ParameterList.Parameters.Count: 1 } list =>
                list.ParameterList.Parameters[0].Identifier.ValueText,
            _ => null,
        };
        var chain = new List<ISymbol>();
        ExpressionSyntax at = Bare(body);
        if (at is CastExpressionSyntax cast && model.GetTypeInfo(cast.Type, token).Type?.SpecialType == SpecialType.System_Object)
            at = Bare(cast.Expression);
        while (at is MemberAccessExpressionSyntax access && model.GetSymbolInfo(access, token).Symbol is IPropertySymbol or IFieldSymbol)
        {
            chain.Insert(0, model.GetSymbolInfo(access, token).Symbol!);
            at = Bare(access.Expression);
        }

        if (parameter is null || chain.Count == 0 || at is not IdentifierNameSyntax { Identifier.ValueText: var root } || root != parameter)
            return null;
        IAssemblySymbol within = model.Compilation.Assembly;
        if (target is ITypeParameterSymbol)
        {
            why = "its target is a type parameter, so the generator sees no type at this call";
            return null;
        }

        if (!Shapes.Nameable(target, within))
        {
            why = "generated code cannot name its target type";
            return null;
        }

        return Emit(target, chain, within, out why);
    }

    private static ShapeSource? Emit(ITypeSymbol target, List<ISymbol> chain, IAssemblySymbol within, out string? why)
    {
        why = null;
        var owners = new List<string>();
        ITypeSymbol owner = target;
        for (int i = 0; i < chain.Count; i++)
        {
            ISymbol member = chain[i];
            ITypeSymbol type = member is IPropertySymbol p ? p.Type : ((IFieldSymbol)member).Type;
            if (i < chain.Count - 1 && !type.IsReferenceType)
                return null; // the runtime refuses a struct in the chain
            if (!Shapes.Visible(member.DeclaredAccessibility, member.ContainingAssembly, within) || !Shapes.Nameable(type, within)
                || member is IPropertySymbol { GetMethod: var get } && (get is null
                    || !Shapes.Visible(get.DeclaredAccessibility, member.ContainingAssembly, within)))
            {
                why = $"generated code cannot read member {member.Name} (it, its getter or its type is not accessible)";
                return null;
            }

            if (i < chain.Count - 1)
                owners.Add($"static o => ((({Shapes.Name(owner)})o).{Shapes.Escape(member.Name)})");
            owner = i < chain.Count - 1 ? type : owner;
        }

        ISymbol last = chain[chain.Count - 1];
        ITypeSymbol valueType = last is IPropertySymbol lp ? lp.Type : ((IFieldSymbol)last).Type;
        string ownerName = Shapes.Name(owner);
        string valueName = Shapes.Name(valueType);
        string memberName = Shapes.Escape(last.Name);
        var accessors = new StringBuilder();
        string write;
        if (last is IFieldSymbol field)
        {
            if (field.IsReadOnly || field.IsConst)
                return null; // the runtime refuses it
            write = $"static (o, v) => (({ownerName})o).{memberName} = v";
        }
        else if (((IPropertySymbol)last).SetMethod is not { } setter)
        {
            return null; // the runtime refuses it
        }
        else if (!setter.IsInitOnly && Shapes.Visible(setter.DeclaredAccessibility, last.ContainingAssembly, within))
        {
            write = $"static (o, v) => (({ownerName})o).{memberName} = v";
        }
        else if (last.ContainingType is { IsGenericType: false, ContainingType: null or { IsGenericType: false } } declaring
            && Shapes.Nameable(declaring, within))
        {
            accessors.Line(Accessor + $"{Shapes.Literal(setter.Name)})]")
                .Line($"private static extern void $NAME$_Set({Shapes.Name(declaring)} target, {valueName} value);");
            write = $"static (o, v) => $NAME$_Set(({ownerName})o, v)";
        }
        else
        {
            why = $"its owner is generic and the setter of {last.Name} is init-only or not accessible (an accessor cannot reach it)";
            return null;
        }

        string path = string.Join(".", chain.Select(m => m.Name));
        var code = new StringBuilder();
        code.Line("private static void $NAME$() =>")
            .Line($"    global::Orseis.Shapes.ShapeRegistry.AddOutput<{Shapes.Name(target)}, {valueName}>({Shapes.Literal(path)},")
            .Line($"        new global::System.Func<object, object>[] {{ {string.Join(", ", owners)} }},")
            .Line($"        static o => (({ownerName})o).{memberName},")
            .Line($"        {write});")
            .Append(accessors);
        return new ShapeSource($"output {Shapes.Name(target)}:{path}", code.ToString());
    }

    /// <summary>The expression without parentheses and <c>!</c> (neither is in the expression tree the runtime reads).</summary>
    private static ExpressionSyntax Bare(ExpressionSyntax expression)
    {
        while (true)
        {
            if (expression is ParenthesizedExpressionSyntax parenthesized)
                expression = parenthesized.Expression;
            else if (expression is PostfixUnaryExpressionSyntax { RawKind: (int)SyntaxKind.SuppressNullableWarningExpression } bang)
                expression = bang.Operand;
            else
                return expression;
        }
    }
}
