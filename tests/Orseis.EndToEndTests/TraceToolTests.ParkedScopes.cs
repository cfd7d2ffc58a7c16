using System.Text.Json;
using Microsoft.Diagnostics.Tracing;

namespace Orseis.EndToEndTests;

public sealed partial class TraceToolTests
{
    /// <summary>
    /// A MariaDB pool of three taken whole by a session and two scopes that parked a connection each, recorded by
    /// <c>orseis-trace collect</c> from the process's start (tests/Orseis.EventsProbe <c>--parked-scopes</c>): the fourth
    /// caller's timeout is in the trace as a <c>FactOpenFailed</c> (version 2) whose <c>held</c> and <c>parked</c> are what the
    /// caller was told, 1 and 2, as TraceEvent decodes them; and <c>orseis-trace report</c> gives, from the process's finding
    /// and from the detectors replayed over the facts alike, "every connection was taken: 1 held by calls and 2 parked in
    /// connection scopes", never "the server is not answering new connections" (what the caller was told before parked
    /// connections counted as taken), and no ServerUnavailable finding.
    /// </summary>
    [MySqlToolFact]
    public void Report_of_a_pool_taken_by_parked_scopes_says_so_from_the_recorded_facts()
    {
        string mysql = Environment.GetEnvironmentVariable("ORSEIS_MYSQL")!;
        string trace = Path.Combine(_work, "parked-scopes.nettrace");
        ToolProcess.Result collect = Run("collect", "-o", trace, "--", ToolProcess.Dotnet(), BuiltProgram.Dll("tests", "Orseis.EventsProbe"),
            "--parked-scopes", mysql);

        // The probe's output goes to the tool's stderr: what the caller was told, in the process.
        Assert.True(collect.ExitCode == 0, collect.Error);
        Assert.True(collect.Error.Contains("exhausted held=1 parked=2 connecting=0 waiting=1: ", StringComparison.Ordinal), collect.Error);
        Assert.Matches(@"(?m)^done\r?$", collect.Error);

        // The fact as a reader of the .nettrace decodes it, field by name from the event's own metadata.
        var failed = new List<(int Version, string Pool, bool Exhausted, int Held, int Parked, int Connecting, int Waiting)>();
        using (var source = new EventPipeEventSource(trace))
        {
            source.Dynamic.All += e =>
            {
                if (e.ProviderName == "Orseis" && e.EventName == "FactOpenFailed")
                {
                    failed.Add(((int)e.Version, (string)e.PayloadByName("pool"), (bool)e.PayloadByName("exhausted"), (int)e.PayloadByName("held"),
                        (int)e.PayloadByName("parked"), (int)e.PayloadByName("connecting"), (int)e.PayloadByName("waiting")));
                }
            };
            source.Process();
        }

        Assert.Equal((2, "probe-parked", true, 1, 2, 0, 1), Assert.Single(failed));

        ToolProcess.Result report = Run("report", trace, "--format", "json");
        Assert.True(report.ExitCode == 0, report.Error);
        JsonElement root = JsonDocument.Parse(report.Output).RootElement;
        Assert.True(root.GetProperty("detectorFacts").GetBoolean());
        JsonElement pool = Assert.Single(root.GetProperty("pools").EnumerateArray());
        Assert.Equal("probe-parked", pool.GetProperty("pool").GetString());
        JsonElement replay = pool.GetProperty("replay");
        Assert.Equal(["PoolTimeout"], pool.GetProperty("found").EnumerateArray().Select(k => k.GetString()));
        Assert.Equal(["PoolTimeout"], replay.GetProperty("found").EnumerateArray().Select(k => k.GetString()));
        JsonElement own = Assert.Single(pool.GetProperty("findings").EnumerateArray());
        JsonElement replayed = Assert.Single(replay.GetProperty("findings").EnumerateArray());
        foreach (JsonElement finding in new[] { own, replayed })
        {
            string message = finding.GetProperty("message").GetString()!;
            Assert.Contains("Every connection was taken: 1 held by calls and 2 parked in connection scopes", message, StringComparison.Ordinal);
            Assert.DoesNotContain("not answering new connections", message, StringComparison.Ordinal);
            JsonElement figures = finding.GetProperty("figures");
            Assert.Equal(("1", "2", "0", "3"), (figures.GetProperty("inUse").GetString(), figures.GetProperty("parked").GetString(),
                figures.GetProperty("connecting").GetString(), figures.GetProperty("maxPoolSize").GetString()));
        }

        // The replay tells the caller's story word for word, figure for figure.
        Assert.Equal(own.GetProperty("message").GetString(), replayed.GetProperty("message").GetString());
        static string Figures(JsonElement finding) =>
            string.Join(";", finding.GetProperty("figures").EnumerateObject().Select(f => f.Name + "=" + f.Value.GetString()));
        Assert.Equal(Figures(own), Figures(replayed));
    }
}
