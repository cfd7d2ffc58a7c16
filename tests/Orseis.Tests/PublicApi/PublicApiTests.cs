using Orseis.Testing;

namespace Orseis.Tests.PublicApi;

/// <summary>
/// The public API is tracked in src/Orseis/PublicAPI.Shipped.txt and PublicAPI.Unshipped.txt by Microsoft's
/// PublicApiAnalyzers: an untracked change fails the build (RS0016/RS0017 under warnings-as-errors). These tests make
/// sure the files stay wired to the assembly, so switching the analyzer off does not go unnoticed.
/// </summary>
public sealed class PublicApiTests
{
    [Fact]
    public void The_tracked_types_are_exactly_the_public_types()
    {
        string folder = Path.Combine(RepositoryRoot.Find(), "src", "Orseis");
        HashSet<string> tracked = [.. Read(Path.Combine(folder, "PublicAPI.Shipped.txt")), .. Read(Path.Combine(folder, "PublicAPI.Unshipped.txt"))];
        string[] types = [.. typeof(Database).Assembly.GetExportedTypes().Select(Tracked).Order(StringComparer.Ordinal)];

        // In the analyzer's format a type is the only kind of line without a space ("Orseis.Database").
        string[] trackedTypes = [.. tracked.Where(line => line.Length > 0 && !line.Contains(' ', StringComparison.Ordinal)).Order(StringComparer.Ordinal)];
        Assert.Equal(types, trackedTypes);
    }

    [Fact]
    public void Every_public_type_is_in_the_orseis_namespaces()
    {
        foreach (Type type in typeof(Database).Assembly.GetExportedTypes())
            Assert.StartsWith("Orseis", type.Namespace, StringComparison.Ordinal);
    }

    /// <summary>A type as the analyzer writes it: nested with a dot, generic with its parameters (<c>Orseis.TypeHandler&lt;T&gt;</c>).</summary>
    private static string Tracked(Type type)
    {
        string name = type.FullName!.Replace('+', '.');
        return type.IsGenericTypeDefinition
            ? name[..name.IndexOf('`', StringComparison.Ordinal)] + "<" + string.Join(", ", type.GetGenericArguments().Select(a => a.Name)) + ">"
            : name;
    }

    private static IEnumerable<string> Read(string path) =>
        File.ReadAllLines(path).Where(line => line.Length > 0 && !line.StartsWith('#')).Select(line => line.StartsWith("*REMOVED*", StringComparison.Ordinal) ? "" : line);
}
