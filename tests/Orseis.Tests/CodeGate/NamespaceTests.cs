using System.Text.RegularExpressions;
using Orseis.Testing;

namespace Orseis.Tests.CodeGate;

/// <summary>Every file under src/Orseis declares the namespace of its folder, so a type is found where its namespace says.</summary>
public sealed partial class NamespaceTests
{
    /// <summary>
    /// Folders whose files may declare an allowed root instead: Resilience's public types are in <c>Orseis</c> (public
    /// API), its internal ones in <c>Orseis.Execution</c>, beside the call path they serve.
    /// </summary>
    private static readonly Dictionary<string, string[]> Allowed = new(StringComparer.Ordinal)
    {
        ["Resilience"] = ["Orseis", "Orseis.Execution"],
    };

    [Fact]
    public void Every_file_declares_the_namespace_of_its_folder()
    {
        string src = Path.Combine(RepositoryRoot.Find(), "src", "Orseis");
        var wrong = new List<string>();
        foreach (string file in Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(src, file).Replace('\\', '/');
            if (relative.StartsWith("obj/", StringComparison.Ordinal) || relative.StartsWith("bin/", StringComparison.Ordinal) ||
                relative == "GlobalUsings.cs")
            {
                continue;
            }

            string folder = Path.GetDirectoryName(relative)!.Replace('\\', '/');
            string expected = folder.Length == 0 ? "Orseis" : "Orseis." + folder.Replace('/', '.');
            string? declared = Declared().Match(File.ReadAllText(file)) is { Success: true } m ? m.Groups[1].Value : null;
            if (declared != expected && !(Allowed.TryGetValue(folder, out string[]? roots) && roots.Contains(declared)))
                wrong.Add($"{relative}: namespace {declared ?? "(none)"}, folder says {expected}");
        }

        Assert.True(wrong.Count == 0, "Files whose namespace is not their folder's:\n" + string.Join("\n", wrong));
    }

    [GeneratedRegex(@"^namespace ([\w.]+);", RegexOptions.Multiline)]
    private static partial Regex Declared();
}
