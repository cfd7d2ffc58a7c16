namespace Orseis.DocsTests.Markdown;

/// <summary>A C# block of a page: where its fence opens, its code, and the marker on the line before it, if any: a
/// hidden prelude (C# compiled before the block) or the reason it is a fragment (not compiled).</summary>
internal sealed record CSharpBlock(string Page, int Line, string Code, Prelude? Prelude, string? FragmentReason)
{
    /// <summary>The block's name in test output: page and line of its opening fence.</summary>
    public string Name => $"{Page}:{Line}";

    public bool IsFragment => FragmentReason is not null;

    /// <summary>The markdown line of the block's first code line.</summary>
    public int FirstCodeLine => Line + 1;
}

/// <summary>A block's hidden prelude: its C# and the markdown line the comment starts on.</summary>
internal sealed record Prelude(string Code, int Line);

/// <summary>A prelude or fragment marker that is not on the line directly before a C# block, so it marks nothing.</summary>
internal sealed record StrayMarker(string Page, int Line, string Kind);
