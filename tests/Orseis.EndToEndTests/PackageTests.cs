using System.Collections.Immutable;
using System.Diagnostics;
using System.IO.Compression;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.InteropServices;
using System.Xml.Linq;
using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// Packs each shipped project the way a release would (<c>dotnet pack -c Release</c>) and checks what a NuGet user gets:
/// the release's version, the library, its XML docs and its own README, its license and source-control metadata, a symbol
/// package, the analyzer assembly (the shape generator), the dependencies it must have (Orseis.AspNetCore -> Orseis.DependencyInjection -> Orseis, and no database
/// provider), that the SDK's package validation ran on the pack, and Orseis.dll's precompiled code for linux-x64, linux-arm64,
/// win-x64, osx-arm64 and osx-x64 (ReadyToRun, issue 44) beside its IL, which an app restored from the package runs.
/// </summary>
public sealed class PackageTests : IDisposable
{
    /// <summary>The release these packages are (src/Directory.Build.props: VersionPrefix and VersionSuffix).</summary>
    private const string Version = "1.0.0-rc.1";

    /// <summary>
    /// The RIDs the package has precompiled images for, and the COFF machine each image must carry: crossgen2 writes the
    /// CPU's PE machine (AMD64 0x8664, ARM64 0xAA64) XOR'd with the target OS's value (ILCompiler.PEWriter's
    /// MachineOSOverride, the runtime's IMAGE_FILE_MACHINE_NATIVE_OS_OVERRIDE: Windows 0, Linux 0x7B79, Apple 0x4644),
    /// and the runtime loads the native code only where both match.
    /// </summary>
    private static readonly Dictionary<string, int> PrecompiledMachines = new(StringComparer.Ordinal)
    {
        ["linux-x64"] = 0x8664 ^ 0x7B79,
        ["linux-arm64"] = 0xAA64 ^ 0x7B79,
        ["win-x64"] = 0x8664,
        ["osx-arm64"] = 0xAA64 ^ 0x4644,
        ["osx-x64"] = 0x8664 ^ 0x4644,
    };

    /// <summary>What the SDK's RunPackageValidation target touches when it has validated a pack (Microsoft.NET.ApiCompat.ValidatePackage.targets).</summary>
    private const string ValidationSemaphore = "Microsoft.NET.ApiCompat.ValidatePackage.semaphore";

    private readonly string _output = Directory.CreateTempSubdirectory("orseis-pack-").FullName;

    [Fact]
    public void The_package_has_the_library_docs_readme_metadata_and_symbols()
    {
        string root = RepositoryRoot.Find();
        (string package, XElement metadata) = Pack(root, "Orseis");

        using ZipArchive nupkg = ZipFile.OpenRead(package);
        string[] entries = [.. nupkg.Entries.Select(e => e.FullName)];
        Assert.Contains("README.md", entries);
        Assert.Contains("lib/net10.0/Orseis.dll", entries);
        Assert.Contains("lib/net10.0/Orseis.xml", entries);
        // The shape generator and the SQL analyzer (src/Orseis.Analyzers) come with the package, where the compiler finds them.
        Assert.Contains("analyzers/dotnet/cs/Orseis.Analyzers.dll", entries);

        // The package ships its own short readme (src/Orseis/README.md), not the repository's: no contributor commands and
        // only absolute links, which still work on the package's page.
        string text = Readme(nupkg);
        Assert.Equal(File.ReadAllText(Path.Combine(root, "src", "Orseis", "README.md")), text);
        Assert.Contains("dotnet add package Orseis", text, StringComparison.Ordinal);
        Assert.Contains("https://github.com/orseis/orseis", text, StringComparison.Ordinal);
        Assert.DoesNotContain("scripts/", text, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"\]\((?!https://)", text);

        using (var docs = new StreamReader(nupkg.GetEntry("lib/net10.0/Orseis.xml")!.Open()))
            Assert.Contains("<member name=\"T:Orseis.Database\">", docs.ReadToEnd(), StringComparison.Ordinal);

        XNamespace ns = metadata.Name.Namespace;
        Assert.Equal("Orseis", metadata.Element(ns + "id")!.Value);
        XElement repository = metadata.Element(ns + "repository")!;
        Assert.Equal("git", repository.Attribute("type")!.Value);
        string head = Run(root, "git", ["rev-parse", "HEAD"]).Trim();
        Assert.True(repository.Attribute("commit") is not null, "The nuspec's <repository> has no commit: SourceLink found no git repository.");
        Assert.Equal(head, repository.Attribute("commit")!.Value);

        // Orseis works through DbProviderFactory / DbDataSource: no provider may become a dependency of its users. Its opt-in
        // retries run on Polly.Core (docs/retries.md), which depends on nothing beyond the framework.
        Assert.Equal(["Microsoft.Extensions.Logging.Abstractions", "Polly.Core"], Dependencies(metadata).Keys.Order(StringComparer.Ordinal).ToArray());

        string symbols = Assert.Single(Directory.GetFiles(_output, "Orseis.*.snupkg"));
        Assert.Equal($"Orseis.{Version}.snupkg", Path.GetFileName(symbols));
        using ZipArchive snupkg = ZipFile.OpenRead(symbols);
        Assert.Contains("lib/net10.0/Orseis.pdb", snupkg.Entries.Select(e => e.FullName));
    }

