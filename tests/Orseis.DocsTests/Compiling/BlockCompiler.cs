using System.Text;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Text;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Compiling;

/// <summary>Compiles a C# block as a reader would build it: one file of top-level statements (plus the types it
/// declares) in a console app, or a library when it has no statement, with the console app's implicit usings, nullable
/// enabled and the latest language version. Its prelude comes first, its <c>using</c> directives and the prelude's are
/// hoisted to the top, the prelude's types go after the block. <c>#line</c> directives map every diagnostic back to the
/// page's own line numbers.</summary>
internal static class BlockCompiler
{
    /// <summary>The console template's implicit usings (Microsoft.NET.Sdk, OutputType Exe).</summary>
    private const string ImplicitUsings = """
        global using global::System;
        global using global::System.Collections.Generic;
        global using global::System.IO;
        global using global::System.Linq;
        global using global::System.Net.Http;
        global using global::System.Threading;
        global using global::System.Threading.Tasks;
        """;

    private static readonly CSharpParseOptions Parse = new(LanguageVersion.Latest);

    private static readonly Lazy<CSharpCompilation> Empty = new(() => CSharpCompilation.Create(
        "DocsBlock",
        [CSharpSyntaxTree.ParseText(ImplicitUsings, Parse, "implicit-usings.cs")],
        BlockReferences.Get(),
        new CSharpCompilationOptions(OutputKind.ConsoleApplication, nullableContextOptions: NullableContextOptions.Enable)));

    /// <summary>The block's errors, each as <c>page:line:column: error CSnnnn: message</c> on the page's lines (a
    /// prelude's as <c>page:line (prelude)</c>). Warnings are not returned: a reader building with the SDK's defaults
    /// (TreatWarningsAsErrors off) sees them and still runs the code.</summary>
    public static IReadOnlyList<string> Errors(CSharpBlock block)
    {
        SyntaxTree tree = CSharpSyntaxTree.ParseText(Source(block), Parse, block.Page, Encoding.UTF8);
        bool hasStatements = tree.GetCompilationUnitRoot().Members.OfType<GlobalStatementSyntax>().Any();
        CSharpCompilation compilation = Empty.Value
            .WithOptions(Empty.Value.Options.WithOutputKind(
                hasStatements ? OutputKind.ConsoleApplication : OutputKind.DynamicallyLinkedLibrary))
            .AddSyntaxTrees(tree);
        return compilation.GetDiagnostics()
            .Where(d => d.Severity == DiagnosticSeverity.Error)
            .OrderBy(Order)
            .ThenBy(d => d.Location.IsInSource ? d.Location.GetMappedLineSpan().StartLinePosition : default)
            .Select(d => Describe(d, block))
            .ToList();
    }

    /// <summary>Errors without a place first, then the prelude's, then the block's.</summary>
    private static int Order(Diagnostic diagnostic) =>
        !diagnostic.Location.IsInSource ? 0
        : diagnostic.Location.GetMappedLineSpan().Path.EndsWith(" (prelude)", StringComparison.Ordinal) ? 1
        : 2;

    /// <summary>The file the compiler is given: hoisted usings, prelude statements, the block, prelude types.</summary>
    internal static string Source(CSharpBlock block)
    {
        var usings = new StringBuilder();
        var before = new StringBuilder();
        var after = new StringBuilder();
        string preludeFile = block.Page + " (prelude)";
        if (block.Prelude is { } prelude)
        {
            CompilationUnitSyntax unit = CSharpSyntaxTree.ParseText(prelude.Code, Parse).GetCompilationUnitRoot();
            foreach (UsingDirectiveSyntax directive in unit.Usings)
                Place(usings, directive, prelude.Line, preludeFile);
            foreach (MemberDeclarationSyntax member in unit.Members)
                Place(member is GlobalStatementSyntax ? before : after, member, prelude.Line, preludeFile);
        }

        CompilationUnitSyntax code = CSharpSyntaxTree.ParseText(block.Code, Parse).GetCompilationUnitRoot();
        char[] blanked = block.Code.ToCharArray();
        foreach (UsingDirectiveSyntax directive in code.Usings)
        {
            Place(usings, directive, block.FirstCodeLine, block.Page);
            for (int i = directive.Span.Start; i < directive.Span.End; i++)
            {
                if (blanked[i] is not ('\n' or '\r'))
                    blanked[i] = ' ';
            }
        }

        return new StringBuilder()
            .Append(usings)
            .Append(before)
            .Append(Line(block.FirstCodeLine, block.Page)).Append(blanked).Append('\n')
            .Append(after)
            .ToString();
    }

    private static void Place(StringBuilder into, SyntaxNode node, int firstLine, string file)
    {
        int line = firstLine + node.GetLocation().GetLineSpan().StartLinePosition.Line;
        into.Append(Line(line, file)).Append(node.ToString()).Append('\n');
    }

    private static string Line(int line, string file) => $"#line {line} \"{file}\"\n";

    private static string Describe(Diagnostic diagnostic, CSharpBlock block)
    {
        string where = block.Name;
        if (diagnostic.Location.IsInSource)
        {
            FileLinePositionSpan span = diagnostic.Location.GetMappedLineSpan();
            LinePosition start = span.StartLinePosition;
            where = span.Path.EndsWith(" (prelude)", StringComparison.Ordinal)
                ? $"{span.Path[..^" (prelude)".Length]}:{start.Line + 1} (prelude)"
                : $"{span.Path}:{start.Line + 1}:{start.Character + 1}";
        }

        return $"{where}: error {diagnostic.Id}: {diagnostic.GetMessage(System.Globalization.CultureInfo.InvariantCulture)}";
    }
}
