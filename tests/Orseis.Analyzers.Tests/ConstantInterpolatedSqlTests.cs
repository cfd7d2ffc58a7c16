namespace Orseis.Analyzers.Tests;

public sealed class ConstantInterpolatedSqlTests
{
    [Fact]
    public async Task Constant_holes_in_interpolated_sql_are_a_warning_naming_them()
    {
        var diagnostics = await Compiler.AnalyzeAsync(
            """
            Database db = null!;
            db.Query<string>($"select name from {"people"} where name = {"Grace"}");
            """,
            new ConstantInterpolatedSqlAnalyzer());

        var diagnostic = Assert.Single(diagnostics);
        Assert.Equal("ORS0001", diagnostic.Id);
        Assert.Equal(Microsoft.CodeAnalysis.DiagnosticSeverity.Warning, diagnostic.Severity);
        Assert.Contains("(\"people\", \"Grace\")", diagnostic.GetMessage(), StringComparison.Ordinal);
        Assert.Contains("not sent as parameters", diagnostic.GetMessage(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_hole_that_is_not_constant_is_a_parameter_and_no_warning()
    {
        var diagnostics = await Compiler.AnalyzeAsync(
            """
            Database db = null!;
            string name = "Grace";
            db.Query<string>($"select name from people where name = {name}");
            db.Query<string>($"select name from people where id = {3}"); // not a constant string: a non-string hole
            db.Query<string>("select name from people where name = @name", new { name });
            """,
            new ConstantInterpolatedSqlAnalyzer());

        Assert.Empty(diagnostics);
    }

    [Fact]
    public async Task Interpolated_strings_passed_elsewhere_are_not_the_rule_s_business()
    {
        var diagnostics = await Compiler.AnalyzeAsync(
            """
            System.Console.WriteLine($"hello {"world"}");
            """,
            new ConstantInterpolatedSqlAnalyzer());

        Assert.Empty(diagnostics);
    }
}
