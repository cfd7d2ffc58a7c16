using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Orseis.Analyzers;

/// <summary>
/// ORS0002: in a project published with Native AOT or trimmed (the SDK's trim or AOT analyzer on), an Orseis call whose row
/// type, argument type, run-time <c>Type</c> or output member gets no generated shape. Under the JIT Orseis compiles what has
/// no shape at its first call; native, it cannot, and the call throws <c>NotSupportedException</c>. The warning says so at the
/// call, at build time, naming the type and why the generator could not describe it (the rules of <see cref="RowShapes"/>,
/// <see cref="ArgumentShapes"/> and <see cref="OutputShapes"/>: the same code that writes the shapes decides).
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class NoShapeAnalyzer : DiagnosticAnalyzer
{
    /// <summary>The rule's id.</summary>
    public const string Id = "ORS0002";

    private const string RowCure =
        "Use a row type the generator can describe (a class, record or struct your code can name, without required members), " +
        "or read the rows as DynamicRow";

    private const string ArgumentCure =
        "Pass a type the generator can describe (an anonymous object, or a class, record or struct your code can name), " +
        "a dictionary or a ParameterBag";

    private const string OutputCure =
        "Give the member a setter your code can call (public or internal; an init or private one only on a type that is not " +
        "generic), or read the value with ParameterBag.Get after the call";

    private const string TypeCure =
        "Name the row type at the call (Query<T>, or typeof(T) written in the call), or read the rows as DynamicRow";

    /// <summary>The MSBuild properties that say the project is published native or trimmed.</summary>
    private static readonly string[] NativeProperties = ["EnableAotAnalyzer", "EnableTrimAnalyzer", "PublishAot", "PublishTrimmed"];

    private static readonly DiagnosticDescriptor Rule = new(
        Id,
        "No generated shape: the call fails at run time under Native AOT",
        "{0} gets no generated shape ({1}), so under Native AOT or trimming this call throws NotSupportedException at run time. {2}.",
        "Usage",
        DiagnosticSeverity.Warning,
        isEnabledByDefault: true,
        helpLinkUri: "https://github.com/orseis/orseis/blob/main/docs/aot.md#ors0002-no-generated-shape",
        customTags: WellKnownDiagnosticTags.CompilationEnd); // a row type's warning waits for the compilation's type handlers

    /// <inheritdoc />
    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics => ImmutableArray.Create(Rule);

    /// <inheritdoc />
    public override void Initialize(AnalysisContext context)
    {
        context.ConfigureGeneratedCodeAnalysis(GeneratedCodeAnalysisFlags.None);
        context.EnableConcurrentExecution();
        context.RegisterCompilationStartAction(start =>
        {
            if (!Native(start.Options.AnalyzerConfigOptionsProvider.GlobalOptions))
                return;
            var run = new Run();
            start.RegisterOperationAction(run.Analyze, OperationKind.Invocation);
            start.RegisterCompilationEndAction(run.End);
        });
    }

    /// <summary>True when the project is published native or trimmed: the SDK turns its AOT or trim analyzer on then (and for a
    /// library that says it is AOT-compatible or trimmable), and makes those properties visible to analyzers.</summary>
    private static bool Native(AnalyzerConfigOptions options) =>
        NativeProperties.Any(name =>
            options.TryGetValue("build_property." + name, out string? value)
            && string.Equals(value?.Trim(), "true", StringComparison.OrdinalIgnoreCase));

    /// <summary>
    /// One compilation's analysis: each call's warnings, but a row type's, which wait for the end (a type handler registered
    /// anywhere in the compilation silences them: <see cref="HandledTypes"/>).
    /// </summary>
    private sealed class Run
    {
        private readonly ConcurrentBag<ITypeSymbol> _handled = new();
        private readonly ConcurrentBag<(ITypeSymbol Row, Diagnostic Warning)> _rows = new();

        public void Analyze(OperationAnalysisContext context)
        {
            var invocation = (IInvocationOperation)context.Operation;
            IMethodSymbol method = invocation.TargetMethod;
            if (!Shapes.IsOrseis(method.ContainingType) || invocation.Syntax is not InvocationExpressionSyntax syntax
                || invocation.SemanticModel is not { } model)
            {
                return;
            }

            IAssemblySymbol within = model.Compilation.Assembly;
            if (HandledTypes.IsRegistration(method))
            {
                if (HandledTypes.Of(method, within) is { } handled)
                    _handled.Add(handled);
                return;
            }

            Location at = syntax.Expression is MemberAccessExpressionSyntax access ? access.Name.GetLocation() : syntax.GetLocation();
            if (OutputShapes.IsOutput(method))
            {
                if (OutputShapes.Of(method, syntax, model, context.CancellationToken, out string? why) is null && why is not null)
                    Report(context, at, $"The output member of {Describe(method.TypeArguments[0])}", why, OutputCure);
                return;
            }

            if (IsRowCall(method))
            {
                for (int i = 0; i < method.TypeArguments.Length; i++)
                {
                    ITypeSymbol row = method.TypeArguments[i];
                    if (method.OriginalDefinition.TypeParameters[i].Name != "TResult"
                        && RowShapes.Of(row, within, out string? why) is null && why is not null)
                    {
                        Row(context, row, Diagnostic.Create(Rule, at, $"Row type {Describe(row)}", why, RowCure));
                    }
                }
            }

            foreach (IArgumentOperation argument in invocation.Arguments)
            {
                if (argument.Parameter is not { } parameter || argument.ArgumentKind == ArgumentKind.DefaultValue)
                    continue;
                if (Shapes.IsTypes(parameter.Type))
                    Types(context, argument, within);
                else if (parameter is { Name: "args", Type.SpecialType: SpecialType.System_Object })
                    Arguments(context, argument, within);
            }
        }

        /// <summary>The row types' warnings, but for the types the compilation registers a type handler for.</summary>
        public void End(CompilationAnalysisContext context)
        {
            var handled = new HashSet<ITypeSymbol>(_handled, SymbolEqualityComparer.Default);
            foreach ((ITypeSymbol row, Diagnostic warning) in _rows)
            {
                if (!HandledTypes.Covers(handled, row))
                    context.ReportDiagnostic(warning);
            }
        }

        /// <summary>A row type's warning: at once for a type parameter (no handler can be told), else at the end.</summary>
        private void Row(OperationAnalysisContext context, ITypeSymbol row, Diagnostic warning)
        {
            if (row is ITypeParameterSymbol)
                context.ReportDiagnostic(warning);
            else
                _rows.Add((row, warning));
        }

        /// <summary>
        /// A row type given as a <c>Type</c>: each <c>typeof</c> in the argument, or the argument itself when it has none.
        /// </summary>
        private void Types(OperationAnalysisContext context, IArgumentOperation argument, IAssemblySymbol within)
        {
            TypeOfExpressionSyntax[] named = [.. argument.Value.Syntax.DescendantNodesAndSelf().OfType<TypeOfExpressionSyntax>()];
            if (named.Length == 0)
            {
                Report(context, argument.Syntax.GetLocation(), "The row type of this call",
                    "it is a run-time Type, so the generator sees no type at this call", TypeCure);
                return;
            }

            foreach (TypeOfExpressionSyntax type in named)
            {
                if (argument.SemanticModel?.GetTypeInfo(type.Type, context.CancellationToken).Type is { } row
                    && RowShapes.Of(row, within, out string? why) is null && why is not null)
                {
                    Row(context, row, Diagnostic.Create(Rule, type.GetLocation(), $"Row type {Describe(row)}", why, TypeCure));
                }
            }
        }

        private static void Arguments(OperationAnalysisContext context, IArgumentOperation argument, IAssemblySymbol within)
        {
            IOperation value = argument.Value is IConversionOperation { IsImplicit: true } conversion ? conversion.Operand : argument.Value;
            ITypeSymbol? type = value.Type is IArrayTypeSymbol array ? array.ElementType : value.Type; // execute-many: each item
            if (type is not null && ArgumentShapes.Of(type, within, out string? why) is null && why is not null)
                Report(context, argument.Syntax.GetLocation(), $"Argument type {Describe(type)}", why, ArgumentCure);
        }
    }

    /// <summary>The calls that map rows to their type arguments: Query*, Read* (a grid), Stream*, RowParser.</summary>
    private static bool IsRowCall(IMethodSymbol method) =>
        method.TypeArguments.Length > 0
        && (method.Name.StartsWith("Query", StringComparison.Ordinal) || method.Name.StartsWith("Read", StringComparison.Ordinal)
            || method.Name.StartsWith("Stream", StringComparison.Ordinal) || method.Name == "RowParser");

    private static string Describe(ITypeSymbol type) =>
        type.WithNullableAnnotation(NullableAnnotation.NotAnnotated).ToDisplayString(SymbolDisplayFormat.CSharpErrorMessageFormat);

    private static void Report(OperationAnalysisContext context, Location location, string what, string why, string cure) =>
        context.ReportDiagnostic(Diagnostic.Create(Rule, location, what, why, cure));
}
