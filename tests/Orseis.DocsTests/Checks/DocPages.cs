using Orseis.Testing;

namespace Orseis.DocsTests.Checks;

/// <summary>Which pages each check reads, by path from the repository root (forward slashes).</summary>
internal static class DocPages
{
    /// <summary>Contributor and proof pages: not user pages (history and transcripts are their purpose).</summary>
    private static readonly HashSet<string> NotForUsers =
        ["docs/diagnostics-proofs.md", "docs/architecture.md", "docs/mutation-testing.md"];

    private static readonly HashSet<string> SkippedFolders =
        new(StringComparer.OrdinalIgnoreCase) { "bin", "obj", "node_modules", "TestResults", "BenchmarkDotNet.Artifacts" };

    public static string Root { get; } = RepositoryRoot.Find();

    /// <summary>Pages whose C# blocks are compiled: README.md, CONTRIBUTING.md, docs/**/*.md except docs/results/**,
    /// src/*/README.md.</summary>
    public static IReadOnlyList<string> WithCompiledBlocks() =>
        Existing("README.md", "CONTRIBUTING.md")
            .Concat(Under("docs").Where(p => !p.StartsWith("docs/results/", StringComparison.Ordinal)))
            .Concat(PackageReadmes())
            .ToList();

    /// <summary>User pages: README.md, docs/*.md except the proof and contributor pages, src/*/README.md.</summary>
    public static IReadOnlyList<string> ForUsers() =>
        Existing("README.md")
            .Concat(Directory.EnumerateFiles(Path.Combine(Root, "docs"), "*.md").Select(Relative).Order(StringComparer.Ordinal))
            .Where(p => !NotForUsers.Contains(p))
            .Concat(PackageReadmes())
            .ToList();

    /// <summary>Every markdown page of the repository (build output and hidden folders aside).</summary>
    public static IReadOnlyList<string> All() => Under("").ToList();

    private static IEnumerable<string> PackageReadmes() =>
        Directory.EnumerateDirectories(Path.Combine(Root, "src"))
            .Select(dir => Path.Combine(dir, "README.md"))
            .Where(File.Exists)
            .Select(Relative)
            .Order(StringComparer.Ordinal);

    private static IEnumerable<string> Existing(params string[] paths) =>
        paths.Where(p => File.Exists(Path.Combine(Root, p)));

    private static IEnumerable<string> Under(string folder)
    {
        var pending = new Stack<string>([Path.Combine(Root, folder)]);
        var pages = new List<string>();
        while (pending.Count > 0)
        {
            string dir = pending.Pop();
            pages.AddRange(Directory.EnumerateFiles(dir, "*.md").Select(Relative));
            foreach (string sub in Directory.EnumerateDirectories(dir))
            {
                string name = Path.GetFileName(sub);
                if (!name.StartsWith('.') && !SkippedFolders.Contains(name))
                    pending.Push(sub);
            }
        }

        return pages.Order(StringComparer.Ordinal);
    }

    private static string Relative(string path) => Path.GetRelativePath(Root, path).Replace('\\', '/');
}
