using System.Reflection;
using Orseis.Diagnostics;
using Orseis.DocsTests.Checks;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests;

/// <summary>The findings and options references name everything the real types have.</summary>
public sealed class ReferenceTests
{
    [Fact]
    public void Every_finding_kind_has_a_heading_in_the_findings_reference()
    {
        MarkdownPage page = Existing("docs/findings.md");
        IEnumerable<string> kinds = Enum.GetNames<FindingKind>().Where(name => name is not ("None" or "All"));
        DocFiles.AssertNone(
            ReferenceCheck.MissingHeadings(page, kinds).Select(kind => $"docs/findings.md: no `## {kind}` heading").ToList(),
            "finding kinds without a heading");
    }

    [Fact]
    public void Every_option_is_named_in_the_options_reference()
    {
        MarkdownPage page = Existing("docs/options.md");
        IEnumerable<string> options = Settable(typeof(OrseisOptions)).Concat(Settable(typeof(DiagnosticsOptions)));
        DocFiles.AssertNone(
            ReferenceCheck.MissingCodeNames(page, options).Select(name => $"docs/options.md: `{name}` is not named").ToList(),
            "options not in the reference");
    }

    /// <summary>The public settable properties of a type (set or init), as "Type.Name" is ambiguous for none of them.</summary>
    internal static IEnumerable<string> Settable(Type type) =>
        type.GetProperties(BindingFlags.Public | BindingFlags.Instance)
            .Where(p => p.SetMethod is { IsPublic: true })
            .Select(p => p.Name);

    private static MarkdownPage Existing(string path)
    {
        MarkdownPage? page = DocFiles.Tree.Page(path);
        Assert.True(page is not null, $"{path} does not exist");
        return page;
    }
}
