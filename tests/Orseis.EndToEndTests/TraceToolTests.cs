using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// orseis-trace as its users get it: packed as a dotnet tool, installed with <c>dotnet tool install --tool-path</c>, and run
/// by its command name against the PoolWatch sample in another process, on a recorded trace, and with bad input.
/// </summary>
public sealed class TraceToolTests(TraceToolTests.InstalledTool installed) : IClassFixture<TraceToolTests.InstalledTool>
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(90);
    private readonly string _work = installed.Work;

    private static string Sample => BuiltProgram.Dll("samples", "Orseis.Samples.PoolWatch");

    /// <summary>
    /// The sample copied under a name of its own (its dll, deps and runtimeconfig renamed), so <c>-n</c> finds this test's
    /// processes and not the PoolWatch samples other test classes run at the same time.
    /// </summary>
    private string RenamedSample(string name)
    {
        string folder = Path.Combine(_work, name);
        if (Directory.Exists(folder))
            return Path.Combine(folder, name + ".dll");
        string built = Path.GetDirectoryName(Sample)!;
        foreach (string file in Directory.GetFiles(built, "*", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(built, file);
            if (Path.GetDirectoryName(relative) is not { Length: > 0 })
                relative = relative.Replace("Orseis.Samples.PoolWatch.", name + ".", StringComparison.Ordinal);
            string target = Path.Combine(folder, relative);
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }

        return Path.Combine(folder, name + ".dll");
    }

    private static string Fixture(string name) => Path.Combine(RepositoryRoot.Find(), "tests", "Orseis.EndToEndTests", "Fixtures", name);

    private ToolProcess.Result Run(params string[] args) => ToolProcess.Run(_work, installed.Command, args, Limit);

    [Fact]
    public void Report_on_the_recorded_fixture_writes_exactly_the_expected_json()
    {
        File.Copy(Fixture("poolwatch-churn.nettrace"), Path.Combine(_work, "poolwatch-churn.nettrace"), overwrite: true);

        ToolProcess.Result report = Run("report", "poolwatch-churn.nettrace", "--format", "json");

        Assert.True(report.ExitCode == 0, report.Error);
        Assert.Equal(File.ReadAllText(Fixture("poolwatch-churn.report.json")).ReplaceLineEndings("\n"), report.Output.ReplaceLineEndings("\n"));
    }

    [Fact]
    public void Report_text_and_html_name_the_finding_with_its_numbers()
    {
        ToolProcess.Result text = Run("report", Fixture("poolwatch-churn.nettrace"));
        Assert.True(text.ExitCode == 0, text.Error);
        Assert.Contains("pool 'poolwatch' (sqlite): found Churn", text.Output, StringComparison.Ordinal);
        Assert.Contains("opens=10, opensPerSecond=23.794", text.Output, StringComparison.Ordinal);

        string html = Path.Combine(_work, "report.html");
        ToolProcess.Result written = Run("report", Fixture("poolwatch-churn.nettrace"), "--format", "html", "-o", html);
        Assert.True(written.ExitCode == 0, written.Error);
        string page = File.ReadAllText(html);
        Assert.Contains("<b>Found: Churn</b>", page, StringComparison.Ordinal);
        Assert.Equal(2, page.Split("<svg ").Length - 1); // the open-time histogram and the timeline
        Assert.DoesNotContain("<script", page, StringComparison.Ordinal);
        Assert.DoesNotContain("src=", page, StringComparison.Ordinal); // self-contained
    }

    [Fact]
    public void Report_of_a_command_started_under_the_tool_names_the_churn_the_process_found_and_nothing_else()
    {
        ToolProcess.Result report = Run("report", "--format", "json", "--",
            ToolProcess.Dotnet(), Sample, "--rate", "20", "--concurrency", "2", "--duration", "1.5", "--report", "0");

        Assert.True(report.ExitCode == 0, report.Error);
        using JsonDocument json = JsonDocument.Parse(report.Output);
        JsonElement pool = Assert.Single(json.RootElement.GetProperty("pools").EnumerateArray());
        Assert.Equal("poolwatch", pool.GetProperty("pool").GetString());
        // The sample's set-up (ten inserts back to back in Main) is churn, raised in its first second: seen only because
        // the session was on before the app started. The same verdict as the sample's own in-process report (its
        // output goes to the tool's stderr).
        Assert.Equal(["Churn"], pool.GetProperty("found").EnumerateArray().Select(k => k.GetString()));
        Assert.Contains("findings: Churn 1", report.Error, StringComparison.Ordinal);
        Assert.True(pool.GetProperty("opens").GetProperty("count").GetDouble() >= 10);
    }

    [Fact]
    public void Monitor_json_gives_one_object_per_interval_with_the_pool_and_the_finding()
    {
        ToolProcess.Result monitor = Run("monitor", "--format", "json", "--interval", "0.5", "--",
            ToolProcess.Dotnet(), Sample, "--rate", "40", "--concurrency", "2", "--duration", "2.5", "--report", "0");

        Assert.True(monitor.ExitCode == 0, monitor.Error);
        List<JsonElement> intervals = [.. monitor.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => JsonDocument.Parse(l).RootElement)];
        Assert.True(intervals.Count >= 2, monitor.Output);
        List<JsonElement> pools = [.. intervals.SelectMany(i => i.GetProperty("pools").EnumerateArray())];
        Assert.Contains(pools, p => p.GetProperty("pool").GetString() == "poolwatch" && p.GetProperty("opensPerSecond").GetDouble() > 0);
        JsonElement churn = Assert.Single(pools.SelectMany(p => p.GetProperty("findings").EnumerateArray()));
        Assert.Equal("Churn", churn.GetProperty("kind").GetString());
        // Wait percentiles in milliseconds, never raw seconds.
        JsonElement waited = pools.First(p => p.GetProperty("waitMs").ValueKind == JsonValueKind.Object).GetProperty("waitMs");
        Assert.True(waited.GetProperty("p50").GetDouble() is > 0.001 and < 1000, waited.ToString());
    }

    /// <summary>
    /// A pool too small for its load on a real server (Max Pool Size 3, six workers each holding 150 ms): the report names
    /// the same findings the process's own in-process report gave (saturation and the pool-size advice, beside the set-up's
    /// churn), and no other.
    /// </summary>
    [PostgresToolFact]
    public void Report_of_a_saturated_postgres_pool_gives_the_verdict_the_process_gave()
    {
        string postgres = Environment.GetEnvironmentVariable("ORSEIS_POSTGRES")!;
        ToolProcess.Result report = Run("report", "--format", "json", "--", ToolProcess.Dotnet(), Sample,
            "--postgres", postgres + ";Maximum Pool Size=3", "--hold-ms", "150", "--concurrency", "6", "--duration", "3", "--report", "0");

        Assert.True(report.ExitCode == 0, report.Error);
        using JsonDocument json = JsonDocument.Parse(report.Output);
        JsonElement pool = Assert.Single(json.RootElement.GetProperty("pools").EnumerateArray());
        string[] found = [.. pool.GetProperty("found").EnumerateArray().Select(k => k.GetString()!).Order(StringComparer.Ordinal)];
        Assert.Contains("Saturation", found);
        Assert.Contains("PoolSize", found);
        System.Text.RegularExpressions.Match own = System.Text.RegularExpressions.Regex.Match(report.Error, @"findings: ([A-Za-z]+ \d+(, [A-Za-z]+ \d+)*)");
        Assert.True(own.Success, report.Error);
        string[] inProcess = [.. own.Groups[1].Value.Split(", ").Select(f => f.Split(' ')[0]).Order(StringComparer.Ordinal)];
        Assert.Equal(inProcess, found);
    }

    /// <summary>
    /// Npgsql publishes the conventional pool instruments itself, so Orseis publishes its own under orseis.connection.*:
    /// the tool reads them as the pool's figures all the same.
    /// </summary>
    [PostgresToolFact]
    public void Monitor_reads_a_postgres_pools_figures_that_orseis_publishes_under_its_own_names()
    {
        string postgres = Environment.GetEnvironmentVariable("ORSEIS_POSTGRES")!;
        ToolProcess.Result monitor = Run("monitor", "--format", "json", "--interval", "0.5", "--", ToolProcess.Dotnet(), Sample,
            "--postgres", postgres + ";Maximum Pool Size=3", "--hold-ms", "150", "--concurrency", "6", "--duration", "3", "--report", "0");

        Assert.True(monitor.ExitCode == 0, monitor.Error);
        List<JsonElement> pools = [.. monitor.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .SelectMany(l => JsonDocument.Parse(l).RootElement.GetProperty("pools").EnumerateArray())
            .Where(p => p.GetProperty("pool").GetString() == "poolwatch")];
        Assert.Contains(pools, p => p.GetProperty("max").ValueKind == JsonValueKind.Number && p.GetProperty("max").GetDouble() == 3);
        Assert.Contains(pools, p => p.GetProperty("inUse").ValueKind == JsonValueKind.Number && p.GetProperty("inUse").GetDouble() >= 1);
        Assert.Contains(pools, p => p.GetProperty("useMs").ValueKind == JsonValueKind.Object);
    }

    [Fact]
    public void Ps_marks_the_sample_and_monitor_attaches_to_it_by_pid_and_by_name()
    {
        using PoolWatchProcess sample = PoolWatchProcess.StartDll(RenamedSample("TracedPoolWatch"),
            "--rate", "40", "--concurrency", "2", "--duration", "60", "--report", "0");
        string pid = sample.Id.ToString(CultureInfo.InvariantCulture);

        ToolProcess.Result ps = Run("ps");
        Assert.True(ps.ExitCode == 0, ps.Error);
        Assert.Matches($@"(?m)^\s*{pid}\s+TracedPoolWatch\s+yes\s", ps.Output);

        ToolProcess.Result byPid = Run("-p", pid, "--duration", "2.5");
        Assert.True(byPid.ExitCode == 0, byPid.Error);
        Assert.Matches(@"\] poolwatch \(sqlite\): opens/s [1-9][0-9.]*, commands/s [1-9]", byPid.Output);
        Assert.Matches(@"wait p50 [0-9.]+ / p95 [0-9.]+ / p99 [0-9.]+ ms", byPid.Output);

        ToolProcess.Result byName = Run("monitor", "-n", "TracedPoolWatch", "--duration", "2500ms", "--format", "json");
        Assert.True(byName.ExitCode == 0, byName.Error);
        Assert.Contains("\"pool\":\"poolwatch\"", byName.Output, StringComparison.Ordinal);
    }

    [Fact]
    public void Bad_input_is_one_line_and_an_exit_code_per_kind()
    {
        string foreign = Path.Combine(_work, "foreign.nettrace"), truncated = Path.Combine(_work, "truncated.nettrace");
        File.WriteAllText(foreign, "not a trace\n");
        byte[] whole = File.ReadAllBytes(Fixture("poolwatch-churn.nettrace"));
        File.WriteAllBytes(truncated, whole[..(whole.Length / 2)]);

        Refused(1, "Unrecognized command or argument '--bogus'", "--bogus");
        Refused(1, "--process-id takes a process id (a number), not 'abc'", "-p", "abc");
        Refused(1, "say which process to watch", "monitor");
        Refused(2, "--duration must be more than zero", "-p", "1", "--duration", "0");
        Refused(2, "--duration must be more than zero", "collect", "-p", "1", "-o", "x.nettrace", "--duration", "-2s");
        Refused(2, "--interval must be from 0.1 s to 3600 s", "-p", "1", "--interval", "5000");
        Refused(2, "--duration 'soon' is not a duration", "-p", "1", "--duration", "soon");
        Refused(3, "no process 999999 is running", "-p", "999999");
        Refused(5, "no .NET process is named 'no-such-app'", "-n", "no-such-app");
        Refused(8, "is not a .nettrace file", "report", foreign);
        Refused(8, "is cut short", "report", truncated);
        Refused(8, "no trace file", "report", Path.Combine(_work, "none.nettrace"));
        Refused(9, "'/bin/true' exited (code 0) without connecting to the diagnostic port", "report", "--", "/bin/true");

        using (Process notDotnet = Process.Start("sleep", "30"))
        {
            try
            {
                Refused(4, $"process {notDotnet.Id} is not a .NET process", "-p", notDotnet.Id.ToString(CultureInfo.InvariantCulture));
            }
            finally
            {
                notDotnet.Kill();
            }
        }

        // A .NET process without Orseis: another orseis-trace, waiting at a diagnostic port.
        string port = Path.Combine(_work, "wait.sock");
        var waiting = new ProcessStartInfo(installed.Command) { RedirectStandardError = true, RedirectStandardOutput = true };
        foreach (string arg in new[] { "monitor", "--diagnostic-port", port })
            waiting.ArgumentList.Add(arg);
        using (Process other = Process.Start(waiting)!)
        {
            try
            {
                for (int i = 0; i < 100 && !File.Exists(port); i++)
                    Thread.Sleep(100);
                Refused(7, "has not loaded Orseis", "-p", other.Id.ToString(CultureInfo.InvariantCulture));
            }
            finally
            {
                other.Kill();
            }
        }

        string twin = RenamedSample("TwinPoolWatch");
        using PoolWatchProcess one = PoolWatchProcess.StartDll(twin, "--rate", "5", "--concurrency", "1", "--duration", "60", "--report", "0");
        using PoolWatchProcess two = PoolWatchProcess.StartDll(twin, "--rate", "5", "--concurrency", "1", "--duration", "60", "--report", "0");

        // A socket left by a process that died, whose id is now a thread of a live one (/proc/ID exists for threads too).
        string thread = Directory.GetDirectories($"/proc/{one.Id}/task").Select(Path.GetFileName)
            .First(t => t != one.Id.ToString(CultureInfo.InvariantCulture))!;
        string stale = Path.Combine(Path.GetTempPath(), $"dotnet-diagnostic-{thread}-1-socket");
        File.WriteAllText(stale, "");
        try
        {
            Refused(6, $"2 .NET processes are named 'TwinPoolWatch' ({one.Id}, {two.Id})", "-n", "TwinPoolWatch");
        }
        finally
        {
            File.Delete(stale);
        }
    }

    private void Refused(int code, string message, params string[] args)
    {
        ToolProcess.Result result = Run(args);
        string what = $"orseis-trace {string.Join(' ', args)}: exit {result.ExitCode}, stderr:\n{result.Error}";
        Assert.True(result.ExitCode == code, what);
        Assert.Contains(message, result.Error, StringComparison.Ordinal);
        Assert.Single(result.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("orseis-trace: ", result.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", result.Error, StringComparison.Ordinal);
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
            string package = Assert.Single(Directory.GetFiles(packages, "Orseis.Trace.*.nupkg"), p => !p.EndsWith(".snupkg", StringComparison.Ordinal));
            using (System.IO.Compression.ZipArchive zip = System.IO.Compression.ZipFile.OpenRead(package))
                PackageEntries = [.. zip.Entries.Select(e => e.FullName)];
            PackageBytes = new FileInfo(package).Length;
            Succeeds(ToolProcess.Run(Work, ToolProcess.Dotnet(),
                ["tool", "install", "Orseis.Trace", "--tool-path", tools, "--add-source", packages, "--prerelease"], TimeSpan.FromMinutes(3)));
            Command = Path.Combine(tools, OperatingSystem.IsWindows() ? "orseis-trace.exe" : "orseis-trace");
            Assert.True(File.Exists(Command), $"dotnet tool install did not create {Command}");
        }

        public string Work { get; } = Directory.CreateTempSubdirectory("orseis-trace-tool-").FullName;

        /// <summary>The installed <c>orseis-trace</c> command.</summary>
        public string Command { get; }

        public IReadOnlyList<string> PackageEntries { get; }

        public long PackageBytes { get; }

        public void Dispose() => Directory.Delete(Work, recursive: true);

        private static void Succeeds(ToolProcess.Result result) =>
            Assert.True(result.ExitCode == 0, $"exited with {result.ExitCode}:\n{result.Output}\n{result.Error}");
    }

    [Fact]
    public void The_package_has_a_readme_and_no_windows_only_native_files()
    {
        Assert.Contains("README.md", installed.PackageEntries);
        Assert.DoesNotContain(installed.PackageEntries, e => e.Contains("msdia140", StringComparison.OrdinalIgnoreCase)
            || e.Contains("KernelTraceControl", StringComparison.OrdinalIgnoreCase));
        Assert.DoesNotContain(installed.PackageEntries, e => e.EndsWith(".resources.dll", StringComparison.Ordinal));
        Assert.True(installed.PackageBytes < 2_500_000, $"the package is {installed.PackageBytes} bytes");
    }
}
