using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Orseis.Analyzers;

/// <summary>
/// ORS0001: an interpolated string whose holes are all constants (<c>$"... where name = {"Grace"}"</c>) passed as an Orseis
/// call's SQL. C# makes it a constant string, so the call binds to the <c>string</c> overload and the holes are spliced into
/// the SQL as text, where an interpolated call would have sent each hole as a parameter.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class ConstantInterpolatedSqlAnalyzer : DiagnosticAnalyzer
{
    /// <summary>The rule's id.</summary>
    public const string Id = "ORS0001";

    private static readonly DiagnosticDescriptor Rule = new(
        Id,
        "Constant interpolated SQL: its holes are text, not parameters",
        "The interpolated SQL has only constant holes ({0}), so C# makes it one constant string: the string overload runs and the " +
        "holes are written into the SQL as text, not sent as parameters. Hold the value in a variable (a hole that is not " +
        "constant is sent as a parameter) or pass it in args; if text is what you mean, write it into the SQL literally.",
        "Usage",
        DiagnosticSeverity.Warning,
        isEnabledByDefault: true,
        helpLinkUri: "https://github.com/orseis/orseis/blob/main/docs/aot.md#ors0001-constant-interpolated-sql");

    /// <inheritdoc />
    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics => ImmutableArray.Create(Rule);

    /// <inheritdoc />
    public override void Initialize(AnalysisContext context)
    {
        context.ConfigureGeneratedCodeAnalysis(GeneratedCodeAnalysisFlags.None);
        context.EnableConcurrentExecution();
        context.RegisterOperationAction(Analyze, OperationKind.Argument);
    }

    private static void Analyze(OperationAnalysisContext context)
    {
        var argument = (IArgumentOperation)context.Operation;
        if (argument.Parameter is not { Name: "sql", Type.SpecialType: SpecialType.System_String } parameter
            || !IsOrseis(parameter.ContainingType))
        {
            return;
        }

        SyntaxNode value = argument.Value.Syntax;
        while (value is ParenthesizedExpressionSyntax parenthesized)
            value = parenthesized.Expression;
        if (value is not InterpolatedStringExpressionSyntax interpolated || !argument.Value.ConstantValue.HasValue)
            return;
        string[] holes = [.. interpolated.Contents.OfType<InterpolationSyntax>().Select(h => h.Expression.ToString())];
        if (holes.Length == 0)
            return;
        context.ReportDiagnostic(Diagnostic.Create(Rule, interpolated.GetLocation(), string.Join(", ", holes)));
    }

    private static bool IsOrseis(INamedTypeSymbol? type) => type?.ContainingAssembly?.Name == "Orseis";
}
