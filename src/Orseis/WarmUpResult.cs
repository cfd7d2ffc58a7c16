namespace Orseis;

/// <summary>What <see cref="Database.WarmUpAsync"/> did: how many connections it held open at once, how long it took,
/// and what failed.</summary>
public sealed class WarmUpResult
{
    internal WarmUpResult(int requested, int opened, TimeSpan elapsed, long? newConnections, IReadOnlyList<Exception> failures)
    {
        Requested = requested;
        Opened = opened;
        Elapsed = elapsed;
        NewConnections = newConnections;
        Failures = failures;
    }

    /// <summary>How many connections were asked for (1 for a <see cref="ExecutionMode.ReuseConnection"/> database).</summary>
    public int Requested { get; }

    /// <summary>How many were open at once before all went back to the pool: the pool now holds at least this many.</summary>
    public int Opened { get; }

    /// <summary>From the first open to the last connection given back.</summary>
    public TimeSpan Elapsed { get; }

    /// <summary>
    /// Physical connections the provider made meanwhile, where it counts them (MySqlConnector, Npgsql, with detectors on);
    /// null otherwise. Fewer than <see cref="Opened"/> when the pool already held some.
    /// </summary>
    public long? NewConnections { get; }

    /// <summary>The opens that failed (a refused or timed-out connect), in the order they failed; empty when none did.</summary>
    public IReadOnlyList<Exception> Failures { get; }

    /// <summary>The counts in one line, for a log.</summary>
    /// <returns>A one-line summary.</returns>
    public override string ToString() =>
        FormattableString.Invariant(
            $"warm-up: {Opened} of {Requested} connection(s) open at once in {Elapsed.TotalMilliseconds:0} ms") +
        (NewConnections is { } made ? FormattableString.Invariant($", {made} new") : "") +
        (Failures.Count > 0
            ? FormattableString.Invariant($", {Failures.Count} failed ({Failures[0].GetType().Name}: {Failures[0].Message})")
            : "");
}
