using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Counts the statements the server ended with lock conflicts (deadlocks, lock wait timeouts, serialization failures, a
/// busy SQLite database) and reports them at most once per <see cref="DiagnosticsOptions.FindingInterval"/>, with the
/// counts since the pool was created and the statement when command text capture is on: the answer to "why do my
/// transactions retry".
/// </summary>
internal sealed class LockConflictDetector(FindingLog log, TimeProvider time) : PoolObserver
{
    private readonly long _since = time.GetTimestamp();
    private readonly long[] _counts = new long[4];

    public override HeardFacts Hears => HeardFacts.CommandFailed;

    public override void OnCommandFailed(in CommandFailure failure) => OnFailure(failure.Error, failure.Sql);

    public long Count(LockConflict conflict) => Interlocked.Read(ref _counts[(int)conflict]);

    /// <summary>A statement failed with <paramref name="error"/>; <paramref name="sql"/> is null unless its text may be captured.</summary>
    public void OnFailure(Exception error, string? sql)
    {
        if (ServerTransactions.ConflictOf(error) is { } conflict)
            OnConflict(conflict, sql);
    }

    /// <summary>A statement failed with <paramref name="conflict"/> (also what a replay of the recorded facts tells).</summary>
    public void OnConflict(LockConflict conflict, string? sql)
    {
        Interlocked.Increment(ref _counts[(int)conflict]);
        long deadlocks = Count(LockConflict.Deadlock), waits = Count(LockConflict.LockWaitTimeout);
        long serialization = Count(LockConflict.SerializationFailure), busy = Count(LockConflict.Busy);
        double minutes = Math.Max(time.GetElapsedTime(_since).TotalMinutes, 1.0 / 60);
        long total = deadlocks + waits + serialization + busy;
        string advice = conflict == LockConflict.Deadlock
            ? "A deadlock rolls the victim's whole transaction back: run it again from the start " +
              "(TransactionRolledBackException.IsTransient). " +
              "Take locks in one order (update rows in key order), keep transactions short, and index the columns they search by."
            : "Keep transactions that hold locks short, and index the columns they search by; " +
              "a lock wait timeout ends only the statement " +
              "unless the server rolls the transaction back (MariaDB and MySQL: innodb_rollback_on_timeout).";
        string message = string.Create(CultureInfo.InvariantCulture,
            $"Pool '{log.PoolName}': the server ended {total} statement(s) with lock conflicts since the pool was created " +
            $"({deadlocks} deadlock(s), {waits} lock wait timeout(s), {serialization} serialization failure(s), {busy} busy database) " +
            $"in {minutes:0.#} min, the latest {Name(conflict)}. ") + advice;
        log.Report(FindingKind.LockConflicts, message, new Dictionary<string, double>
        {
            ["deadlocks"] = deadlocks,
            ["lockWaitTimeouts"] = waits,
            ["serializationFailures"] = serialization,
            ["busy"] = busy,
            ["perMinute"] = total / minutes,
        }, sql, rateLimited: true);
    }

    private static string Name(LockConflict conflict) => conflict switch
    {
        LockConflict.Deadlock => "a deadlock",
        LockConflict.LockWaitTimeout => "a lock wait timeout",
        LockConflict.SerializationFailure => "a serialization failure",
        _ => "a busy database",
    };
}
