using Orseis.Scenarios;

namespace Orseis.Benchmarks.Tests;

/// <summary>
/// A scenario run is scored against what its own workers saw: findings stated for "connects timed out" are expected in a
/// run where they did, unexpected in one where they did not, and must name the cause stated; the scorer can still fail.
/// </summary>
public sealed class ScenarioScoreTests
{
    private static readonly Dictionary<string, string> ColdStart = new() { ["SlowOpen"] = "Cold start" };
    private static readonly Dictionary<string, string> Silent = [];

    private static readonly Dictionary<string, string> Lost = new()
    {
        ["SlowOpen"] = "lost at its listen queue",
        ["PoolTimeout"] = "lost a new connection",
    };

    private const string Waiting = "Cold start of pool 'p': 22 of the 300 opens ... most likely lost at its listen queue: ...";
    private const string LostConnect = "Pool 'p' lost a new connection: its connect timed out after 15.0 s while 278 other connect(s) ...";
    private const string Outage = "Pool 'p' gave no connection in time (the provider timed out making a new connection). ... The server is not answering new connections";

    private static ScenarioScore.Run Run(int timeouts, params (string Kind, string Message)[] fired) =>
        new(fired.ToDictionary(f => f.Kind, f => new[] { f.Message }), null, timeouts);

    [Fact]
    public void A_stampede_run_whose_connects_timed_out_expects_what_is_true_then_and_passes_when_it_is_said()
    {
        ScenarioScore.Score score = ScenarioScore.Of(Run(22, ("SlowOpen", Waiting), ("PoolTimeout", LostConnect)), ColdStart, Lost);
        Assert.True(score.Pass, score.Why);
        Assert.Equal((2, 0, 0), (score.Fired, score.Unexpected, score.Missed));

        // The clean twin: silent when nothing timed out, the same two findings when connects did.
        Assert.True(ScenarioScore.Of(Run(0), Silent, Lost).Pass);
        Assert.True(ScenarioScore.Of(Run(3, ("SlowOpen", Waiting), ("PoolTimeout", LostConnect)), Silent, Lost).Pass);
    }

    [Fact]
    public void A_finding_with_the_wrong_cause_fails()
    {
        // The timeouts read as a dead server: PoolTimeout fired, but not naming a lost connect.
        ScenarioScore.Score score = ScenarioScore.Of(Run(22, ("SlowOpen", Waiting), ("PoolTimeout", Outage)), ColdStart, Lost);
        Assert.False(score.Pass);
        Assert.Equal("cause not named", score.Why);

        // The cold start named only by its verdict, not as connects lost: the conditional cause is required too.
        ScenarioScore.Score verdictOnly = ScenarioScore.Of(
            Run(22, ("SlowOpen", "Cold start of pool 'p': the first 300 requests took ..."), ("PoolTimeout", LostConnect)), ColdStart, Lost);
        Assert.False(verdictOnly.Pass);
    }

    [Fact]
    public void Findings_for_a_timeout_that_did_not_happen_are_unexpected()
    {
        ScenarioScore.Score score = ScenarioScore.Of(Run(0, ("SlowOpen", "Cold start ..."), ("PoolTimeout", LostConnect)), ColdStart, Lost);
        Assert.False(score.Pass);
        Assert.Equal(1, score.Unexpected);
        Assert.Equal("unexpected PoolTimeout", score.Why);
        Assert.False(ScenarioScore.Of(Run(0, ("SlowOpen", Waiting)), Silent, Lost).Pass); // a clean twin named without cause
    }

    [Fact]
    public void Timeouts_are_missed_or_unstated_findings_fail_too()
    {
        // Connects timed out and Orseis said nothing of it.
        ScenarioScore.Score missed = ScenarioScore.Of(Run(5, ("SlowOpen", "Cold start ...")), ColdStart, Lost);
        Assert.False(missed.Pass);
        Assert.Equal("missed PoolTimeout", missed.Why);

        // A scenario that states nothing for timeouts fails a run in which connects timed out, whatever fired.
        ScenarioScore.Score unstated = ScenarioScore.Of(Run(1, ("SlowOpen", "Cold start ...")), ColdStart, null);
        Assert.False(unstated.Pass);
        Assert.StartsWith("1 connect(s) timed out", unstated.Why, StringComparison.Ordinal);

        // ServerUnavailable in a stampede whose server answered the other connects: not what is true, unexpected.
        Assert.False(ScenarioScore.Of(
            Run(22, ("SlowOpen", Waiting), ("PoolTimeout", LostConnect), ("ServerUnavailable", "cannot connect")), ColdStart, Lost).Pass);
    }
}
