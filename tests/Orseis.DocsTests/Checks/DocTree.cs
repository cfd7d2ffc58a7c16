using System.Collections.Concurrent;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checks;

/// <summary>The files a link can point at, by path from the repository root (forward slashes): the real repository, or
/// a few pages in memory for the checker's own tests.</summary>
internal sealed class DocTree
{
    private readonly Func<string, string?> _readPage;
    private readonly Func<string, bool> _fileExists;
    private readonly Func<string, bool> _directoryExists;
    private readonly ConcurrentDictionary<string, MarkdownPage?> _pages = new(StringComparer.Ordinal);

    public DocTree(Func<string, string?> readPage, Func<string, bool> fileExists, Func<string, bool> directoryExists)
    {
        _readPage = readPage;
        _fileExists = fileExists;
        _directoryExists = directoryExists;
    }

    public static DocTree OnDisk(string root) => new(
        path => File.Exists(Path.Combine(root, path)) ? File.ReadAllText(Path.Combine(root, path)) : null,
        path => File.Exists(Path.Combine(root, path)),
        path => Directory.Exists(Path.Combine(root, path)));

    /// <summary>Pages held in memory: their paths and texts; every folder above a page exists.</summary>
    public static DocTree InMemory(IReadOnlyDictionary<string, string> pages) => new(
        path => pages.GetValueOrDefault(path),
        pages.ContainsKey,
        path => path.Length == 0 || pages.Keys.Any(page => page.StartsWith(path.TrimEnd('/') + "/", StringComparison.Ordinal)));

    public bool FileExists(string path) => _fileExists(path);

    public bool DirectoryExists(string path) => _directoryExists(path);

    /// <summary>The page at <paramref name="path"/>, parsed once (the test classes run in parallel), or null.</summary>
    public MarkdownPage? Page(string path) => _pages.GetOrAdd(path, p => _readPage(p) is { } text ? MarkdownPage.Parse(p, text) : null);
}
