using Orseis.DocsTests.Compiling;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checker;

/// <summary>The block compiler on small pages: it fails what does not compile, naming the page's line, and passes what
/// a reader could build.</summary>
public sealed class BlockCompilerTests
{
    [Fact]
    public void A_block_that_does_not_compile_fails_on_its_page_line()
    {
        CSharpBlock block = Single("""
            # Page

            ```csharp
            int rows = 1;
            Console.WriteLine(rowz);
            ```
            """);

        string error = Assert.Single(BlockCompiler.Errors(block));
        Assert.StartsWith("docs/page.md:5:19: error CS0103:", error, StringComparison.Ordinal);
        Assert.Contains("rowz", error, StringComparison.Ordinal);
    }

    [Fact]
    public void An_error_with_no_place_in_the_code_is_named_by_the_blocks_fence()
    {
        CSharpBlock block = Single("""
            Text.

            ```csharp
            sealed class Order { }
            await Task.Delay(1);
            ```
            """);

        IReadOnlyList<string> errors = BlockCompiler.Errors(block);

        Assert.Equal(
            [
                "docs/page.md:3: error CS5001: Program does not contain a static 'Main' method suitable for an entry point",
                "docs/page.md:5:1: error CS8803: Top-level statements must precede namespace and type declarations.",
            ],
            errors);
    }

    [Fact]
    public void A_prelude_makes_a_block_compile_and_its_usings_are_hoisted()
    {
        const string Block = """
            ```csharp
            using Microsoft.Data.Sqlite;

            List<Order> orders = db.Query<Order>("select id, total from orders");
            Console.WriteLine(orders.Count + SqliteFactory.Instance.GetHashCode());
            ```
            """;
        Assert.NotEmpty(BlockCompiler.Errors(Single(Block)));

        CSharpBlock withPrelude = Single(
            "<!-- prelude: using Orseis; Database db = null!; record Order(int Id, decimal Total); -->\n" + Block);

        Assert.Empty(BlockCompiler.Errors(withPrelude));
    }

    [Fact]
    public void An_error_in_the_prelude_is_named_as_the_prelude()
    {
        CSharpBlock block = Single("""
            Text.
            <!-- prelude: Databse db = null!; -->
            ```cs
            Console.WriteLine(db);
            ```
            """);

        Assert.Contains(BlockCompiler.Errors(block), e => e.StartsWith("docs/page.md:2 (prelude): error CS0246", StringComparison.Ordinal));
    }

    [Fact]
    public void A_block_of_types_only_compiles_as_a_library()
    {
        CSharpBlock block = Single("""
            ```c#
            public sealed record Order(int Id, decimal Total);
            ```
            """);

        Assert.Empty(BlockCompiler.Errors(block));
    }

    [Fact]
    public void A_block_compiles_against_the_packages_a_reader_uses()
    {
        CSharpBlock block = Single("""
            ```csharp
            using Microsoft.AspNetCore.Builder;
            using Microsoft.Extensions.DependencyInjection;
            using Npgsql;
            using OpenTelemetry;
            using OpenTelemetry.Metrics;
            using Orseis;

            WebApplicationBuilder builder = WebApplication.CreateBuilder(args);
            builder.Services.AddSingleton(new Database(NpgsqlFactory.Instance, "Host=localhost"));
            builder.Services.AddOpenTelemetry().WithMetrics(m => m.AddMeter("Orseis").AddOtlpExporter());
            using MeterProvider meters = Sdk.CreateMeterProviderBuilder().AddMeter("Orseis").Build();
            await using WebApplication app = builder.Build();
            await app.RunAsync();
            ```
            """);

        Assert.Empty(BlockCompiler.Errors(block));
    }

    [Fact]
    public void Nullable_warnings_do_not_fail_a_block()
    {
        // Chosen: errors only, what a reader building with the SDK's defaults (TreatWarningsAsErrors off) is stopped by.
        CSharpBlock block = Single("""
            ```csharp
            string name = null;
            Console.WriteLine(name.Length);
            ```
            """);

        Assert.Empty(BlockCompiler.Errors(block));
    }

    private static CSharpBlock Single(string markdown) =>
        Assert.Single(CSharpBlocks.In(MarkdownPage.Parse("docs/page.md", markdown)));
}
