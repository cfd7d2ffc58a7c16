using System.Diagnostics;
using System.Runtime.CompilerServices;
using Orseis.Diagnostics;

namespace Orseis;

// Spans around the one executor and the streams, taken only while someone listens to the Orseis ActivitySource
// (the callers check OrseisActivitySource.Tracing first, so with no listener none of this runs). Each span covers
// the call as its caller sees it: acquiring the connection (a child span when it opens one), the command, and the release.
public abstract partial class SqlRunner
{
    /// <summary>
    /// <see cref="RunCoreAsync"/> inside the call's span. An async method of its own, so the span is the current activity
    /// only inside the call (the provider's own spans become its children) and never leaks into the caller's context.
    /// </summary>
    private async ValueTask<TResult> RunTracedAsync<TResult>(
        CommandRequest request, CallBody<TResult> body, bool async, Diagnostics.Detectors.FlowState? flow,
        CancellationToken cancellationToken)
    {
        Activity? span = Pool.Telemetry.Spans.StartCall(request.Sql, request.Args);
        try
        {
            return await RunCoreAsync(request, body, async, cancellationToken, flow).ConfigureAwait(false);
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
    /// A stream's rows inside its span, from the start of the enumeration to its end or disposal (the connection's release
    /// included). The span is the current activity while the connection is acquired and the command runs; it is put back
    /// to the caller's before the first row reaches the caller, so calls made inside a <c>foreach</c> are not its children.
    /// </summary>
    private IEnumerable<T> TracedStream<T>(CommandRequest request, IEnumerable<T> rows)
    {
        Activity? caller = Activity.Current;
        Activity? span = Pool.Telemetry.Spans.StartCall(request.Sql, request.Args);
        IEnumerator<T>? reading = null;
        try
        {
            bool first = true;
            while (true)
            {
                T row;
                try
                {
                    reading ??= rows.GetEnumerator();
                    if (!reading.MoveNext())
                        break;
                    row = reading.Current;
                }
                catch (Exception error)
                {
                    OrseisActivitySource.Failed(span, error);
                    throw;
                }
                finally
                {
                    if (first)
                    {
                        first = false;
                        Activity.Current = caller;
                    }
                }

                yield return row;
            }
        }
        finally
        {
            try
            {
                reading?.Dispose();
            }
            catch (Exception error) when (OrseisActivitySource.FailedPassing(span, error))
            {
            }
            finally
            {
                OrseisActivitySource.Stop(span);
            }
        }
    }

    /// <inheritdoc cref="TracedStream"/>
    private async IAsyncEnumerable<T> TracedStreamAsync<T>(
        CommandRequest request, IAsyncEnumerable<T> rows, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        Activity? span = Pool.Telemetry.Spans.StartCall(request.Sql, request.Args);
        IAsyncEnumerator<T>? reading = null;
        try
        {
            while (true)
            {
                T row;
                try
                {
                    reading ??= rows.GetAsyncEnumerator(cancellationToken);
                    if (!await reading.MoveNextAsync().ConfigureAwait(false))
                        break;
                    row = reading.Current;
                }
                catch (Exception error)
                {
                    OrseisActivitySource.Failed(span, error);
                    throw;
                }

                yield return row;
            }
        }
        finally
        {
            try
            {
                if (reading is not null)
                    await reading.DisposeAsync().ConfigureAwait(false);
            }
            catch (Exception error) when (OrseisActivitySource.FailedPassing(span, error))
            {
            }
            finally
            {
                OrseisActivitySource.Stop(span);
            }
        }
    }
}
