using Microsoft.CodeAnalysis;

namespace Orseis.DocsTests.Compiling;

/// <summary>What a block compiles against: every assembly this test process trusts (the runtime, the ASP.NET Core shared
/// framework, Orseis and its two integration packages, the providers, Microsoft.Extensions.*, OpenTelemetry, Dapper, all
/// referenced by this project for that purpose), except the test machinery and the compiler, which no reader's app
/// references.</summary>
internal static class BlockReferences
{
    private static readonly string[] NotAnAppsReference =
    [
        "xunit", "Microsoft.CodeAnalysis", "testhost", "Microsoft.TestPlatform", "Microsoft.VisualStudio", "Orseis.DocsTests",
        "Humanizer",
    ];

    private static readonly Lazy<IReadOnlyList<MetadataReference>> All = new(Load);

    public static IReadOnlyList<MetadataReference> Get() => All.Value;

    private static List<MetadataReference> Load()
    {
        string trusted = (string?)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")
            ?? throw new InvalidOperationException("The runtime gave no TRUSTED_PLATFORM_ASSEMBLIES.");
        return trusted.Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Where(path => path.EndsWith(".dll", StringComparison.OrdinalIgnoreCase))
            .Where(path => !NotAnAppsReference.Any(prefix => Path.GetFileName(path).StartsWith(prefix, StringComparison.OrdinalIgnoreCase)))
            .Distinct(StringComparer.Ordinal)
            .Select(path => (MetadataReference)MetadataReference.CreateFromFile(path))
            .ToList();
    }
}