    [Fact]
    public void The_package_carries_native_code_for_each_platform_beside_the_same_IL_and_the_IL_alone_for_every_other_platform()
    {
        string root = RepositoryRoot.Find();
        (string package, _) = Pack(root, "Orseis");
        (string ilPackage, _) = Pack(root, "Orseis", output: Path.Combine(_output, "il"), properties: ["-p:OrseisPackReadyToRun=false"]);

        Image il = Image.Read(package, "lib/net10.0/Orseis.dll");

        // lib/: the compiler's image, what every platform without an image of its own loads (the runtime refuses another
        // platform's native code).
        Assert.False(il.ReadyToRun);
        Assert.True(il.ILOnly);
        Assert.Equal(Machine.I386, il.Machine);
        Assert.True(il.MethodBodies.Count > 1000, $"only {il.MethodBodies.Count} method bodies read from lib/net10.0/Orseis.dll");

        // runtimes/: one image per RID, and nothing else there.
        using (ZipArchive nupkg = ZipFile.OpenRead(package))
        {
            Assert.Equal(
                PrecompiledMachines.Keys.Select(rid => $"runtimes/{rid}/lib/net10.0/Orseis.dll").Order(StringComparer.Ordinal),
                nupkg.Entries.Select(e => e.FullName).Where(e => e.StartsWith("runtimes/", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
        }

        foreach ((string rid, int machine) in PrecompiledMachines)
        {
            string entry = $"runtimes/{rid}/lib/net10.0/Orseis.dll";
            Image precompiled = Image.Read(package, entry);

            // crossgen2's image: a ReadyToRun header ('RTR') behind the CLI header's ManagedNativeHeader, and the machine of
            // the RID's CPU marked for its OS: the runtime runs its code on that platform only.
            Assert.True(precompiled.ReadyToRun, $"{entry} has no ReadyToRun header");
            Assert.True(machine == (int)precompiled.Machine, $"{entry}: machine 0x{(int)precompiled.Machine:X4}, not 0x{machine:X4}");

            // The IL is kept whole: the same module, and every method body has the same IL (what the JIT compiles where the
            // native code is not used, and what Native AOT and trimming read).
            Assert.Equal(il.Mvid, precompiled.Mvid);
            Assert.True(il.MethodBodies.SequenceEqual(precompiled.MethodBodies), $"{entry}: the IL differs from lib/'s");
        }

        // -p:OrseisPackReadyToRun=false: the same lib/ image and no runtimes/ folder.
        using ZipArchive ilOnly = ZipFile.OpenRead(ilPackage);
        Assert.DoesNotContain(ilOnly.Entries, e => e.FullName.StartsWith("runtimes/", StringComparison.Ordinal));
        Assert.Equal(il.MethodBodies, Image.Read(ilPackage, "lib/net10.0/Orseis.dll").MethodBodies);
    }

    [Fact]
    public void An_app_restored_from_the_package_runs_on_the_precompiled_library_of_its_platform()
    {
        string root = RepositoryRoot.Find();
        (string package, _) = Pack(root, "Orseis");
        XElement versions = XDocument.Load(Path.Combine(root, "Directory.Packages.props")).Root!;
        string sqlite = versions.Descendants("PackageVersion")
            .Single(v => v.Attribute("Include")!.Value == "Microsoft.Data.Sqlite").Attribute("Version")!.Value;

        // A portable app outside the repository (none of its build settings), restored from the packed folder into packages
        // of its own: a stale Orseis of the same version in the machine's NuGet cache cannot stand in for this pack.
        string app = Directory.CreateDirectory(Path.Combine(_output, "app")).FullName;
        File.WriteAllText(Path.Combine(app, "App.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>net10.0</TargetFramework>
                <ImplicitUsings>enable</ImplicitUsings>
                <Nullable>enable</Nullable>
                <RestorePackagesPath>{Path.Combine(app, "packages")}</RestorePackagesPath>
                <RestoreAdditionalProjectSources>{_output}</RestoreAdditionalProjectSources>
              </PropertyGroup>
              <ItemGroup>
                <PackageReference Include="Orseis" Version="{Version}" />
                <PackageReference Include="Microsoft.Data.Sqlite" Version="{sqlite}" />
              </ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(app, "Program.cs"), """
            using Microsoft.Data.Sqlite;
            using Orseis;

            await using var db = new Database(SqliteFactory.Instance, "Data Source=app.db");
            await db.ExecuteAsync("create table users (id integer primary key, name text not null)");
            await db.ExecuteAsync("insert into users (id, name) values (@Id, @Name)", new { Id = 42L, Name = "Ada" });
            long id = 42;
            Console.WriteLine(await db.QuerySingleAsync<User>($"select id, name from users where id = {id}"));
            Console.WriteLine(typeof(Database).Assembly.Location);

            internal sealed record User(long Id, string Name);
            """);

        Run(app, Dotnet(), ["build", "-c", "Release", "-nologo", "-nodeReuse:false", "-p:UseSharedCompilation=false"]);
        string bin = Path.Combine(app, "bin", "Release", "net10.0");
        string[] output = Run(bin, Dotnet(), [Path.Combine(bin, "App.dll")])
            .ReplaceLineEndings("\n").Split('\n', StringSplitOptions.RemoveEmptyEntries);

        Assert.Equal("User { Id = 42, Name = Ada }", output[0]);
        using ZipArchive nupkg = ZipFile.OpenRead(package);
        // The host chose this platform's image (the app's deps.json names them all), byte for byte the package's; on a
        // platform the package has no image for it takes lib/'s.
        string loaded = Path.GetRelativePath(bin, output[1]).Replace('\\', '/');
        string platform = (OperatingSystem.IsLinux() ? "linux" : OperatingSystem.IsWindows() ? "win" : OperatingSystem.IsMacOS() ? "osx" : "other")
            + RuntimeInformation.OSArchitecture switch { Architecture.X64 => "-x64", Architecture.Arm64 => "-arm64", _ => "-other" };
        if (PrecompiledMachines.ContainsKey(platform))
        {
            string entry = $"runtimes/{platform}/lib/net10.0/Orseis.dll";
            Assert.Equal(entry, loaded);
            Assert.Equal(Bytes(nupkg, entry), File.ReadAllBytes(output[1]));
        }
        else
        {
            Assert.Equal(Bytes(nupkg, "lib/net10.0/Orseis.dll"), File.ReadAllBytes(output[1]));
        }
    }

    [Fact]
    public void The_dependency_injection_package_has_its_docs_and_readme_and_depends_on_orseis_and_abstractions_only()
    {
        string root = RepositoryRoot.Find();
        (string package, XElement metadata) = Pack(root, "Orseis.DependencyInjection");

        using ZipArchive nupkg = ZipFile.OpenRead(package);
        string[] entries = [.. nupkg.Entries.Select(e => e.FullName)];
        Assert.Contains("lib/net10.0/Orseis.DependencyInjection.dll", entries);
        Assert.Contains("lib/net10.0/Orseis.DependencyInjection.xml", entries);
        string text = Readme(nupkg);
        Assert.Contains("dotnet add package Orseis.DependencyInjection", text, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"\]\((?!https://)", text);

        // The application chooses its container, configuration sources and logging: only abstractions and Options (which brings
        // the DependencyInjection abstractions) are imposed, and Orseis of the same release.
        Dictionary<string, string> dependencies = Dependencies(metadata);
        Assert.Equal(
            [
                "Microsoft.Extensions.Configuration.Abstractions", "Microsoft.Extensions.Diagnostics.HealthChecks.Abstractions",
                "Microsoft.Extensions.Hosting.Abstractions", "Microsoft.Extensions.Logging.Abstractions", "Microsoft.Extensions.Options", "Orseis",
            ],
            dependencies.Keys.Order(StringComparer.Ordinal).ToArray());
        Assert.Equal(Version, dependencies["Orseis"]);
    }

    [Fact]
    public void The_aspnetcore_package_depends_on_the_dependency_injection_package_its_readme_calls()
    {
        string root = RepositoryRoot.Find();
        (string package, XElement metadata) = Pack(root, "Orseis.AspNetCore");

        using ZipArchive nupkg = ZipFile.OpenRead(package);
        string[] entries = [.. nupkg.Entries.Select(e => e.FullName)];
        Assert.Contains("lib/net10.0/Orseis.AspNetCore.dll", entries);
        Assert.Contains("lib/net10.0/Orseis.AspNetCore.xml", entries);

        // UseOrseisScopes finds the database AddOrseis (Orseis.DependencyInjection) registered, and the readme calls AddOrseis:
        // the package depends on that package (which brings Orseis) at the same release, and the readme names it.
        Dictionary<string, string> dependencies = Dependencies(metadata);
        Assert.Equal(["Orseis.DependencyInjection"], dependencies.Keys.ToArray());
        Assert.Equal(Version, dependencies["Orseis.DependencyInjection"]);
        string text = Readme(nupkg);
        Assert.Contains("AddOrseis(", text, StringComparison.Ordinal);
        Assert.Contains("dotnet add package Orseis.AspNetCore", text, StringComparison.Ordinal);
        Assert.Contains("[Orseis.DependencyInjection](https://www.nuget.org/packages/Orseis.DependencyInjection)", text, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"\]\((?!https://)", text);
    }

    [Fact]
    public void The_trace_tool_package_is_the_release_its_readme_installs_and_says_what_the_app_must_turn_on()
    {
        string root = RepositoryRoot.Find();
        // The SDK never validates a tool package (PackAsTool turns EnablePackageValidation off: a tool has no library API).
        (string package, XElement metadata) = Pack(root, "Orseis.Trace", validated: false);

        using ZipArchive nupkg = ZipFile.OpenRead(package);
        XNamespace ns = metadata.Name.Namespace;
        Assert.Equal("DotnetTool", Assert.Single(metadata.Descendants(ns + "packageType")).Attribute("name")!.Value);
        string text = Readme(nupkg);
        // It is not on nuget.org: the readme installs the version just packed, from the folder it was packed into.
        Assert.Contains($"dotnet tool install --global Orseis.Trace --add-source ./packages --version {Version}", text, StringComparison.Ordinal);
        Assert.Contains("dotnet pack src/Orseis.Trace -c Release -o ./packages", text, StringComparison.Ordinal);
        Assert.Contains("Detectors = FindingKind.All", text, StringComparison.Ordinal);
        Assert.Contains("no detector facts in this trace", text, StringComparison.Ordinal);
    }

    [Fact]
    public void The_changelog_has_an_entry_for_the_release_and_an_unreleased_section()
    {
        string changelog = File.ReadAllText(Path.Combine(RepositoryRoot.Find(), "CHANGELOG.md"));
        Assert.Contains("## [Unreleased]", changelog, StringComparison.Ordinal);
        Assert.Contains($"## [{Version}]", changelog, StringComparison.Ordinal);
        Assert.True(changelog.IndexOf("## [Unreleased]", StringComparison.Ordinal) < changelog.IndexOf($"## [{Version}]", StringComparison.Ordinal),
            "Unreleased comes first, above the newest release");
    }

    /// <summary>
    /// Packs src/<paramref name="project"/> into this test's folder and returns its package and nuspec metadata, after
    /// checking what every package of the release has: the version in its file name and nuspec, its own README.md, the MIT
    /// license expression, and (unless <paramref name="validated"/> is false) the SDK's package validation run on this pack.
    /// </summary>
    private (string Package, XElement Metadata) Pack(string root, string project, bool validated = true, string? output = null,
        string[]? properties = null)
    {
        output ??= _output;
        // Validation touches its semaphore only when it ran and passed (a failure fails the pack): removed first, it can only
        // be there again if this pack validated.
        string semaphore = Path.Combine(root, "src", project, "obj", "Release", "net10.0", ValidationSemaphore);
        File.Delete(semaphore);

        // Packs what this test project's build just built in Release, as a release does after its build (`dotnet pack
        // --no-build`): Orseis and Orseis.Trace are its references, Orseis.DependencyInjection and Orseis.AspNetCore come
        // through the SlowApp sample's. Building again here took minutes on a loaded machine; packing takes seconds.
        // No build servers or node reuse: a server left running would hold this test's output pipes open.
        Run(root, Dotnet(), ["pack", Path.Combine("src", project, project + ".csproj"), "-c", "Release", "--no-build", "--no-restore", "-o", output,
            "-nologo", "-nodeReuse:false", .. properties ?? []]);

        string package = Path.Combine(output, $"{project}.{Version}.nupkg");
        Assert.True(File.Exists(package), $"dotnet pack made no {Path.GetFileName(package)}; it made: "
            + string.Join(", ", Directory.GetFiles(output).Select(Path.GetFileName)));
        Assert.Equal(validated, File.Exists(semaphore));

        using ZipArchive nupkg = ZipFile.OpenRead(package);
        XElement metadata = Nuspec(nupkg);
        XNamespace ns = metadata.Name.Namespace;
        Assert.Equal(project, metadata.Element(ns + "id")!.Value);
        Assert.Equal(Version, metadata.Element(ns + "version")!.Value);
        Assert.Equal("README.md", metadata.Element(ns + "readme")!.Value);
        Assert.Equal(File.ReadAllText(Path.Combine(root, "src", project, "README.md")), Readme(nupkg));
        XElement license = metadata.Element(ns + "license")!;
        Assert.Equal(("expression", "MIT"), (license.Attribute("type")!.Value, license.Value));
        return (package, metadata);
    }

    private static byte[] Bytes(ZipArchive nupkg, string entry)
    {
        using Stream stream = nupkg.GetEntry(entry)!.Open();
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }

    /// <summary>What the PE file of a packed Orseis.dll says about its code.</summary>
    /// <param name="ReadyToRun">The CLI header's ManagedNativeHeader points at a ReadyToRun header (READYTORUN_SIGNATURE, 'RTR').</param>
    /// <param name="Machine">The COFF header's machine (crossgen2 marks the target OS in it).</param>
    /// <param name="ILOnly">The CLI header's ILONLY flag.</param>
    /// <param name="Mvid">The module's id.</param>
    /// <param name="MethodBodies">Each method's IL, by its token, hex-encoded.</param>
    private sealed record Image(bool ReadyToRun, Machine Machine, bool ILOnly, Guid Mvid, List<string> MethodBodies)
    {
        private const uint ReadyToRunSignature = 0x00525452;

        public static Image Read(string package, string entry)
        {
            using ZipArchive nupkg = ZipFile.OpenRead(package);
            Assert.True(nupkg.GetEntry(entry) is not null, $"{Path.GetFileName(package)} has no {entry}");
            using var pe = new PEReader(ImmutableArray.Create(Bytes(nupkg, entry)));
            CorHeader cor = pe.PEHeaders.CorHeader!;
            bool readyToRun = cor.ManagedNativeHeaderDirectory.Size > 0
                && pe.GetSectionData(cor.ManagedNativeHeaderDirectory.RelativeVirtualAddress).GetReader().ReadUInt32() == ReadyToRunSignature;
            MetadataReader metadata = pe.GetMetadataReader();
            List<string> bodies = [];
            foreach (MethodDefinitionHandle handle in metadata.MethodDefinitions)
            {
                MethodDefinition method = metadata.GetMethodDefinition(handle);
                if (method.RelativeVirtualAddress != 0)
                    bodies.Add($"{MetadataTokens.GetToken(handle):x8} {Convert.ToHexString(pe.GetMethodBody(method.RelativeVirtualAddress).GetILBytes()!)}");
            }

            return new Image(readyToRun, pe.PEHeaders.CoffHeader.Machine, (cor.Flags & CorFlags.ILOnly) != 0,
                metadata.GetGuid(metadata.GetModuleDefinition().Mvid), bodies);
        }
    }

    private static string Readme(ZipArchive nupkg)
    {
        using var readme = new StreamReader(nupkg.GetEntry("README.md")!.Open());
        return readme.ReadToEnd();
    }

    /// <summary>The nuspec's dependencies, id to version.</summary>
    private static Dictionary<string, string> Dependencies(XElement metadata) =>
        metadata.Descendants(metadata.Name.Namespace + "dependency").ToDictionary(d => d.Attribute("id")!.Value, d => d.Attribute("version")!.Value);

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
