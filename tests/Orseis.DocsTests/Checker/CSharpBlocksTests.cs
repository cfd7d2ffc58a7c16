using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checker;

/// <summary>Which fences are C# blocks, and the markers that go with them.</summary>
public sealed class CSharpBlocksTests
{
    [Fact]
    public void Csharp_cs_and_c_sharp_fences_are_blocks_other_languages_are_not()
    {
        MarkdownPage page = Parse("""
            ```csharp
            A();
            ```
            ```cs
            B();
            ```
            ~~~ C# title="x"
            C();
            ~~~
            ```text
            D();
            ```
            ```sh
            E
            ```
            """);

        Assert.Equal(["A();", "B();", "C();"], CSharpBlocks.In(page).Select(b => b.Code));
        Assert.Equal([1, 4, 7], CSharpBlocks.In(page).Select(b => b.Line));
    }

    [Fact]
    public void A_fragment_is_marked_with_its_reason_and_an_empty_reason_is_empty()
    {
        MarkdownPage page = Parse("""
            <!-- fragment: a signature sketch -->
            ```csharp
            Task<List<T>> QueryAsync<T>(string sql);
            ```

            <!-- fragment: -->
            ```csharp
            x
            ```
            """);

        IReadOnlyList<CSharpBlock> blocks = CSharpBlocks.In(page);
        Assert.Equal("a signature sketch", blocks[0].FragmentReason);
        Assert.True(blocks[1].IsFragment);
        Assert.Equal("", blocks[1].FragmentReason);
    }

    [Fact]
    public void A_prelude_over_several_lines_keeps_its_first_line()
    {
        MarkdownPage page = Parse("""
            Intro.

            <!-- prelude:
            using Orseis;
            Database db = null!; -->
            ```csharp
            db.Execute("x");
            ```
            """);

        Prelude prelude = Assert.IsType<Prelude>(CSharpBlocks.In(page).Single().Prelude);
        Assert.Equal(3, prelude.Line);
        Assert.Contains("Database db = null!;", prelude.Code, StringComparison.Ordinal);
    }

    [Fact]
    public void A_marker_not_directly_before_a_block_is_stray_and_marks_nothing()
    {
        MarkdownPage page = Parse("""
            <!-- prelude: int x = 1; -->

            ```csharp
            Console.WriteLine(x);
            ```
            <!-- fragment: shell, not C# -->
            ```sh
            ls
            ```
            <!-- an ordinary comment -->
            ```csharp
            Console.WriteLine(1);
            ```
            A page may quote `<!-- prelude: C# -->` in code.
            """);

        Assert.All(CSharpBlocks.In(page), b => Assert.Null(b.Prelude));
        Assert.Equal([(1, "prelude"), (6, "fragment")], CSharpBlocks.StrayMarkers(page).Select(m => (m.Line, m.Kind)));
    }

    [Fact]
    public void An_indented_block_in_a_list_loses_its_indentation()
    {
        MarkdownPage page = Parse("""
            1. Step:

               ```csharp
               if (true)
                   A();
               ```
            """);

        Assert.Equal("if (true)\n    A();", CSharpBlocks.In(page).Single().Code);
    }

    private static MarkdownPage Parse(string markdown) => MarkdownPage.Parse("docs/page.md", markdown);
}
