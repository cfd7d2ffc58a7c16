using System.Diagnostics;
using System.Runtime.ExceptionServices;
using Orseis.Diagnostics;
using Polly;

namespace Orseis;

// A buffered call with retries on (OrseisOptions.Retry): its first attempt runs as any call does; only when it failed in
// a way safe to run again (OrseisRetry) do the next attempts run in the database's Polly retry strategy, inside the same
// span. With retries off, RunAsync never comes here.
public abstract partial class SqlRunner
{
    private async ValueTask<TResult> RunRetriedAsync<TResult>(
        CallRetries retries, CommandRequest request, CallBody<TResult> body, bool async, CancellationToken cancellationToken)
    {
        Activity? span = OrseisActivitySource.Tracing ? Pool.Telemetry.Spans.StartCall(request.Sql, request.Args) : null;
        try
        {
            try
            {
                return await RunCoreAsync(request, body, async, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception first) when (CallRetries.MayRetryFirst(first, cancellationToken))
            {
                var call = new RetriedCall(retries, span, Pool.Telemetry);
                var attempts = new Attempts<TResult>(this, request, body, ExceptionDispatchInfo.Capture(first));
                ResilienceContext context = CallRetries.Context(call, cancellationToken);
                try
                {
                    return async
                        ? await retries.Pipeline.ExecuteAsync(
                            static (context, attempts) => attempts.RunAsync(context.CancellationToken),
                            context,
                            attempts).ConfigureAwait(false)
                        : retries.Pipeline.Execute(static (context, attempts) => attempts.Run(), context, attempts);
                }
                finally
                {
                    ResilienceContextPool.Shared.Return(context);
                }
            }
        }
        catch (Exception error)
        {
            OrseisActivitySource.Failed(span, error);
            throw;
        }
        finally
        {
            OrseisActivitySource.Stop(span);
        }
    }

    /// <summary>
    /// The attempts of a retried call as Polly runs them: the first, which already failed, is its error again (so the
    /// strategy's delay and telemetry come before the second); each later one runs the call anew.
    /// </summary>
    private sealed class Attempts<TResult>(SqlRunner runner, CommandRequest request, CallBody<TResult> body, ExceptionDispatchInfo first)
    {
        private bool _firstSeen;

        public ValueTask<TResult> RunAsync(CancellationToken cancellationToken)
        {
            if (!_firstSeen)
            {
                _firstSeen = true;
                return ValueTask.FromException<TResult>(first.SourceException);
            }

            return runner.RunCoreAsync(request, body, async: true, cancellationToken);
        }

        public TResult Run()
        {
            if (!_firstSeen)
            {
                _firstSeen = true;
                first.Throw();
            }

            return SyncPath.Done(runner.RunCoreAsync(request, body, async: false, CancellationToken.None));
        }
    }
}
