using System.Data.Common;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// A statement that ended (<see cref="PoolObserver.OnStatementEnded"/>), heard only while an observer needs statements
/// (<see cref="CostlyFacts.Statements"/>): its text, its command (whose parameters are still bound, for their hash), the
/// unit of work it ran in (the <see cref="ConnectionScope"/>'s slot, else the flow, else none) and when it started and
/// ended (timestamps of the pool's clock).
/// </summary>
internal readonly record struct StatementRun(
    string Sql, DbCommand Command, ScopeSlot? Scope, FlowState? Flow, long Started, long Ended, bool Succeeded);

/// <summary>A statement about to start (<see cref="PoolObserver.OnStatementStarting"/>), on the caller's stack.</summary>
internal readonly record struct StatementStart(string Sql, ScopeSlot? Scope, FlowState? Flow)
{
    /// <summary>The unit's repetition state, if it has one yet.</summary>
    public StatementRepeats? Repeats => Scope is { } scope
        ? scope.Repeats is { } unit && ReferenceEquals(unit.Owner, scope) ? unit : null
        : Flow is { Repeats: { } own } flow && own.OwnedBy(flow) ? own : null;
}

/// <summary>
/// A hash of a command's argument values, so runs with the same arguments can be told from runs with others without
/// keeping any value: each value's own hash code (strings hash by content with the process's random seed; a binary
/// value by its array, so two equal arrays count as two). Reads the bound parameters; allocates nothing.
/// </summary>
internal static class ArgumentHash
{
    /// <summary>The hash of <paramref name="command"/>'s parameter values; <paramref name="count"/> is how many it has.</summary>
    public static int Of(DbCommand command, out int count)
    {
        DbParameterCollection parameters = command.Parameters;
        count = parameters.Count;
        uint hash = 2166136261;
        for (int i = 0; i < count; i++)
        {
            object? value = parameters[i].Value;
            uint part = value is null or DBNull ? 0x5bd1e995u : (uint)value.GetHashCode();
            hash = (hash ^ part) * 16777619;
            hash ^= hash >> 15;
        }

        return (int)hash;
    }
}
