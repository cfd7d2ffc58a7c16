using Orseis.Diagnostics;

namespace Orseis.Scenarios;

/// <summary>
/// One scenario: what it does, the findings it must produce (none for a clean one) and, for each, words its message
/// must contain so the cause is named right (a cold pool is not queueing, a dead server is not an exhausted pool).
/// </summary>
internal sealed record Scenario(string Name, string Description, IReadOnlyDictionary<FindingKind, string> Expected, Func<ScenarioRun, Task> Body)
{
    public bool Clean => Expected.Count == 0;

    public static Scenario CleanOne(string name, string description, Func<ScenarioRun, Task> body) =>
        new(name, description, new Dictionary<FindingKind, string>(), body);

    public static Scenario Pathology(string name, string description, FindingKind kind, string cause, Func<ScenarioRun, Task> body) =>
        new(name, description, new Dictionary<FindingKind, string> { [kind] = cause }, body);
}
