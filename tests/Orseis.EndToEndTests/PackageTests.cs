using System.Diagnostics;
using System.IO.Compression;
using System.Xml.Linq;
using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// Packs src/Orseis the way a release would (<c>dotnet pack -c Release</c>) and checks what a NuGet user gets: the
/// library, its XML docs and its own README, its license and source-control metadata, a symbol package, and no dependency on
/// any database provider.
/// </summary>
public sealed class PackageTests : IDisposable
{
    private readonly string _output = Directory.CreateTempSubdirectory("orseis-pack-").FullName;

    [Fact]
    public void The_package_has_the_library_docs_readme_metadata_and_symbols()
    {
        string root = RepositoryRoot.Find();
        // No build servers or node reuse: a server left running would hold this test's output pipes open.
        Run(root, Dotnet(), ["pack", Path.Combine("src", "Orseis", "Orseis.csproj"), "-c", "Release", "--no-restore", "-o", _output, "-nologo",
            "-nodeReuse:false", "-p:UseSharedCompilation=false"]);

        string package = Assert.Single(Directory.GetFiles(_output, "Orseis.*.nupkg"), p => !p.EndsWith(".snupkg", StringComparison.Ordinal));
        using ZipArchive nupkg = ZipFile.OpenRead(package);
        string[] entries = [.. nupkg.Entries.Select(e => e.FullName)];
        Assert.Contains("README.md", entries);
        Assert.Contains("lib/net10.0/Orseis.dll", entries);
        Assert.Contains("lib/net10.0/Orseis.xml", entries);

        // The package ships its own short readme (src/Orseis/README.md), not the repository's: no contributor commands and
        // only absolute links, which still work on the package's page.
        using (var readme = new StreamReader(nupkg.GetEntry("README.md")!.Open()))
        {
            string text = readme.ReadToEnd();
            Assert.Equal(File.ReadAllText(Path.Combine(root, "src", "Orseis", "README.md")), text);
            Assert.Contains("dotnet add package Orseis", text, StringComparison.Ordinal);
            Assert.Contains("https://github.com/orseis/orseis", text, StringComparison.Ordinal);
            Assert.DoesNotContain("scripts/", text, StringComparison.Ordinal);
            Assert.DoesNotMatch(@"\]\((?!https://)", text);
        }

        using (var docs = new StreamReader(nupkg.GetEntry("lib/net10.0/Orseis.xml")!.Open()))
            Assert.Contains("<member name=\"T:Orseis.Database\">", docs.ReadToEnd(), StringComparison.Ordinal);

        XElement metadata = Nuspec(nupkg);
        XNamespace ns = metadata.Name.Namespace;
        Assert.Equal("Orseis", metadata.Element(ns + "id")!.Value);
        Assert.Equal("README.md", metadata.Element(ns + "readme")!.Value);
        XElement license = metadata.Element(ns + "license")!;
        Assert.Equal(("expression", "MIT"), (license.Attribute("type")!.Value, license.Value));
        XElement repository = metadata.Element(ns + "repository")!;
        Assert.Equal("git", repository.Attribute("type")!.Value);
        string head = Run(root, "git", ["rev-parse", "HEAD"]).Trim();
        Assert.True(repository.Attribute("commit") is not null, "The nuspec's <repository> has no commit: SourceLink found no git repository.");
        Assert.Equal(head, repository.Attribute("commit")!.Value);

        // Orseis works through DbProviderFactory / DbDataSource: no provider may become a dependency of its users.
        string[] dependencies = [.. metadata.Descendants(ns + "dependency").Select(d => d.Attribute("id")!.Value)];
        Assert.Equal(["Microsoft.Extensions.Logging.Abstractions"], dependencies);

        string symbols = Assert.Single(Directory.GetFiles(_output, "Orseis.*.snupkg"));
        using ZipArchive snupkg = ZipFile.OpenRead(symbols);
        Assert.Contains("lib/net10.0/Orseis.pdb", snupkg.Entries.Select(e => e.FullName));
    }

    [Fact]
    public void The_dependency_injection_package_has_its_docs_and_readme_and_depends_on_abstractions_only()
    {
        string root = RepositoryRoot.Find();
        Run(root, Dotnet(), ["pack", Path.Combine("src", "Orseis.DependencyInjection", "Orseis.DependencyInjection.csproj"), "-c", "Release", "--no-restore",
            "-o", _output, "-nologo", "-nodeReuse:false", "-p:UseSharedCompilation=false"]);

        string package = Assert.Single(Directory.GetFiles(_output, "Orseis.DependencyInjection.*.nupkg"), p => !p.EndsWith(".snupkg", StringComparison.Ordinal));
        using ZipArchive nupkg = ZipFile.OpenRead(package);
        string[] entries = [.. nupkg.Entries.Select(e => e.FullName)];
        Assert.Contains("lib/net10.0/Orseis.DependencyInjection.dll", entries);
        Assert.Contains("lib/net10.0/Orseis.DependencyInjection.xml", entries);
        using (var readme = new StreamReader(nupkg.GetEntry("README.md")!.Open()))
        {
            string text = readme.ReadToEnd();
            Assert.Contains("dotnet add package Orseis.DependencyInjection", text, StringComparison.Ordinal);
            Assert.DoesNotMatch(@"\]\((?!https://)", text);
        }

        // The application chooses its container, configuration sources and logging: only abstractions and Options (which brings
        // the DependencyInjection abstractions) are imposed.
        XElement metadata = Nuspec(nupkg);
        XNamespace ns = metadata.Name.Namespace;
        Assert.Equal("README.md", metadata.Element(ns + "readme")!.Value);
        string[] dependencies = [.. metadata.Descendants(ns + "dependency").Select(d => d.Attribute("id")!.Value).Order(StringComparer.Ordinal)];
        Assert.Equal(
            [
                "Microsoft.Extensions.Configuration.Abstractions", "Microsoft.Extensions.Diagnostics.HealthChecks.Abstractions",
                "Microsoft.Extensions.Hosting.Abstractions", "Microsoft.Extensions.Logging.Abstractions", "Microsoft.Extensions.Options", "Orseis",
            ],
            dependencies);
    }

    private static XElement Nuspec(ZipArchive nupkg)
    {
        ZipArchiveEntry entry = Assert.Single(nupkg.Entries, e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal));
        using Stream stream = entry.Open();
        XElement package = XDocument.Load(stream).Root!;
        return package.Element(package.Name.Namespace + "metadata")!;
    }

    /// <summary>The dotnet running this test (the SDK sets DOTNET_HOST_PATH for test hosts), else the one on PATH.</summary>
    private static string Dotnet() => Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } path ? path : "dotnet";

    private static string Run(string root, string program, string[] args)
    {
        var info = new ProcessStartInfo(program) { WorkingDirectory = root, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string arg in args)
            info.ArgumentList.Add(arg);
        info.Environment["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0";
        using Process process = Process.Start(info) ?? throw new InvalidOperationException("could not start " + program);
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(TimeSpan.FromMinutes(3)))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{program} {string.Join(' ', args)} did not finish within 3 minutes.");
        }

        if (!Task.WaitAll([output, error], TimeSpan.FromSeconds(30)))
            throw new TimeoutException($"{program} exited but its output stayed open (a build server holding the pipe?).");
        Assert.True(process.ExitCode == 0, $"{program} {string.Join(' ', args)} exited with {process.ExitCode}:\n{output.Result}\n{error.Result}");
        return output.Result;
    }

    public void Dispose() => Directory.Delete(_output, recursive: true);
}
