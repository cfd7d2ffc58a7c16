using System.Data.Common;
using System.Runtime.CompilerServices;

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
    /// <summary>The hash before any value (<see cref="Mix"/> from here).</summary>
    public const uint Seed = 2166136261;

    /// <summary>The hash of <paramref name="command"/>'s parameter values; <paramref name="count"/> is how many it has.</summary>
    public static int Of(DbCommand command, out int count)
    {
        DbParameterCollection parameters = command.Parameters;
        count = parameters.Count;
        uint hash = Seed;
        for (int i = 0; i < count; i++)
            hash = Mix(hash, parameters[i].Value);
        return (int)hash;
    }

    /// <summary><paramref name="hash"/> followed by the next parameter's <paramref name="value"/>: the one step both
    /// <see cref="Of"/> and the binder's <see cref="ArgumentPrint"/> take, so the two give one hash for one set of values.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint Mix(uint hash, object? value)
    {
        uint part = value is null or DBNull ? 0x5bd1e995u : (uint)value.GetHashCode();
        hash = (hash ^ part) * 16777619;
        return hash ^ (hash >> 15);
    }
}

/// <summary>
/// A command's argument hash (<see cref="ArgumentHash"/>) and parameter count taken as the binder added the parameters
/// (each parameter's value as the provider holds it, in the command's order), so the statement's end does not ask the
/// provider's collection for them again. it is not <see cref="Taken"/> when the binder did not take it (a binding route
/// other than an argument object's members, a list expanded): the end then reads the command (<see cref="ArgumentHash.Of"/>),
/// which gives the same hash for the same values.
/// </summary>
internal struct ArgumentPrint
{
    /// <summary>Parameters hashed, plus one; 0 when no print is taken (the default).</summary>
    private int _taken;

    /// <summary>The values' hash (<see cref="ArgumentHash.Seed"/> for no value).</summary>
    public uint Hash;

    /// <summary>No print taken: the command is read at the statement's end.</summary>
    public static ArgumentPrint Unknown => default;

    /// <summary>Whether the print was taken.</summary>
    public readonly bool Taken => _taken != 0;

    /// <summary>Parameters hashed; -1 when the print is not taken.</summary>
    public readonly int Count => _taken - 1;

    /// <summary>
    /// The print of <paramref name="count"/> values whose hash, mixed from <see cref="ArgumentHash.Seed"/> value by value
    /// (<see cref="ArgumentHash.Mix"/>), is <paramref name="hash"/>: the binder keeps the hash in a local as it adds the
    /// parameters, and writes the print once.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ArgumentPrint Of(uint hash, int count) => new() { Hash = hash, _taken = count + 1 };
}
