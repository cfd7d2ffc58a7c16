using Orseis.DocsTests.Checks;

namespace Orseis.DocsTests;

/// <summary>Every relative link of every markdown page of the repository (proofs and results included) resolves, anchors
/// included.</summary>
public sealed class LinkTests
{
    public static TheoryData<string> Pages() => DocFiles.Rows(DocPages.All());

    [Theory]
    [MemberData(nameof(Pages))]
    public void Every_relative_link_resolves(string page) =>
        DocFiles.AssertNone(LinkCheck.Problems(DocFiles.Page(page), DocFiles.Tree), "broken links");
}
