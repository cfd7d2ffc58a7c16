using System.Data.Common;
using System.Diagnostics;
using System.Runtime.ExceptionServices;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Execution.Modes;

/// <summary>
/// Opening a connection: an attempt that completes without an async frame when the provider opens at once (a pooled
/// connection, a sync call), awaited only when the provider is still opening, and retried once when the connection
/// broke while opening.
/// </summary>
internal sealed partial class PoolContext
{
    private ValueTask<Lease> OpenCoreAsync(
        bool async, string owner, bool heldByDesign, bool heldAcrossCalls, FlowState? flow, CancellationToken cancellationToken)
    {
        // Where the caller acquires, taken before anything is awaited: after the open, an async continuation no longer
        // has the caller's frames on its stack.
        var open = new OpenRequest(owner, heldByDesign, Telemetry.CaptureAcquirer(heldAcrossCalls), async, flow);
        return AttemptAsync(open, attempt: 1, cancellationToken);
    }

    /// <summary>One attempt at opening: the lease at once when the provider opened at once, else a task for it.</summary>
    private ValueTask<Lease> AttemptAsync(OpenRequest open, int attempt, CancellationToken cancellationToken)
    {
        DbConnection connection = DataSource.CreateConnection();
        OpenStart started = Telemetry.OpenStarting(open.Async, open.Flow);
        Task opening;
        try
        {
            if (!open.Async)
            {
                connection.Open();
                opening = Task.CompletedTask;
            }
            else if (CallWatch.Start(Deadlines, cancellationToken) is { } watch)
            {
                opening = OpenWatchedAsync(connection, watch, cancellationToken);
            }
            else
            {
                opening = connection.OpenAsync(cancellationToken);
            }
        }
        catch (Exception error)
        {
            return FailedAsync(open, attempt, connection, started, error, cancellationToken);
        }

        return opening.IsCompletedSuccessfully
            ? new ValueTask<Lease>(Opened(open, connection, started))
            : OpenLaterAsync(open, attempt, connection, started, opening, cancellationToken);
    }

    private async ValueTask<Lease> OpenLaterAsync(
        OpenRequest open, int attempt, DbConnection connection, OpenStart started, Task opening, CancellationToken cancellationToken)
    {
        try
        {
            await opening.ConfigureAwait(false);
        }
        catch (Exception error)
        {
            return await FailedAsync(open, attempt, connection, started, error, cancellationToken).ConfigureAwait(false);
        }

        return Opened(open, connection, started);
    }

    /// <summary>The open completed: timed, and the connection held by the opener.</summary>
    private Lease Opened(in OpenRequest open, DbConnection connection, in OpenStart started)
    {
        long openedAt = Telemetry.OpenCompleted(started, connection);
        int hold = Telemetry.Acquired(connection, open.Owner, open.HeldByDesign, open.Acquirer, openedAt, started.Flow);
        return new Lease(connection, hold);
    }

    /// <summary>
    /// An attempt failed with <paramref name="error"/>: timed and explained, the connection disposed (or closed once a
    /// provider that ignored the token lets go of it); a connection that broke while opening is tried once more.
    /// </summary>
    private async ValueTask<Lease> FailedAsync(
        OpenRequest open, int attempt, DbConnection connection, OpenStart started, Exception error, CancellationToken cancellationToken)
    {
        if (error is CallAbandonedException abandoned)
        {
            // The provider still opens it (a reset or connect that ignores the token): it is closed when the provider is done.
            Telemetry.OpenFailed(started, OpenFailure.Of(abandoned.Reported, Traits));
            CloseWhenDone(new Lease(connection, HolderTable.NoHold), command: null, abandoned.Pending, opened: false);
            throw abandoned.Reported;
        }

        var failure = OpenFailure.Of(error, Traits);
        PoolExhaustedException? exhausted = Telemetry.OpenFailed(started, failure);
        if (open.Async)
            await connection.DisposeAsync().ConfigureAwait(false);
        else
            connection.Dispose();
        if (exhausted is not null)
            throw exhausted;
        if (cancellationToken.IsCancellationRequested || !failure.BrokeWhileOpening)
            ExceptionDispatchInfo.Throw(error);
        if (attempt == 2)
            throw ConnectionFailures.BrokenOnOpen(open.Owner, error);
        return await AttemptAsync(open, attempt + 1, cancellationToken).ConfigureAwait(false);
    }

    private static async Task OpenWatchedAsync(DbConnection connection, CallWatch watch, CancellationToken cancellationToken)
    {
        using (watch)
        {
            try
            {
                await watch.WaitAsync(connection.OpenAsync(watch.Token)).ConfigureAwait(false);
            }
            catch (CallAbandonedException abandoned)
            {
                abandoned.Reported = new OperationCanceledException(
                    "Opening the connection was cancelled; the provider did not stop within a second, so Orseis stopped waiting for it " +
                    "(the connection is closed once the provider lets go of it).", abandoned, cancellationToken);
                throw;
            }
            catch (Exception error) when (
                watch.CallerCancelled && !(error is OperationCanceledException oce && oce.CancellationToken == cancellationToken))
            {
                throw Cancellation.Reported(error, cancellationToken);
            }
        }
    }

    /// <summary>
    /// Who opens and what the telemetry is told of the hold, carried through the attempts of one open; <c>Flow</c> is the
    /// caller's flow when its entry point read it (null: each attempt reads it).
    /// </summary>
    private readonly record struct OpenRequest(string Owner, bool HeldByDesign, StackTrace? Acquirer, bool Async, FlowState? Flow);
}
