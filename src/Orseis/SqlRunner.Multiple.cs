using System.Data;
using System.Data.Common;
using System.Diagnostics;

namespace Orseis;

public abstract partial class SqlRunner
{
    private async ValueTask<GridReader> OpenGridAsync(CommandRequest request, bool async, CancellationToken cancellationToken)
    {
        // The grid's span lasts until the reader is disposed; it is the current activity only inside this method.
        Activity? span = Diagnostics.OrseisActivitySource.Tracing ? Pool.Telemetry.Spans.StartCall(request.Sql, request.Args) : null;
        CallLifecycle call;
        try
        {
            call = await CallLifecycle.StartAsync(this, request, CallShape.Grid, async, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception error)
        {
            Diagnostics.OrseisActivitySource.Failed(span, error);
            Diagnostics.OrseisActivitySource.Stop(span);
            throw;
        }

        // A grid is read at the caller's pace: its execute, and then each read, is timed and cancelled on its own.
        CallWatch? watch = call.WatchStep(async, cancellationToken);
        try
        {
            DbDataReader reader;
            try
            {
                CancellationToken token = watch?.Token ?? cancellationToken;
                ValueTask<DbDataReader> executing = ExecuteReaderAsync(call.Command, CommandBehavior.Default, async, token);
                reader = await GridReader.Watched(executing, watch).ConfigureAwait(false);
            }
            catch (Exception error)
            {
                call.Fail(call.Watched(error, watch));
                if (call.Report(error, cancellationToken, watch) is { } translated)
                    throw translated;
                throw;
            }

            return new GridReader(call, reader) { Span = span };
        }
        catch (Exception error)
        {
            Diagnostics.OrseisActivitySource.Failed(span, error);
            try
            {
                await call.EndAsync(async, watch?.Abandoned).ConfigureAwait(false);
            }
            finally
            {
                Diagnostics.OrseisActivitySource.Stop(span);
            }

            throw;
        }
        finally
        {
            watch?.Dispose();
        }
    }
}
