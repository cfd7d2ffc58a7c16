using System.Reflection;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace Orseis.Tests.Api;

/// <summary>
/// An interpolated string passed together with an args object would bind to the (string, object?) overloads and have
/// its holes spliced into the SQL text. Orseis makes that call a compile error, ORSEIS001; these tests compile real
/// call sites with Roslyn against the built Orseis assembly.
/// </summary>
public sealed class InterpolatedWithArgsTests
{
    private static readonly string[] Calls =
    [
        "db.Scalar<int>($\"select {id}\", new { x = 1 })",
        "db.ScalarAsync<int>($\"select {id}\", new { x = 1 })",
        "db.Execute($\"delete from t where id = {id}\", new { x = 1 })",
        "db.ExecuteAsync($\"delete from t where id = {id}\", new { x = 1 }, null, default)",
        "db.Query<int>($\"select {id}\", new { x = 1 })",
        "db.QueryAsync<int>($\"select {id}\", new { x = 1 })",
        "db.QuerySingle<int>($\"select {id}\", new { x = 1 })",
        "db.QuerySingleAsync<int>($\"select {id}\", new { x = 1 })",
        "db.QuerySingleOrDefault<int>($\"select {id}\", new { x = 1 })",
        "db.QuerySingleOrDefaultAsync<int>($\"select {id}\", new { x = 1 })",
        "db.QueryFirst<int>($\"select {id}\", new { x = 1 })",
        "db.QueryFirstAsync<int>($\"select {id}\", new { x = 1 })",
        "db.QueryFirstOrDefault<int>($\"select {id}\", new { x = 1 })",
        "db.QueryFirstOrDefaultAsync<int>($\"select {id}\", new { x = 1 })",
        "db.Stream<int>($\"select {id}\", new { x = 1 })",
        "db.StreamAsync<int>($\"select {id}\", new { x = 1 })",
        "db.QueryMultiple($\"select {id}\", new { x = 1 })",
        "db.QueryMultipleAsync($\"select {id}\", new { x = 1 })",
        "db.Query<int, int, int>($\"select {id}\", (a, b) => a + b, new { x = 1 })",
        "db.QueryAsync<int, int, int>($\"select {id}\", (a, b) => a + b, new { x = 1 }, \"Id\")",
        "db.Query<int, int, int, int>($\"select {id}\", (a, b, c) => a + b + c, new { x = 1 })",
        "db.QueryAsync<int, int, int, int>($\"select {id}\", (a, b, c) => a + b + c, new { x = 1 })",
        "db.Query<int, int, int, int, int>($\"select {id}\", (a, b, c, d) => a + b + c + d, new { x = 1 })",
        "db.QueryAsync<int, int, int, int, int>($\"select {id}\", (a, b, c, d) => a + b + c + d, args: new { x = 1 })",
        "db.Query($\"select {id}\", new { x = 1 })",
        "db.QueryAsync($\"select {id}\", new { x = 1 })",
        "db.QuerySingle($\"select {id}\", new { x = 1 })",
        "db.QuerySingleAsync($\"select {id}\", new { x = 1 })",
        "db.QuerySingleOrDefault($\"select {id}\", new { x = 1 })",
        "db.QuerySingleOrDefaultAsync($\"select {id}\", new { x = 1 })",
        "db.QueryFirst($\"select {id}\", new { x = 1 })",
        "db.QueryFirstAsync($\"select {id}\", new { x = 1 })",
        "db.QueryFirstOrDefault($\"select {id}\", new { x = 1 })",
        "db.QueryFirstOrDefaultAsync($\"select {id}\", new { x = 1 })",
        "db.Stream($\"select {id}\", new { x = 1 })",
        "db.StreamAsync($\"select {id}\", new { x = 1 })",
        "db.Query(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.QueryAsync(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.QuerySingle(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.QuerySingleAsync(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.QuerySingleOrDefault(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.QuerySingleOrDefaultAsync(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.QueryFirst(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.QueryFirstAsync(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.QueryFirstOrDefault(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.QueryFirstOrDefaultAsync(typeof(int), $\"select {id}\", new { x = 1 })",
        "db.Query($\"select {id}\", new[] { typeof(int) }, p => p, new { x = 1 })",
        "db.QueryAsync($\"select {id}\", new[] { typeof(int) }, p => p, new { x = 1 }, \"Id\")",
        "db.Query<int, int, int, int, int, int>($\"select {id}\", (a, b, c, d, e) => a, new { x = 1 })",
        "db.QueryAsync<int, int, int, int, int, int>($\"select {id}\", (a, b, c, d, e) => a, new { x = 1 })",
        "db.Query<int, int, int, int, int, int, int>($\"select {id}\", (a, b, c, d, e, f) => a, new { x = 1 })",
        "db.QueryAsync<int, int, int, int, int, int, int>($\"select {id}\", (a, b, c, d, e, f) => a, new { x = 1 }, \"Id\")",
        "db.Query<int, int, int, int, int, int, int, int>($\"select {id}\", (a, b, c, d, e, f, g) => a, new { x = 1 })",
        "db.QueryAsync<int, int, int, int, int, int, int, int>($\"select {id}\", (a, b, c, d, e, f, g) => a, args: new { x = 1 })",
        "session.Query<int>($\"select {name}\", new Dictionary<string, object?>())",
    ];

