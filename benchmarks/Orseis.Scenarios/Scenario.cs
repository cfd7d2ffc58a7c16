using Orseis.Diagnostics;

namespace Orseis.Scenarios;

/// <summary>
/// One scenario: what it does, the findings it must produce (none for a clean one) and, for each, words its message
/// must contain so the cause is named right (a cold pool is not queueing, a dead server is not an exhausted pool).
/// </summary>
internal sealed record Scenario(string Name, string Description, IReadOnlyDictionary<FindingKind, string> Expected, Func<ScenarioRun, Task> Body)
{
    public bool Clean => Expected.Count == 0;

    /// <summary>
    /// Findings expected too in a run whose workers saw connects time out (<see cref="ScenarioScore"/>; the burst helpers
    /// of <c>ColdScenarios</c> note them, other bodies let them fail the run): a burst of connects at once can overflow the
    /// server's listen queue (MariaDB's default back_log is 90; bursts of 270 and 330 loopback callers lost some), and what
    /// is true then is stated here; unexpected in a run where none timed out. By default what is true of a stampede
    /// (<see cref="ConnectsLostAtListenQueue"/>); null: a connect timeout is an error of the run.
    /// </summary>
    public IReadOnlyDictionary<FindingKind, string>? WhenConnectsTimedOut { get; init; } = ConnectsLostAtListenQueue;

    /// <summary>
    /// What is true when a first burst's connects timed out while the server answered the others (its listen queue
    /// overflowed): the wave named while those opens still waited, as connects lost at the listen queue, and each open that
    /// timed out as a connect lost on the way; not "server unavailable", whose server answers none.
    /// </summary>
    public static IReadOnlyDictionary<FindingKind, string> ConnectsLostAtListenQueue { get; } = new Dictionary<FindingKind, string>
    {
        [FindingKind.SlowOpen] = "lost at its listen queue",
        [FindingKind.PoolTimeout] = "lost a new connection",
    };

    public static Scenario CleanOne(string name, string description, Func<ScenarioRun, Task> body) =>
        new(name, description, new Dictionary<FindingKind, string>(), body);

    public static Scenario Pathology(string name, string description, FindingKind kind, string cause, Func<ScenarioRun, Task> body) =>
        new(name, description, new Dictionary<FindingKind, string> { [kind] = cause }, body);
}
