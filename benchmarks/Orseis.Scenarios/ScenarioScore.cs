namespace Orseis.Scenarios;

/// <summary>
/// How one run of a scenario is scored against what the run itself observed. A scenario states the findings it expects
/// (kind to words the message must contain), and may state findings expected too <b>when connects timed out in the
/// run</b>: a burst of connects at once can overflow the server's listen queue (MariaDB's default back_log is 90), which
/// the workers see as the provider's connect timeouts; in such a run those findings are the truth, and in a run where no
/// connect timed out they are unexpected. The run's ground truth is what its workers saw (<see cref="Run.ConnectTimeouts"/>),
/// never what Orseis said. A run passes when it had no error, every expected kind fired with its cause named, and nothing
/// else fired; connect timeouts in a scenario that states no finding for them are an error of the run.
/// Self-contained (no Orseis types), so the tests compile it as it is.
/// </summary>
internal static class ScenarioScore
{
    /// <summary>What a run did: the kinds that fired with their messages, its error, the connect timeouts its workers saw.</summary>
    public sealed record Run(IReadOnlyDictionary<string, string[]> Messages, string? Error, int ConnectTimeouts);

    /// <summary>One run's score: expected kinds that fired, kinds that fired unexpected, expected kinds missed, and the verdict.</summary>
    public sealed record Score(int Fired, int Unexpected, int Missed, bool CauseNamed, bool Pass, string? Why);

    /// <summary>
    /// The kinds a run is expected to produce, with the words their messages must contain (each in one of the kind's
    /// messages): <paramref name="expected"/>, and <paramref name="whenConnectsTimedOut"/> too when the run saw connect
    /// timeouts (a kind expected anyway must then name both causes).
    /// </summary>
    public static IReadOnlyDictionary<string, string[]> ExpectedIn(
        Run run, IReadOnlyDictionary<string, string> expected, IReadOnlyDictionary<string, string>? whenConnectsTimedOut)
    {
        var all = expected.ToDictionary(e => e.Key, e => new[] { e.Value });
        if (run.ConnectTimeouts == 0 || whenConnectsTimedOut is null)
            return all;
        foreach ((string kind, string cause) in whenConnectsTimedOut)
            all[kind] = all.TryGetValue(kind, out string[]? also) ? [.. also, cause] : [cause];
        return all;
    }

    /// <summary>Scores <paramref name="run"/> against the scenario's expectations.</summary>
    public static Score Of(Run run, IReadOnlyDictionary<string, string> expected, IReadOnlyDictionary<string, string>? whenConnectsTimedOut)
    {
        IReadOnlyDictionary<string, string[]> want = ExpectedIn(run, expected, whenConnectsTimedOut);
        int fired = run.Messages.Keys.Count(want.ContainsKey);
        int unexpected = run.Messages.Count - fired;
        int missed = want.Keys.Count(k => !run.Messages.ContainsKey(k));
        bool named = CauseNamed(run, want);
        string? why = run.Error is not null ? "error: " + run.Error
            : run.ConnectTimeouts > 0 && (whenConnectsTimedOut is null || whenConnectsTimedOut.Count == 0)
                ? $"{run.ConnectTimeouts} connect(s) timed out, which the scenario states nothing for"
            : missed > 0 ? "missed " + string.Join(", ", want.Keys.Where(k => !run.Messages.ContainsKey(k)))
            : unexpected > 0 ? "unexpected " + string.Join(", ", run.Messages.Keys.Where(k => !want.ContainsKey(k)))
            : !named ? "cause not named"
            : null;
        return new Score(fired, unexpected, missed, named, why is null, why);
    }

    /// <summary>Every expected kind fired, each of its causes' words in one of its messages.</summary>
    public static bool CauseNamed(Run run, IReadOnlyDictionary<string, string[]> want) =>
        want.All(e => run.Messages.TryGetValue(e.Key, out string[]? messages) &&
                      e.Value.All(words => messages.Any(m => m.Contains(words, StringComparison.Ordinal))));
}