    public static TheoryData<string> GuardedCalls() => [.. Calls];

    [Theory]
    [MemberData(nameof(GuardedCalls))]
    public void An_interpolated_string_with_args_does_not_compile(string call)
    {
        Diagnostic error = Assert.Single(Compile(call), d => d.Severity == DiagnosticSeverity.Error);
        Assert.Equal("ORSEIS001", error.Id);
        Assert.Contains("holes spliced into the SQL text", error.GetMessage(), StringComparison.Ordinal);
    }

    [Fact]
    public void Every_interpolated_overload_has_its_guard()
    {
        // A new interpolated call without a guard would let the spliced form compile again. A guard has the call's
        // parameters with "object? args" inserted after the SQL (after the map function, for multi-mapping), and the same return type.
        MethodInfo[] methods = typeof(SqlRunner).GetMethods(BindingFlags.Public | BindingFlags.Instance).Where(TakesHandler).ToArray();
        MethodInfo[] calls = [.. methods.Where(m => !Guarded(m))];
        MethodInfo[] guards = [.. methods.Where(Guarded)];
        // The count is the generator's: one guard per call and form in its table (tools/Orseis.SurfaceGen, Surface.cs).
        Assert.Equal(Orseis.SurfaceGen.Surface.GuardCount, calls.Length);
        Assert.Equal(calls.Select(Signature).Order(StringComparer.Ordinal), guards.Select(g => Signature(g).Replace(", Object, ", ", ", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
        Assert.All(guards, g => Assert.Equal(typeof(object), g.GetParameters()[ArgsIndex(g)].ParameterType));
        Assert.Equal(calls.Select(m => m.Name).Order(StringComparer.Ordinal), Calls.Take(Orseis.SurfaceGen.Surface.GuardCount).Select(c => c[3..c.IndexOfAny(['<', '('])]).Order(StringComparer.Ordinal));

        // args follows the map function where there is one, else the SQL.
        static int ArgsIndex(MethodInfo m)
        {
            ParameterInfo[] parameters = m.GetParameters();
            int map = Array.FindIndex(parameters, p => p.ParameterType.Name.StartsWith("Func", StringComparison.Ordinal));
            return map >= 0 ? map + 1 : Array.FindIndex(parameters, p => p.ParameterType == typeof(SqlInterpolatedStringHandler)) + 1;
        }

        static bool TakesHandler(MethodInfo m) => m.GetParameters().Any(p => p.ParameterType == typeof(SqlInterpolatedStringHandler));
        static bool Guarded(MethodInfo m) => m.GetCustomAttribute<ObsoleteAttribute>() is { IsError: true, DiagnosticId: "ORSEIS001" };
        static string Signature(MethodInfo m) =>
            $"{m.ReturnType.Name} {m.Name}({string.Join(", ", m.GetParameters().Select(p => p.ParameterType == typeof(SqlInterpolatedStringHandler) ? "handler" : p.ParameterType.Name))})";
    }

    [Theory]
    [InlineData("db.Query<int>($\"select {id}\", args: new { x = 1 })")]
    [InlineData("db.Query<int>($\"select {id}\" + $\" and {name}\", new { x = 1 })")]
    [InlineData("db.Execute(sql: $\"delete from t where id = {id}\", args: new { x = 1 }, timeout: null)")]
    public void Named_and_concatenated_forms_are_caught_too(string call) =>
        Assert.Contains(Compile(call), d => d.Severity == DiagnosticSeverity.Error && d.Id == "ORSEIS001");

    [Theory]
    [InlineData("db.Query<int>($\"select {id}\")", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query<int>($\"select {id}\", TimeSpan.FromSeconds(5))", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query<int>($\"select {id}\", null)", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query<int>($\"select {id}\", default)", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query<int>($\"select {id}\", timeout: null)", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query<int>($\"select {id}\" + $\" and {name}\")", "SqlInterpolatedStringHandler")]
    [InlineData("db.QueryAsync<int>($\"select {id}\", null, CancellationToken.None)", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query<int, int, int>($\"select {id}\", (a, b) => a + b)", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query<int, int, int>($\"select {id}\", (a, b) => a + b, \"Id\")", "SqlInterpolatedStringHandler")]
    [InlineData("db.QueryAsync<int, int, int, int>($\"select {id}\", (a, b, c) => a, \"a,b\", null, CancellationToken.None)", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query($\"select {id}\")", "SqlInterpolatedStringHandler")]
    [InlineData("db.QueryFirstAsync($\"select {id}\", null, CancellationToken.None)", "SqlInterpolatedStringHandler")]
    [InlineData("db.Stream($\"select {id}\")", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query($\"select {id}\", new[] { typeof(int) }, p => p, \"Id\")", "SqlInterpolatedStringHandler")]
    [InlineData("db.Query(\"select @id\", new { id })", "String")]
    [InlineData("db.Query(\"select @id\", new[] { typeof(int) }, p => p, new { id })", "String")]
    [InlineData("db.Query<int, int, int>(\"select @id\", (a, b) => a + b, new { id })", "String")]
    [InlineData("db.Query<int>(\"select @id\", new { id })", "String")]
    [InlineData("db.Query<int>($\"select * from {Table} where id = @id\", new { id })", "String")]
    public void Parameterised_forms_still_compile_and_bind_where_they_should(string call, string firstParameter)
    {
        (CSharpCompilation compilation, SyntaxTree tree) = Build(call);
        Assert.DoesNotContain(compilation.GetDiagnostics(), d => d.Severity == DiagnosticSeverity.Error);

        // An interpolated string with holes must reach the handler overload, never the string one (which would splice).
        InvocationExpressionSyntax invocation = tree.GetRoot().DescendantNodes().OfType<InvocationExpressionSyntax>()
            .First(i => i.Expression is MemberAccessExpressionSyntax { Expression: IdentifierNameSyntax { Identifier.Text: "db" } });
        var method = (IMethodSymbol)compilation.GetSemanticModel(tree).GetSymbolInfo(invocation).Symbol!;
        Assert.Equal(firstParameter, method.Parameters[0].Type.Name);
        Assert.DoesNotContain(method.GetAttributes(), a => a.AttributeClass?.Name == nameof(ObsoleteAttribute));
    }

    private static IEnumerable<Diagnostic> Compile(string call) => Build(call).Compilation.GetDiagnostics();

    private static (CSharpCompilation Compilation, SyntaxTree Tree) Build(string call)
    {
        string source = $$"""
            using System;
            using System.Collections.Generic;
            using System.Threading;
            using Orseis;

            static class Site
            {
                const string Table = "items";

                static void Run(Database db, Session session)
                {
                    int id = 1;
                    string name = "x";
                    _ = {{call}};
                }
            }
            """;
        string[] platform = ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator);
        IEnumerable<MetadataReference> references = platform
            .Where(path => Path.GetFileName(path).StartsWith("System.", StringComparison.Ordinal) || Path.GetFileName(path) is "netstandard.dll" or "mscorlib.dll")
            .Append(typeof(Database).Assembly.Location)
            .Select(path => MetadataReference.CreateFromFile(path));
        SyntaxTree tree = CSharpSyntaxTree.ParseText(source, new CSharpParseOptions(LanguageVersion.Latest));
        CSharpCompilation compilation = CSharpCompilation.Create(
            "Site",
            [tree],
            references,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable));
        return (compilation, tree);
    }
}
