using Orseis.DocsTests.Checks;
using Orseis.DocsTests.Compiling;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests;

/// <summary>Every C# block of README.md, CONTRIBUTING.md, docs/ (docs/results/ aside) and the package readmes
/// compiles, one test per block named by its page and line; a fragment says why it is one.</summary>
public sealed class CSharpBlockTests
{
    public static TheoryData<string> Blocks() => DocFiles.Rows(
        DocPages.WithCompiledBlocks().SelectMany(page => CSharpBlocks.In(DocFiles.Page(page))).Select(block => block.Name));

    public static TheoryData<string> Pages() => DocFiles.Rows(DocPages.WithCompiledBlocks());

    [Theory]
    [MemberData(nameof(Blocks))]
    public void Compiles(string block)
    {
        int colon = block.LastIndexOf(':');
        string page = block[..colon];
        CSharpBlock found = CSharpBlocks.In(DocFiles.Page(page)).Single(b => b.Name == block);
        if (found.IsFragment)
        {
            Assert.False(string.IsNullOrWhiteSpace(found.FragmentReason), $"{block}: <!-- fragment: --> gives no reason");
            return;
        }

        DocFiles.AssertNone(BlockCompiler.Errors(found), $"compile errors in the C# block at {block}");
    }

    [Theory]
    [MemberData(nameof(Pages))]
    public void Every_prelude_and_fragment_marker_sits_on_the_line_before_a_csharp_block(string page) =>
        DocFiles.AssertNone(
            CSharpBlocks.StrayMarkers(DocFiles.Page(page))
                .Select(m => $"{m.Page}:{m.Line}: <!-- {m.Kind}: --> is not on the line directly before a C# block")
                .ToList(),
            "stray markers");
}
