using System.Data;
using System.Diagnostics;
using Polly;

namespace Orseis;

// The synchronous units of work: InTransactionAsync's rules, on the calling thread (Polly's synchronous Execute).
public sealed partial class Database
{
    /// <summary>
    /// Runs <paramref name="work"/> in a transaction on a session of its own and commits it, on the calling thread; with
    /// <see cref="OrseisOptions.Retry"/> on, runs the whole unit again when that is safe, as
    /// <see cref="InTransactionAsync{T}(Func{Session, CancellationToken, Task{T}}, IsolationLevel, CancellationToken)"/>
    /// does (the same reasons, attempts, budget and telemetry; never after a commit whose outcome is unknown).
    /// </summary>
    /// <typeparam name="T">What the work returns.</typeparam>
    /// <param name="work">The unit of work: its calls go through the session it is given. It may run more than once, so
    /// it should have no effect outside the database that a second run would repeat.</param>
    /// <param name="isolationLevel">The transaction's isolation level.</param>
    /// <returns>What the last run of <paramref name="work"/> returned, once committed.</returns>
    public T InTransaction<T>(Func<Session, T> work, IsolationLevel isolationLevel = IsolationLevel.Unspecified)
    {
        ArgumentNullException.ThrowIfNull(work);
        if (Pool.Options.Retries is not { } retries)
            return RunUnit(work, isolationLevel, unit: null);

        var unit = new RetriedCall(retries, Activity.Current, Pool.Telemetry, unit: true);
        ResilienceContext context = CallRetries.Context(unit, CancellationToken.None);
        try
        {
            return retries.Pipeline.Execute(
                static (_, state) => state.Db.RunUnit(state.Work, state.IsolationLevel, state.Unit),
                context,
                (Db: this, Work: work, IsolationLevel: isolationLevel, Unit: unit));
        }
        finally
        {
            ResilienceContextPool.Shared.Return(context);
        }
    }

    /// <inheritdoc cref="InTransaction{T}"/>
    public void InTransaction(Action<Session> work, IsolationLevel isolationLevel = IsolationLevel.Unspecified)
    {
        ArgumentNullException.ThrowIfNull(work);
        InTransaction(
            session =>
            {
                work(session);
                return true;
            },
            isolationLevel);
    }

    private T RunUnit<T>(Func<Session, T> work, IsolationLevel isolationLevel, RetriedCall? unit)
    {
        if (unit is not null)
            unit.CommitSent = false;
        using Session session = OpenSession();
        using SessionTransaction transaction = session.BeginTransaction(isolationLevel);
        T result;
        try
        {
            result = work(session);
        }
        catch (Exception error) when (
            error is not (OrseisException or OperationCanceledException) && session.Source is KeptSource { Kept.Loss: { } loss })
        {
            throw UnitRolledBack(loss.Cause, error);
        }

        if (unit is not null)
            unit.CommitSent = true;
        transaction.Commit();
        return result;
    }

    /// <summary>A unit's statement whose own error ended the transaction (a deadlock victim, say), as what it did to the unit.</summary>
    private static TransactionRolledBackException UnitRolledBack(Exception cause, Exception error)
    {
        (string what, bool transient) = ServerTransactions.Describe(cause);
        return new TransactionRolledBackException(
            $"The server ended the transaction of this unit of work after {what}: nothing of it was committed." +
            (transient
                ? " Running the whole unit again may succeed (IsTransient is true)."
                : " The server's error is the inner exception."),
            transient,
            error);
    }
}
