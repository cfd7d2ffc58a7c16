using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// orseis-trace as its users get it: packed as a dotnet tool, installed with <c>dotnet tool install --tool-path</c>, and run
/// by its command name against the PoolWatch sample in another process, on a recorded trace, and with bad input.
/// </summary>
public sealed partial class TraceToolTests(TraceToolTests.InstalledTool installed) : IClassFixture<TraceToolTests.InstalledTool>
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
        // The fixture is the PoolWatch sample's set-up churn on SQLite, recorded from the repository's root (Release build)
        // with the tool installed from its package; re-record it when the events change shape, and write the expected json
        // from the tool's own output (then the numbers in the text test below):
        //   orseis-trace collect --interval 0.5 --duration 1 -o poolwatch-churn.nettrace -- \
        //     dotnet samples/Orseis.Samples.PoolWatch/bin/Release/net10.0/Orseis.Samples.PoolWatch.dll \
        //     --rate 20 --concurrency 2 --duration 1.5 --report 0
        //   orseis-trace report poolwatch-churn.nettrace --format json > poolwatch-churn.report.json
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
        Assert.Contains("pool 'poolwatch' (sqlite): found Churn (what the process reported)", text.Output, StringComparison.Ordinal);
        Assert.Contains("what the detectors find on this trace (replayed over 101 recorded facts): found Churn", text.Output, StringComparison.Ordinal);
        // The figures twice: as the process raised the finding, and as the replayed detector does.
        Assert.Equal(2, text.Output.Split("opens=10, opensPerSecond=71.649").Length - 1);
        // The README shows this report's finding as the tool prints it: the two lines must still be printed word for word.
        string readme = File.ReadAllText(Path.Combine(RepositoryRoot.Find(), "README.md")).ReplaceLineEndings("\n");
        int block = readme.IndexOf("```text\n- [Churn]", StringComparison.Ordinal);
        Assert.True(block >= 0, "README.md no longer shows orseis-trace's Churn line");
        string[] shown = readme[(block + "```text\n".Length)..readme.IndexOf("\n```", block + 8, StringComparison.Ordinal)].Split('\n');
        foreach (string line in shown)
            Assert.Contains(line.Trim(), text.Output, StringComparison.Ordinal);

        string html = Path.Combine(_work, "report.html");
        ToolProcess.Result written = Run("report", Fixture("poolwatch-churn.nettrace"), "--format", "html", "-o", html);
        Assert.True(written.ExitCode == 0, written.Error);
        string page = File.ReadAllText(html);
        Assert.Contains("<b>Found: Churn</b>", page, StringComparison.Ordinal);
        Assert.Contains("<b>Replayed: Churn</b>", page, StringComparison.Ordinal);
        Assert.Equal(2, page.Split("<svg ").Length - 1); // the open-time histogram and the timeline
        Assert.DoesNotContain("<script", page, StringComparison.Ordinal);
        Assert.DoesNotContain("src=", page, StringComparison.Ordinal); // self-contained
    }

    [Fact]
    public void Report_of_a_command_started_under_the_tool_names_the_churn_the_process_found_and_nothing_else()
    {
        ToolProcess.Result report = Run("report", "--format", "json", "--",
            ToolProcess.Dotnet(), Sample, "--rate", "20", "--concurrency", "2", "--duration", "1.5", "--report", "0");

        // The sample's set-up (ten inserts back to back in Main) is churn, raised in its first second: seen only because
        // the session was on before the app started. The same verdict as the sample's own in-process report (its
        // output goes to the tool's stderr), and the detectors replayed over the recorded facts give it too. The same
        // ten inserts, one after another with different arguments, are also an N+1 candidate (the process's alone).
        JsonElement pool = SameVerdict(report, "Churn", "RepeatedStatement");
        Assert.Equal("poolwatch", pool.GetProperty("pool").GetString());
        Assert.Contains("Churn 1", report.Error, StringComparison.Ordinal);
        JsonElement repeated = Assert.Single(pool.GetProperty("findings").EnumerateArray(), f => f.GetProperty("kind").GetString() == "RepeatedStatement");
        Assert.Matches(@"^N\+1 candidate: one statement ran (5|6|7|8|9|10) times one after another on one flow \(no scope\) of pool 'poolwatch' from Program\.",
            repeated.GetProperty("message").GetString());
        Assert.Contains("One execute-many for all of them", repeated.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.True(pool.GetProperty("opens").GetProperty("count").GetDouble() >= 10);
        // The replayed churn is the process's, figure for figure and with its call site.
        JsonElement own = Assert.Single(pool.GetProperty("findings").EnumerateArray(), f => f.GetProperty("kind").GetString() == "Churn");
        JsonElement replayed = Assert.Single(pool.GetProperty("replay").GetProperty("findings").EnumerateArray());
        Assert.Equal(own.GetProperty("message").GetString(), replayed.GetProperty("message").GetString());
        static string Figures(JsonElement finding) =>
            string.Join(";", finding.GetProperty("figures").EnumerateObject().Select(f => f.Name + "=" + f.Value.GetString()));
        Assert.Equal(Figures(own), Figures(replayed));
        Assert.Contains("(from Program.Main)", replayed.GetProperty("message").GetString(), StringComparison.Ordinal);
    }

    /// <summary>
    /// The verdict three ways, which must agree and be <paramref name="expected"/>: the process's finding events in the
    /// trace, the detectors replayed over the recorded facts (but for those a replay cannot run: thread-pool starvation,
    /// repeated statements), and the sample's own in-process report at its end (its stdout goes to the tool's stderr:
    /// <c>findings: Kind n, ...</c>).
    /// </summary>
    private static JsonElement SameVerdict(ToolProcess.Result report, params string[] expected)
    {
        Assert.True(report.ExitCode == 0, report.Error);
        JsonElement root = JsonDocument.Parse(report.Output).RootElement;
        Assert.True(root.GetProperty("detectorFacts").GetBoolean());
        JsonElement pool = Assert.Single(root.GetProperty("pools").EnumerateArray());
        static string[] Kinds(JsonElement list) => [.. list.EnumerateArray().Select(k => k.GetString()!).Order(StringComparer.Ordinal)];
        string[] sorted = [.. expected.Order(StringComparer.Ordinal)];
        JsonElement replay = pool.GetProperty("replay");
        string[] found = Kinds(pool.GetProperty("found"));
        Assert.True(sorted.SequenceEqual(found), $"found {string.Join(", ", found)}; replayed advice: {replay.GetProperty("poolSizeAdvice")}");
        Assert.Equal(["FrequentRetries", "RepeatedStatement", "ThreadPoolStarvation"], Kinds(replay.GetProperty("notReplayed")));
        Assert.Equal(sorted.Except(["ThreadPoolStarvation", "RepeatedStatement", "FrequentRetries"]), Kinds(replay.GetProperty("found")));
        System.Text.RegularExpressions.Match own =
            System.Text.RegularExpressions.Regex.Match(report.Error, @"findings: ([A-Za-z]+ \d+(, [A-Za-z]+ \d+)*)");
        Assert.True(own.Success, report.Error);
        Assert.Equal(sorted, own.Groups[1].Value.Split(", ").Select(f => f.Split(' ')[0]).Order(StringComparer.Ordinal));
        return pool.Clone();
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
        List<JsonElement> findings = [.. pools.SelectMany(p => p.GetProperty("findings").EnumerateArray())];
        // The set-up's ten inserts back to back: churn, and an N+1 candidate over the same EventPipe session.
        Assert.Equal(["Churn", "RepeatedStatement"], findings.Select(f => f.GetProperty("kind").GetString()).Order(StringComparer.Ordinal));
        // Ten inserts; on a loaded machine a pause of more than 20 ms between two of them (an await resumed late) splits
        // them, and the first part is named.
        Assert.Matches(@"^N\+1 candidate: one statement ran (5|6|7|8|9|10) times one after another on one flow \(no scope\)",
            findings.Single(f => f.GetProperty("kind").GetString() == "RepeatedStatement").GetProperty("message").GetString());
        // Wait percentiles in milliseconds, never raw seconds.
        JsonElement waited = pools.First(p => p.GetProperty("waitMs").ValueKind == JsonValueKind.Object).GetProperty("waitMs");
        Assert.True(waited.GetProperty("p50").GetDouble() is > 0.001 and < 1000, waited.ToString());
    }

    /// <summary>
    /// A pool too small for its load on a real server (Max Pool Size 3, six workers each holding 300 ms for 3 s, the set-up
    /// in one scope): the report names saturation and the pool-size advice, as the process's own report did and as the
    /// detectors replayed over the recorded facts do, and no other. The set-up's short holds are a kind of their own (their
    /// statements), priced apart from the workers' holds: the replay gets each hold's kind from the facts, or it would
    /// read the pool as held longer than needed, as one percentile of every hold did (docs/diagnostics.md, PoolSize).
    /// </summary>
    [PostgresToolFact]
    public void Report_of_a_saturated_postgres_pool_gives_the_verdict_the_process_gave()
    {
        string postgres = Environment.GetEnvironmentVariable("ORSEIS_POSTGRES")!;
        ToolProcess.Result report = Run("report", "--format", "json", "--", ToolProcess.Dotnet(), Sample, "--setup-scope",
            "--postgres", postgres + ";Maximum Pool Size=3", "--hold-ms", "300", "--concurrency", "6", "--duration", "3", "--report", "0");

        JsonElement pool = SameVerdict(report, "PoolSize", "RepeatedStatement", "Saturation"); // the set-up's inserts: a candidate
        Assert.Contains("raise Max Pool Size from 3", pool.GetProperty("replay").GetProperty("poolSizeAdvice").GetString(), StringComparison.Ordinal);
    }

    /// <summary>The same saturation on MariaDB through MySqlConnector.</summary>
    [MySqlToolFact]
    public void Report_of_a_saturated_mariadb_pool_gives_the_verdict_the_process_gave()
    {
        string mysql = Environment.GetEnvironmentVariable("ORSEIS_MYSQL")!;
        ToolProcess.Result report = Run("report", "--format", "json", "--", ToolProcess.Dotnet(), Sample, "--setup-scope",
            "--mysql", mysql.TrimEnd(';') + ";Maximum Pool Size=3", "--hold-ms", "150", "--concurrency", "6", "--duration", "6", "--report", "0");

        JsonElement pool = SameVerdict(report, "PoolSize", "RepeatedStatement", "Saturation"); // the set-up's inserts: a candidate
        Assert.Contains("raise Max Pool Size from 3", pool.GetProperty("replay").GetProperty("poolSizeAdvice").GetString(), StringComparison.Ordinal);
    }

    /// <summary>
    /// A cold burst on slow connects: a user of the test's own whose every new connection sleeps 0.3 s on the server
    /// (init_connect, as the scenario suite does, but only for that user, so other tests on the server are not slowed),
    /// the set-up on one connection, then 20 callers at once: a cold pool, as the process said and as the replay says,
    /// and nothing else (no saturation: Max Pool Size is 100).
    /// </summary>
    [MySqlToolFact]
    public async Task Report_of_a_cold_burst_on_slow_mariadb_connects_names_a_cold_pool_as_the_process_did()
    {
        var server = new MySqlConnector.MySqlConnectionStringBuilder(Environment.GetEnvironmentVariable("ORSEIS_MYSQL")!);
        string user = "orseis_cold_" + Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
        var admin = new MySqlConnector.MySqlConnectionStringBuilder(
            Environment.GetEnvironmentVariable("ORSEIS_MYSQL_ADMIN") is { Length: > 0 } given ? given : server.ConnectionString)
        { Pooling = false };
        if (Environment.GetEnvironmentVariable("ORSEIS_MYSQL_ADMIN") is not { Length: > 0 })
            (admin.UserID, admin.Password) = ("root", "");
        await using var connection = new MySqlConnector.MySqlConnection(admin.ConnectionString);
        await connection.OpenAsync();
        async Task<object?> Admin(string sql)
        {
            await using MySqlConnector.MySqlCommand command = connection.CreateCommand();
            command.CommandText = sql;
            return await command.ExecuteScalarAsync();
        }

        string before = (string)(await Admin("select @@GLOBAL.init_connect"))!;
        await Admin($"CREATE USER IF NOT EXISTS '{user}'@'%' IDENTIFIED BY 'orseis'");
        await Admin($"GRANT ALL ON `{server.Database}`.* TO '{user}'@'%'");
        await Admin($"SET GLOBAL init_connect = 'DO IF(SUBSTRING_INDEX(USER(), ''@'', 1) = ''{user}'', SLEEP(0.3), 0)'");
        ToolProcess.Result report;
        try
        {
            var slow = new MySqlConnector.MySqlConnectionStringBuilder(server.ConnectionString) { UserID = user, Password = "orseis" };
            report = Run("report", "--format", "json", "--", ToolProcess.Dotnet(), Sample, "--mysql", slow.ConnectionString, "--setup-scope",
                "--burst", "20", "--hold-ms", "50", "--rate", "2", "--concurrency", "1", "--duration", "2", "--report", "0");
        }
        finally
        {
            await Admin($"SET GLOBAL init_connect = '{before.Replace("'", "''", StringComparison.Ordinal)}'");
            await Admin($"DROP USER IF EXISTS '{user}'@'%'");
        }

        JsonElement pool = SameVerdict(report, "RepeatedStatement", "SlowOpen"); // the set-up's inserts: a candidate
        JsonElement cold = Assert.Single(pool.GetProperty("replay").GetProperty("findings").EnumerateArray());
        Assert.StartsWith("Cold pool 'poolwatch'", cold.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.True(double.Parse(cold.GetProperty("figures").GetProperty("connectMs").GetString()!, CultureInfo.InvariantCulture) >= 250);
    }

    /// <summary>
    /// <c>report -p PID --duration</c> on a process already running (SQLite, every tick twelve calls back to back on one
    /// flow): the session begins mid-run, so each pool is described to the replay before its first recorded fact, and
    /// the replay names the churn with its call site. The replay starts with the detectors' state empty (streaks, usual
    /// times, rate limits), so it may name a churn the process, which reported one before the recording began, kept to
    /// itself within its FindingInterval: what the process reported in the window is never more than the replay's.
    /// </summary>
    [Fact]
    public void Report_attached_by_pid_for_a_duration_replays_the_churn_of_a_running_process()
    {
        JsonElement root = AttachedReport("AttachedPoolWatch", "3", "--rate", "4", "--unit", "12");
        Assert.True(root.GetProperty("detectorFacts").GetBoolean());
        JsonElement pool = Assert.Single(root.GetProperty("pools").EnumerateArray());
        JsonElement replay = pool.GetProperty("replay");
        Assert.Equal(["Churn"], replay.GetProperty("found").EnumerateArray().Select(k => k.GetString()));
        Assert.Subset(new HashSet<string?>(["Churn", "RepeatedStatement"]), pool.GetProperty("found").EnumerateArray().Select(k => k.GetString()).ToHashSet());
        JsonElement churn = replay.GetProperty("findings")[0];
        Assert.Contains("10 connection opens back to back", churn.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.Contains("(from ", churn.GetProperty("message").GetString(), StringComparison.Ordinal);
    }

    /// <summary>
    /// <c>report -p PID</c> on a worker that loops over calls without a pause (one unit of a hundred million calls): its
    /// streak passed the churn threshold long before the session began, so the process writes the streak's call site at
    /// its first open of the session, and the replay names the churn with it.
    /// </summary>
    [Fact]
    public void Report_attached_to_a_worker_churning_without_pause_names_the_call_site()
    {
        JsonElement pool = Assert.Single(AttachedReport("LoopingPoolWatch", "2", "--rate", "1", "--unit", "100000000").GetProperty("pools")
            .EnumerateArray());
        JsonElement churn = Assert.Single(pool.GetProperty("replay").GetProperty("findings").EnumerateArray());
        Assert.StartsWith("10 connection opens back to back", churn.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.Contains("(from ", churn.GetProperty("message").GetString(), StringComparison.Ordinal);
    }

    /// <summary>
    /// The JSON of <c>report -p PID --duration</c> <paramref name="seconds"/> on the sample (one worker, SQLite), renamed
    /// <paramref name="name"/> and started with <paramref name="load"/> a second before.
    /// </summary>
    private JsonElement AttachedReport(string name, string seconds, params string[] load)
    {
        using PoolWatchProcess sample = PoolWatchProcess.StartDll(RenamedSample(name),
            [.. load, "--concurrency", "1", "--duration", "60", "--report", "0"]);
        Thread.Sleep(1000);

        ToolProcess.Result report = Run("report", "-p", sample.Id.ToString(CultureInfo.InvariantCulture), "--duration", seconds, "--format", "json");

        Assert.True(report.ExitCode == 0, report.Error);
        return JsonDocument.Parse(report.Output).RootElement.Clone();
    }

    /// <summary>
    /// A trace of the meter alone (no Orseis event, so no detector facts either: a session as dotnet-counters would
    /// open), of the sample at 40 calls/s, each a pool checkout: the report reads the opens' rate from the counter's values
    /// over their span, within 10 %, and says in one line that it has no facts to replay.
    /// </summary>
    [Fact]
    public void Report_of_a_meter_only_trace_gives_the_rate_the_sample_ran_at_and_says_it_has_no_facts()
    {
        using PoolWatchProcess sample = PoolWatchProcess.StartDll(RenamedSample("MeteredPoolWatch"),
            "--rate", "40", "--concurrency", "2", "--duration", "60", "--report", "0");
        string trace = Path.Combine(_work, "meter-only.nettrace");
        var metrics = new Microsoft.Diagnostics.NETCore.Client.EventPipeProvider("System.Diagnostics.Metrics",
            System.Diagnostics.Tracing.EventLevel.Informational, keywords: 0x7, arguments: new Dictionary<string, string>
            {
                ["SessionId"] = "rate-test", ["Metrics"] = "Orseis", ["RefreshInterval"] = "0.5",
                ["MaxTimeSeries"] = "1000", ["MaxHistograms"] = "100",
            });
        Record(sample.Id, metrics, TimeSpan.FromSeconds(4.5), trace);

        ToolProcess.Result json = Run("report", trace, "--format", "json");
        Assert.True(json.ExitCode == 0, json.Error);
        JsonElement root = JsonDocument.Parse(json.Output).RootElement;
        Assert.False(root.GetProperty("detectorFacts").GetBoolean());
        JsonElement pool = Assert.Single(root.GetProperty("pools").EnumerateArray());
        Assert.Equal(JsonValueKind.Null, pool.GetProperty("replay").ValueKind);
        JsonElement opens = pool.GetProperty("opens");
        Assert.Equal("meter", opens.GetProperty("from").GetString());
        Assert.InRange(opens.GetProperty("perSecond").GetDouble(), 36, 44);

        ToolProcess.Result text = Run("report", trace);
        Assert.True(text.ExitCode == 0, text.Error);
        Assert.Single(text.Output.Split('\n'), l => l.Contains("no detector facts in this trace", StringComparison.Ordinal));
    }

    /// <summary>
    /// A trace of findings alone, as <c>dotnet-trace --providers Orseis:0xFF:3</c> records (every keyword, facts' 0x10
    /// included, but Warning level, so no fact and no open): the saturated PostgreSQL sample recorded from its start raises
    /// churn, saturation and the pool-size advice seconds apart. The report spans the findings' times, and its one line
    /// about missing facts does not claim the keyword was off.
    /// </summary>
    [PostgresToolFact]
    public void Report_of_a_findings_only_trace_spans_the_findings_and_says_why_it_has_no_facts()
    {
        string postgres = Environment.GetEnvironmentVariable("ORSEIS_POSTGRES")!;
        string trace = Path.Combine(_work, "findings-only.nettrace");
        var info = new ProcessStartInfo(ToolProcess.Dotnet()) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in new[] { RenamedSample("FindingsPoolWatch"), "--postgres", postgres + ";Maximum Pool Size=3", "--hold-ms", "150",
            "--concurrency", "6", "--duration", "3", "--report", "0" })
        {
            info.ArgumentList.Add(arg);
        }

        info.Environment["DOTNET_DefaultDiagnosticPortSuspend"] = "1"; // waits for ResumeRuntime: nothing of its start is missed
        using Process sample = Process.Start(info)!;
        try
        {
            sample.OutputDataReceived += (_, _) => { };
            sample.ErrorDataReceived += (_, _) => { };
            sample.BeginOutputReadLine();
            sample.BeginErrorReadLine();
            var client = new Microsoft.Diagnostics.NETCore.Client.DiagnosticsClient(sample.Id);
            var findings = new Microsoft.Diagnostics.NETCore.Client.EventPipeProvider("Orseis",
                System.Diagnostics.Tracing.EventLevel.Warning, keywords: 0xFF);
            var until = Stopwatch.StartNew();
            Microsoft.Diagnostics.NETCore.Client.EventPipeSession? started = null;
            while (started is null)
            {
                try
                {
                    started = client.StartEventPipeSession([findings], requestRundown: false);
                }
                catch (Microsoft.Diagnostics.NETCore.Client.ServerNotAvailableException) when (until.Elapsed < TimeSpan.FromSeconds(30))
                {
                    Thread.Sleep(50); // the suspended runtime has not opened its diagnostic port yet
                }
            }

            using Microsoft.Diagnostics.NETCore.Client.EventPipeSession session = started;
            using (FileStream file = File.Create(trace))
            {
                Task copy = session.EventStream.CopyToAsync(file);
                client.ResumeRuntime();
                Assert.True(sample.WaitForExit(TimeSpan.FromSeconds(30)), "the sample did not exit within 30 s");
                Assert.True(copy.Wait(TimeSpan.FromSeconds(30)), "the EventPipe stream did not end within 30 s of the sample's exit");
            }
        }
        finally
        {
            if (!sample.HasExited)
                sample.Kill(entireProcessTree: true);
        }

        ToolProcess.Result json = Run("report", trace, "--format", "json");
        Assert.True(json.ExitCode == 0, json.Error);
        JsonElement root = JsonDocument.Parse(json.Output).RootElement;
        Assert.False(root.GetProperty("detectorFacts").GetBoolean());
        JsonElement pool = Assert.Single(root.GetProperty("pools").EnumerateArray());
        DateTime[] times = [.. pool.GetProperty("findings").EnumerateArray().Select(f => f.GetProperty("time").GetDateTime())];
        Assert.True(times.Length >= 2, json.Output);
        Assert.Equal(0, pool.GetProperty("opens").GetProperty("count").GetDouble()); // findings alone: no open event
        Assert.Equal(times.Min(), root.GetProperty("start").GetDateTime());
        Assert.Equal(times.Max(), root.GetProperty("end").GetDateTime());
        Assert.Equal(Math.Round((times.Max() - times.Min()).TotalSeconds, 3), root.GetProperty("seconds").GetDouble());
        Assert.True(times.Max() > times.Min(), json.Output); // the findings came at different moments: the span is theirs

        ToolProcess.Result text = Run("report", trace);
        Assert.True(text.ExitCode == 0, text.Error);
        string line = Assert.Single(text.Output.Split('\n'), l => l.Contains("no detector facts in this trace", StringComparison.Ordinal));
        Assert.Contains("the Orseis keyword 0x10 at Verbose level (5), which orseis-trace collect records, was not recorded", line,
            StringComparison.Ordinal);
        Assert.DoesNotContain("recorded without the Orseis keyword", line, StringComparison.Ordinal);
        Assert.DoesNotContain("Verbose level but no facts", line, StringComparison.Ordinal); // no Verbose event: it cannot tell
    }

    /// <summary>
    /// A trace of every Orseis event but the facts, as <c>dotnet-trace --providers Orseis:0xF:5</c> records (Verbose level,
    /// keyword 0x10 off), of a running SQLite sample: its Verbose release events show the level was on, so the one line
    /// about missing facts names the keyword (or the detectors) as what was off.
    /// </summary>
    [Fact]
    public void Report_of_a_verbose_trace_without_the_facts_keyword_says_the_keyword_was_off()
    {
        using PoolWatchProcess sample = PoolWatchProcess.StartDll(RenamedSample("VerbosePoolWatch"),
            "--rate", "40", "--concurrency", "2", "--duration", "60", "--report", "0");
        string trace = Path.Combine(_work, "verbose-no-facts.nettrace");
        var events = new Microsoft.Diagnostics.NETCore.Client.EventPipeProvider("Orseis", System.Diagnostics.Tracing.EventLevel.Verbose, keywords: 0xF);
        Record(sample.Id, events, TimeSpan.FromSeconds(1.5), trace);

        ToolProcess.Result text = Run("report", trace);
        Assert.True(text.ExitCode == 0, text.Error);
        Assert.Matches(@"held p50 [0-9.]+ ", text.Output); // the release events (Verbose) are in the trace
        string line = Assert.Single(text.Output.Split('\n'), l => l.Contains("no detector facts in this trace", StringComparison.Ordinal));
        Assert.Contains("it holds Orseis events at Verbose level but no facts: the Orseis keyword 0x10, which orseis-trace collect records, "
            + "was off, or the process's detectors were", line, StringComparison.Ordinal);
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

        // Through its apphost (as dotnet run starts it) the app is named in full, dots included, not cut at the last dot.
        using (PoolWatchProcess apphost = PoolWatchProcess.StartApphost("--rate", "5", "--concurrency", "1", "--duration", "60", "--report", "0"))
        {
            ToolProcess.Result listed = Run("ps");
            Assert.True(listed.ExitCode == 0, listed.Error);
            Assert.Matches($@"(?m)^\s*{apphost.Id}\s+Orseis\.Samples\.PoolWatch\s+yes\s", listed.Output);
        }

        // Four intervals: on a loaded machine the EventPipe session has started late enough to leave a 2.5 s watch no full one.
        ToolProcess.Result byPid = Run("-p", pid, "--duration", "4");
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

        // Another orseis-trace at work: it maps Orseis.dll (the replay's detectors) but has no pools of its own.
        var watching = new ProcessStartInfo(installed.Command) { RedirectStandardError = true, RedirectStandardOutput = true };
        foreach (string arg in new[] { "monitor", "-p", one.Id.ToString(CultureInfo.InvariantCulture), "--duration", "60" })
            watching.ArgumentList.Add(arg);
        using (Process monitor = Process.Start(watching)!)
        {
            try
            {
                bool mapped = false;
                for (int i = 0; i < 150 && !mapped; i++)
                {
                    Thread.Sleep(100);
                    mapped = File.ReadAllText($"/proc/{monitor.Id}/maps").Contains("/Orseis.dll", StringComparison.Ordinal);
                }

                Assert.True(mapped, "the watching orseis-trace never mapped Orseis.dll");
                Refused(7, "has not loaded Orseis", "-p", monitor.Id.ToString(CultureInfo.InvariantCulture));
            }
            finally
            {
                monitor.Kill();
            }
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
            // Packs what this test project's build built (Orseis.Trace is its reference), as PackageTests does: a pack that builds
            // (its references checked again, no shared compiler) did not finish within the 3 minutes on a loaded machine.
            Succeeds(ToolProcess.Run(root, ToolProcess.Dotnet(),
                ["pack", Path.Combine("src", "Orseis.Trace", "Orseis.Trace.csproj"), "-c", "Release", "--no-build", "--no-restore", "-o", packages,
                 "-nologo", "-nodeReuse:false"], TimeSpan.FromMinutes(3)));
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

    /// <summary>Records <paramref name="provider"/> of process <paramref name="pid"/> over EventPipe into <paramref name="path"/> for <paramref name="length"/>.</summary>
    private static void Record(int pid, Microsoft.Diagnostics.NETCore.Client.EventPipeProvider provider, TimeSpan length, string path)
    {
        using var session = new Microsoft.Diagnostics.NETCore.Client.DiagnosticsClient(pid).StartEventPipeSession([provider], requestRundown: false);
        using FileStream file = File.Create(path);
        Task copy = session.EventStream.CopyToAsync(file);
        Thread.Sleep(length);
        session.Stop();
        Assert.True(copy.Wait(TimeSpan.FromSeconds(30)), "the EventPipe stream did not end within 30 s of stopping the session");
    }
}
