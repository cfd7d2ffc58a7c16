using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// orseis-trace as its users get it: packed as a dotnet tool, installed with <c>dotnet tool install</c>, and run by its
/// command name against the PoolWatch sample in another process, and with bad input.
/// </summary>
public sealed class TraceToolTests(TraceToolTests.InstalledTool installed) : IClassFixture<TraceToolTests.InstalledTool>
{
    private readonly string _work = installed.Work;

    [Fact]
    public void Installed_as_a_dotnet_tool_it_attaches_to_a_process_and_reports_its_pool()
    {
        string tool = installed.Command;
        using PoolWatchProcess sample = PoolWatchProcess.Start("--rate", "40", "--concurrency", "2", "--duration", "60", "--report", "0");

        ToolProcess.Result watched = ToolProcess.Run(_work, tool, [sample.Id.ToString(System.Globalization.CultureInfo.InvariantCulture), "--duration", "3.5"], TimeSpan.FromSeconds(60));

        Assert.True(watched.ExitCode == 0, watched.Output + watched.Error);
        Assert.Contains($"orseis-trace: attached to {sample.Id}", watched.Output, StringComparison.Ordinal);
        // At least one interval of the meter, read out of process, with the sample's pool and its opens per second.
        Assert.Matches(@"orseis\.connection\.opens\s+\d+(\.\d+)? / 1 s\s+\[db\.client\.connection\.pool\.name=poolwatch", watched.Output);
        Assert.Contains("pool report 'poolwatch' (while attached):", watched.Output, StringComparison.Ordinal);
        Assert.Matches(@"opens/s [1-9]", watched.Output);
    }

    [Fact]
    public void Installed_as_a_dotnet_tool_it_says_what_was_wrong_with_its_input()
    {
        string tool = installed.Command;

        ToolProcess.Result noProcess = ToolProcess.Run(_work, tool, ["999999", "--duration", "1"], TimeSpan.FromSeconds(60));
        Assert.Equal(2, noProcess.ExitCode);
        Assert.Contains("cannot attach to process 999999", noProcess.Error, StringComparison.Ordinal);

        ToolProcess.Result nothing = ToolProcess.Run(_work, tool, [], TimeSpan.FromSeconds(60));
        Assert.NotEqual(0, nothing.ExitCode);
        Assert.Contains("give either a process id to attach to or --file", nothing.Error, StringComparison.Ordinal);

        ToolProcess.Result badInterval = ToolProcess.Run(_work, tool, ["1", "--interval", "0"], TimeSpan.FromSeconds(60));
        Assert.NotEqual(0, badInterval.ExitCode);
        Assert.Contains("--interval must be between", badInterval.Error, StringComparison.Ordinal);

        ToolProcess.Result missingFile = ToolProcess.Run(_work, tool, ["--file", Path.Combine(_work, "none.nettrace")], TimeSpan.FromSeconds(60));
        Assert.NotEqual(0, missingFile.ExitCode);
        Assert.Contains("none.nettrace", missingFile.Error, StringComparison.Ordinal);
    }

    /// <summary>src/Orseis.Trace packed and installed once with <c>dotnet tool install --tool-path</c>, for the tests of the class.</summary>
    public sealed class InstalledTool : IDisposable
    {
        public InstalledTool()
        {
            string root = RepositoryRoot.Find();
            string packages = Path.Combine(Work, "packages"), tools = Path.Combine(Work, "tools");
            Succeeds(ToolProcess.Run(root, ToolProcess.Dotnet(),
                ["pack", Path.Combine("src", "Orseis.Trace", "Orseis.Trace.csproj"), "-c", "Release", "--no-restore", "-o", packages, "-nologo",
                 "-nodeReuse:false", "-p:UseSharedCompilation=false"], TimeSpan.FromMinutes(3)));
            Succeeds(ToolProcess.Run(Work, ToolProcess.Dotnet(),
                ["tool", "install", "Orseis.Trace", "--tool-path", tools, "--add-source", packages, "--prerelease"], TimeSpan.FromMinutes(3)));
            Command = Path.Combine(tools, OperatingSystem.IsWindows() ? "orseis-trace.exe" : "orseis-trace");
            Assert.True(File.Exists(Command), $"dotnet tool install did not create {Command}");
        }

        public string Work { get; } = Directory.CreateTempSubdirectory("orseis-trace-tool-").FullName;

        /// <summary>The installed <c>orseis-trace</c> command.</summary>
        public string Command { get; }

        public void Dispose() => Directory.Delete(Work, recursive: true);

        private static void Succeeds(ToolProcess.Result result) =>
            Assert.True(result.ExitCode == 0, $"exited with {result.ExitCode}:\n{result.Output}\n{result.Error}");
    }
}
