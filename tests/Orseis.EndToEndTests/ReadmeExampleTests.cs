using System.Text.RegularExpressions;
using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// The readme examples as a reader runs them: the C# is cut out of the markdown, built once as a console program against
/// the Orseis this test runs with (plus Microsoft.Data.Sqlite at the repository's version), and run twice in one folder,
/// so the second run finds the database the first one left and must still succeed and print the same line.
/// </summary>
public sealed partial class ReadmeExampleTests : IDisposable
{
    private readonly string _work = Directory.CreateTempSubdirectory("orseis-readme-").FullName;

    [Fact]
    public void The_package_readme_example_builds_and_prints_the_same_line_on_every_run()
    {
        // The package's page shows one program: every C# block of src/Orseis/README.md together.
        string readme = File.ReadAllText(Path.Combine(RepositoryRoot.Find(), "src", "Orseis", "README.md"));
        string program = string.Join("\n", CSharpBlocks(readme));

        BuildsAndRunsTwice(program, "example.db", "Ada is user 1; 2 users: Ada, Grace");
    }

    [Fact]
    public void The_repository_readme_example_builds_and_prints_the_same_line_on_every_run()
    {
        // The example at the top of README.md is its first C# block; the later ones are fragments of the API's description.
        string readme = File.ReadAllText(Path.Combine(RepositoryRoot.Find(), "README.md"));
        string program = CSharpBlocks(readme)[0];

        BuildsAndRunsTwice(program, "app.db", "User { Id = 42, Name = Ada }");
    }

    private void BuildsAndRunsTwice(string program, string databaseFile, string expected)
    {
        // The readme says what the example prints; the runs must print exactly that.
        Assert.Contains("// prints: " + expected, program, StringComparison.Ordinal);
        string project = Path.Combine(_work, "example"), data = Path.Combine(_work, "data");
        Directory.CreateDirectory(project);
        Directory.CreateDirectory(data);
        string root = RepositoryRoot.Find();
        // Central package versions as the repository pins them (transitive pins included), and nothing else inherited from
        // the folders above the temporary one.
        File.Copy(Path.Combine(root, "Directory.Packages.props"), Path.Combine(project, "Directory.Packages.props"));
        File.WriteAllText(Path.Combine(project, "Directory.Build.props"), "<Project />");
        File.WriteAllText(Path.Combine(project, "Directory.Build.targets"), "<Project />");
        File.WriteAllText(Path.Combine(project, "Program.cs"), program);
        // The Orseis assembly this test was built with, i.e. the repository's source; its one dependency comes as a package.
        string orseis = typeof(Database).Assembly.Location;
        File.WriteAllText(Path.Combine(project, "ReadmeExample.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>net10.0</TargetFramework>
                <Nullable>enable</Nullable>
                <ImplicitUsings>enable</ImplicitUsings>
                <TreatWarningsAsErrors>true</TreatWarningsAsErrors>
              </PropertyGroup>
              <ItemGroup>
                <Reference Include="Orseis" HintPath="{orseis}" />
                <PackageReference Include="Microsoft.Extensions.Logging.Abstractions" />
                <PackageReference Include="Microsoft.Data.Sqlite" />
              </ItemGroup>
            </Project>
            """);

        ToolProcess.Result build = ToolProcess.Run(project, ToolProcess.Dotnet(),
            ["build", "-c", "Release", "-nologo", "-nodeReuse:false", "-p:UseSharedCompilation=false"], TimeSpan.FromMinutes(4));
        Assert.True(build.ExitCode == 0, $"the readme example does not build:\n{program}\n{build.Output}\n{build.Error}");
        string dll = Path.Combine(project, "bin", "Release", "net10.0", "ReadmeExample.dll");

        for (int run = 1; run <= 2; run++)
        {
            ToolProcess.Result result = ToolProcess.Run(data, ToolProcess.Dotnet(), [dll], TimeSpan.FromMinutes(1));
            Assert.True(result.ExitCode == 0, $"run {run} of the readme example exited with {result.ExitCode}:\n{result.Output}\n{result.Error}");
            Assert.Equal(expected, result.Output.Trim());
            Assert.True(File.Exists(Path.Combine(data, databaseFile)), $"run {run} left no {databaseFile} in its working folder");
        }
    }

    /// <summary>The contents of the markdown's <c>```csharp</c> blocks, in order; at least one.</summary>
    private static string[] CSharpBlocks(string markdown)
    {
        string[] blocks = [.. CSharpBlock().Matches(markdown.ReplaceLineEndings("\n")).Select(m => m.Groups["code"].Value)];
        Assert.NotEmpty(blocks);
        return blocks;
    }

    [GeneratedRegex(@"^```csharp\n(?<code>.*?)^```", RegexOptions.Singleline | RegexOptions.Multiline)]
    private static partial Regex CSharpBlock();

    public void Dispose() => Directory.Delete(_work, recursive: true);
}
