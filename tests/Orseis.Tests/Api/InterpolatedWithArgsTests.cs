using System.Reflection;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

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
        // A new interpolated call without a guard would let the spliced form compile again.
        MethodInfo[] methods = typeof(SqlRunner).GetMethods(BindingFlags.Public | BindingFlags.Instance);
        string[] interpolated = [.. methods.Where(m => FirstParameter(m) && !Guarded(m)).Select(m => m.Name).Order(StringComparer.Ordinal)];
        string[] guarded = [.. methods.Where(m => FirstParameter(m) && Guarded(m)).Select(m => m.Name).Order(StringComparer.Ordinal)];
        Assert.Equal(16, interpolated.Length);
        Assert.Equal(interpolated, guarded);
        Assert.Equal(interpolated.Order(StringComparer.Ordinal).Distinct(), Calls.Take(16).Select(c => c[3..c.IndexOfAny(['<', '('])]).Order(StringComparer.Ordinal));

        static bool FirstParameter(MethodInfo m) => m.GetParameters() is [{ ParameterType: var t }, ..] && t == typeof(SqlInterpolatedStringHandler);
        static bool Guarded(MethodInfo m) => m.GetCustomAttribute<ObsoleteAttribute>() is { IsError: true, DiagnosticId: "ORSEIS001" };
    }

    [Theory]
    [InlineData("db.Query<int>($\"select {id}\")")]
    [InlineData("db.Query<int>($\"select {id}\", TimeSpan.FromSeconds(5))")]
    [InlineData("db.Query<int>($\"select {id}\", null)")]
    [InlineData("db.Query<int>($\"select {id}\", timeout: null)")]
    [InlineData("db.QueryAsync<int>($\"select {id}\", null, CancellationToken.None)")]
    [InlineData("db.Query<int>(\"select @id\", new { id })")]
    [InlineData("db.Query<int>($\"select * from {Table} where id = @id\", new { id })")]
    public void Parameterised_forms_still_compile(string call) =>
        Assert.DoesNotContain(Compile(call), d => d.Severity == DiagnosticSeverity.Error);

    private static IEnumerable<Diagnostic> Compile(string call)
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
        CSharpCompilation compilation = CSharpCompilation.Create(
            "Site",
            [CSharpSyntaxTree.ParseText(source, new CSharpParseOptions(LanguageVersion.Latest))],
            references,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable));
        return compilation.GetDiagnostics();
    }
}
