using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checks;

/// <summary>The references against the real types: a <c>## Name</c> heading per finding kind, every option named in
/// backticks.</summary>
internal static class ReferenceCheck
{
    /// <summary>The names with no level-2 heading whose text is exactly the name (<c>## Churn</c> or <c>## `Churn`</c>,
    /// so its anchor is the name in lower case).</summary>
    public static IReadOnlyList<string> MissingHeadings(MarkdownPage page, IEnumerable<string> names)
    {
        var headings = Headings.In(page).Where(h => h.Level == 2).Select(h => h.Text).ToHashSet(StringComparer.Ordinal);
        return names.Where(name => !headings.Contains(name)).ToList();
    }

    /// <summary>The names never written in a code span on the page, alone or qualified (<c>`ChurnGap`</c>,
    /// <c>`DiagnosticsOptions.ChurnGap`</c>, <c>`Diagnostics.ChurnGap`</c>).</summary>
    public static IReadOnlyList<string> MissingCodeNames(MarkdownPage page, IEnumerable<string> names)
    {
        string text = Masking.Rendered(page);
        var spans = Masking.CodeSpans(text)
            .Select(span => text.Substring(span.Start, span.Length).Trim('`').Trim())
            .ToList();
        return names.Where(name => !spans.Any(code => code == name || code.EndsWith("." + name, StringComparison.Ordinal)))
            .ToList();
    }
}
