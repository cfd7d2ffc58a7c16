using Orseis.DocsTests.Checks;

namespace Orseis.DocsTests;

/// <summary>User pages (README.md, docs/*.md but the proof and contributor pages, src/*/README.md) carry no history and
/// stay short.</summary>
public sealed class UserPageTests
{
    public static TheoryData<string> Pages() => DocFiles.Rows(DocPages.ForUsers());

    [Theory]
    [MemberData(nameof(Pages))]
    public void Carries_no_commit_hash(string page) =>
        DocFiles.AssertNone(UserPageRules.CommitHashes(DocFiles.Page(page), DocFiles.CommitLookup), "commit hashes");

    [Theory]
    [MemberData(nameof(Pages))]
    public void Carries_no_dated_narration(string page) =>
        DocFiles.AssertNone(UserPageRules.Dates(DocFiles.Page(page)), "dates");

    [Theory]
    [MemberData(nameof(Pages))]
    public void Is_at_most_300_lines(string page) =>
        Assert.True(UserPageRules.Length(DocFiles.Page(page)) is null, UserPageRules.Length(DocFiles.Page(page)));
}
