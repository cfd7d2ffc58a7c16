using System.Data;
using System.Diagnostics;
using Polly;

namespace Orseis;

public sealed partial class Database
{
    /// <summary>
    /// Runs <paramref name="work"/> in a transaction on a session of its own and commits it. With
    /// <see cref="OrseisOptions.Retry"/> on, the whole unit (a new session, the transaction, <paramref name="work"/>, the
    /// commit) runs again when that is safe: the server rolled the transaction back for a transient reason (a deadlock
    /// victim, a lock wait timeout, a serialization failure: <see cref="TransactionRolledBackException.IsTransient"/>),
    /// its connection broke before the commit was sent, the commit says nothing was committed, or the session's open
    /// failed to connect; within the same attempts and budget as calls, each run again counted
    /// (<c>orseis.retries</c>) and added as an event to the current activity. Never after a commit whose outcome is
    /// unknown. With retries off it runs once. A statement whose error ended the transaction (a deadlock victim) is
    /// thrown as a <see cref="TransactionRolledBackException"/> with the server's error inside.
    /// </summary>
    /// <typeparam name="T">What the work returns.</typeparam>
    /// <param name="work">The unit of work: its calls go through the session it is given. It may run more than once, so
    /// it should have no effect outside the database that a second run would repeat.</param>
    /// <param name="isolationLevel">The transaction's isolation level.</param>
    /// <param name="cancellationToken">Cancels the work and the waits between runs.</param>
    /// <returns>What the last run of <paramref name="work"/> returned, once committed.</returns>
    public async Task<T> InTransactionAsync<T>(
        Func<Session, CancellationToken, Task<T>> work,
        IsolationLevel isolationLevel = IsolationLevel.Unspecified,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(work);
        if (Pool.Options.Retries is not { } retries)
            return await RunUnitAsync(work, isolationLevel, unit: null, cancellationToken).ConfigureAwait(false);

        var unit = new RetriedCall(retries, Activity.Current, Pool.Telemetry, unit: true);
        ResilienceContext context = CallRetries.Context(unit, cancellationToken);
        try
        {
            return await retries.Pipeline.ExecuteAsync(
                static (context, state) => new ValueTask<T>(
                    state.Db.RunUnitAsync(state.Work, state.IsolationLevel, state.Unit, context.CancellationToken)),
                context,
                (Db: this, Work: work, IsolationLevel: isolationLevel, Unit: unit)).ConfigureAwait(false);
        }
        finally
        {
            ResilienceContextPool.Shared.Return(context);
        }
    }

    /// <inheritdoc cref="InTransactionAsync{T}"/>
    public Task InTransactionAsync(
        Func<Session, CancellationToken, Task> work,
        IsolationLevel isolationLevel = IsolationLevel.Unspecified,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(work);
        return InTransactionAsync(
            async (session, token) =>
            {
                await work(session, token).ConfigureAwait(false);
                return true;
            },
            isolationLevel,
            cancellationToken);
    }

    /// <summary>
    /// One run of a unit of work: a session, its transaction, the work, the commit (noted on <paramref name="unit"/> once sent).
    /// </summary>
    private async Task<T> RunUnitAsync<T>(
        Func<Session, CancellationToken, Task<T>> work,
        IsolationLevel isolationLevel,
        RetriedCall? unit,
        CancellationToken cancellationToken)
    {
        if (unit is not null)
            unit.CommitSent = false;
        Session session = await OpenSessionAsync(cancellationToken).ConfigureAwait(false);
        await using (session.ConfigureAwait(false))
        {
            SessionTransaction transaction = await session.BeginTransactionAsync(isolationLevel, cancellationToken).ConfigureAwait(false);
            await using (transaction.ConfigureAwait(false))
            {
                T result;
                try
                {
                    result = await work(session, cancellationToken).ConfigureAwait(false);
                }
                catch (Exception error) when (
                    error is not (OrseisException or OperationCanceledException) && session.Source is KeptSource { Kept.Loss: { } loss })
                {
                    throw UnitRolledBack(loss.Cause, error);
                }

                if (unit is not null)
                    unit.CommitSent = true;
                await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
                return result;
            }
        }
    }
}
