using System.Data;
using System.Data.Common;
using System.Diagnostics;
using Orseis.Execution;

namespace Orseis;

public abstract partial class SqlRunner
{
    /// <summary>
    /// Runs <paramref name="sql"/> (several statements, or a procedure returning several result sets) and returns a
    /// <see cref="GridReader"/> to read its result sets in order. The connection is held until the reader is disposed,
    /// with the same rules as a stream: on a session or a ReuseConnection database no other call runs meanwhile.
    /// </summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The reader of result sets; dispose it.</returns>
    /// <example>
    /// <code>
    /// using GridReader grids = db.QueryMultiple("select * from users where id = @id; select * from orders where user_id = @id", new { id });
    /// User user = grids.ReadSingle&lt;User&gt;();
    /// List&lt;Order&gt; orders = grids.Read&lt;Order&gt;();
    /// </code>
    /// </example>
    public GridReader QueryMultiple(string sql, object? args = null, TimeSpan? timeout = null)
    {
        Pool.Telemetry.EnterFlow();
        return SyncPath.Done(OpenGridAsync(new CommandRequest(sql, args, timeout), async: false, CancellationToken.None));
    }

    /// <inheritdoc cref="QueryMultiple(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<GridReader> QueryMultipleAsync(string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        Pool.Telemetry.EnterFlow();
        return OpenGridAsync(new CommandRequest(sql, args, timeout), async: true, cancellationToken).AsTask();
    }

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
