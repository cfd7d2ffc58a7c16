using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;

namespace Orseis.Analyzers.Tests;

/// <summary>Compiles a program against the framework and Orseis, as a user's project would.</summary>
internal static class Compiler
{
    private static readonly MetadataReference[] References =
    [
        .. ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator)
            .Select(path => MetadataReference.CreateFromFile(path)),
        MetadataReference.CreateFromFile(typeof(Database).Assembly.Location),
    ];

    public static CSharpCompilation Compile(string program) => CSharpCompilation.Create(
        "UserApp",
        [CSharpSyntaxTree.ParseText("using Orseis;\n" + program, new CSharpParseOptions(LanguageVersion.Latest))],
        References,
        new CSharpCompilationOptions(OutputKind.ConsoleApplication, nullableContextOptions: NullableContextOptions.Enable));

    public static async Task<ImmutableArray<Diagnostic>> AnalyzeAsync(string program, DiagnosticAnalyzer analyzer)
    {
        CSharpCompilation compilation = Compile(program);
        Assert.Empty(compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error));
        return await compilation.WithAnalyzers([analyzer]).GetAnalyzerDiagnosticsAsync();
    }

    /// <summary>Runs <paramref name="analyzer"/> with the project's MSBuild properties as the SDK passes them
    /// (<c>build_property.EnableAotAnalyzer</c> = <c>true</c>, ...).</summary>
    public static async Task<ImmutableArray<Diagnostic>> AnalyzeAsync(
        string program, DiagnosticAnalyzer analyzer, IReadOnlyDictionary<string, string> properties)
    {
        CSharpCompilation compilation = Compile(program);
        Assert.Empty(compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error));
        var options = new AnalyzerOptions([], new Properties(properties.ToDictionary(p => "build_property." + p.Key, p => p.Value)));
        return await compilation.WithAnalyzers([analyzer], options).GetAnalyzerDiagnosticsAsync();
    }

    private sealed class Properties(Dictionary<string, string> values) : AnalyzerConfigOptionsProvider
    {
        private static readonly Options None = new([]);

        public override AnalyzerConfigOptions GlobalOptions { get; } = new Options(values);

        public override AnalyzerConfigOptions GetOptions(SyntaxTree tree) => None;

        public override AnalyzerConfigOptions GetOptions(AdditionalText textFile) => None;
    }

    private sealed class Options(Dictionary<string, string> values) : AnalyzerConfigOptions
    {
        public override bool TryGetValue(string key, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out string? value) =>
            values.TryGetValue(key, out value);
    }

    /// <summary>Runs the shape generator; returns what it wrote and the compilation's errors with it.</summary>
    public static (string Generated, Diagnostic[] Errors) Generate(string program)
    {
        CSharpCompilation compilation = Compile(program);
        GeneratorDriver driver = CSharpGeneratorDriver.Create(new ShapeGenerator())
            .RunGeneratorsAndUpdateCompilation(compilation, out Compilation output, out _);
        string generated = string.Concat(driver.GetRunResult().GeneratedTrees.Select(t => t.ToString()));
        return (generated, [.. output.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error)]);
    }
}
