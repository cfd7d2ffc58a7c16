using System.Data.Common;
using Orseis.Mapping;

namespace Orseis;

/// <summary>
/// The result sets of one command (from <see cref="SqlRunner.QueryMultiple(string, object?, TimeSpan?)"/>), read in order: each <c>Read</c>
/// maps the current result set (buffered, or row by row: <see cref="Read{T}(bool)"/>) and moves to the next. It holds its
/// connection until its last result set has been read, when the call ends at once (outputs read back, the connection
/// given back), or until it is disposed; disposing it before every result set was read asks the server to stop sending
/// the rest.
/// </summary>
public sealed partial class GridReader : IDisposable, IAsyncDisposable
{
    private readonly DbDataReader _reader;
    private CallLifecycle _call;
    private Task? _abandoned;
    private bool _hasResult = true;
    private bool _failed;
    private bool _ended;
    private int _disposed;

    internal GridReader(CallLifecycle call, DbDataReader reader)
    {
        _call = call;
        _reader = reader;
    }

    /// <summary>
    /// The call's span (see <see cref="Diagnostics.CallSpans"/>), ended when the reader is disposed; null when nobody traces.
    /// </summary>
    internal System.Diagnostics.Activity? Span { get; init; }

    /// <summary>True once every result set has been read.</summary>
    public bool IsConsumed => !_hasResult;

    /// <summary>
    /// Maps every row of the current result set with the mapper <paramref name="mapperFor"/> makes for it, and moves to the next.
    /// </summary>
    private async ValueTask<List<T>> ReadRowsAsync<T>(
        Func<DbDataReader, string, TypeHandlerSet?, Func<DbDataReader, T>> mapperFor, bool async, CancellationToken cancellationToken)
    {
        ThrowIfDone();

        // Each read is timed and cancelled on its own, as the grid's execute was (see CallLifecycle.WatchStep).
        using CallWatch? watch = _call.WatchStep(async, cancellationToken);
        CancellationToken token = watch?.Token ?? cancellationToken;
        List<T> rows;
        try
        {
            rows = new List<T>();
            if (await Watched(SqlRunner.ReadAsync(_reader, async, token), watch).ConfigureAwait(false))
            {
                Func<DbDataReader, T> map = mapperFor(_reader, _call.Command.CommandText, _call.Runner.Handlers);
                do
                {
                    rows.Add(map(_reader));
                }
                while (await Watched(SqlRunner.ReadAsync(_reader, async, token), watch).ConfigureAwait(false));
            }

            await NextAsync(async, watch, token).ConfigureAwait(false);
        }
        catch (Exception error) when (Failed(error, watch, cancellationToken) is { } translated)
        {
            throw translated;
        }
        catch (Exception error) when (error is InvalidOperationException or MappingException or ArgumentException)
        {
            await SkipAsync(async).ConfigureAwait(false);
            await FinishIfConsumedAsync(async).ConfigureAwait(false);
            throw;
        }

        await FinishIfConsumedAsync(async).ConfigureAwait(false);
        return rows;
    }

    /// <summary>
    /// Maps the first row of the current result set with the mapper <paramref name="mapperFor"/> makes for it, applying
    /// <paramref name="limit"/>'s rules (<see cref="RowLimits"/>), and moves to the next.
    /// </summary>
    private async ValueTask<T?> ReadRowAsync<T>(
        RowLimit limit, Func<DbDataReader, string, TypeHandlerSet?, Func<DbDataReader, T>> mapperFor, bool async,
        CancellationToken cancellationToken)
    {
        ThrowIfDone();
        using CallWatch? watch = _call.WatchStep(async, cancellationToken);
        CancellationToken token = watch?.Token ?? cancellationToken;
        T? row = default;
        try
        {
            if (await Watched(SqlRunner.ReadAsync(_reader, async, token), watch).ConfigureAwait(false))
            {
                row = mapperFor(_reader, _call.Command.CommandText, _call.Runner.Handlers)(_reader);
                if (limit.AtMostOne() && await Watched(SqlRunner.ReadAsync(_reader, async, token), watch).ConfigureAwait(false))
                    throw limit.MoreThanOne("Read", "the result set has");
            }
            else if (limit.NeedsRow())
            {
                throw limit.NoRow("Read", "the result set has");
            }

            // The rest of a result set read for its first row is skipped by moving to the next one.
            await NextAsync(async, watch, token).ConfigureAwait(false);
        }
        catch (Exception error) when (Failed(error, watch, cancellationToken) is { } translated)
        {
            throw translated;
        }
        catch (Exception error) when (error is InvalidOperationException or MappingException)
        {
            await SkipAsync(async).ConfigureAwait(false);
            await FinishIfConsumedAsync(async).ConfigureAwait(false);
            throw;
        }

        await FinishIfConsumedAsync(async).ConfigureAwait(false);
        return row;
    }

    /// <summary>Waits for one provider operation of a grid under <paramref name="watch"/>; the operation itself when null.</summary>
    internal static ValueTask<T> Watched<T>(ValueTask<T> operation, CallWatch? watch) =>
        watch is null ? operation : watch.WaitAsync(operation);

    /// <summary>After a read that failed on its rows (their count, a mapping), moves on so the next read gets the next result
    /// set.</summary>
    private async ValueTask SkipAsync(bool async)
    {
        try
        {
            await NextAsync(async, watch: null, CancellationToken.None).ConfigureAwait(false);
        }
#pragma warning disable CA1031 // the caller gets the read's own error; a failure to move on shows at the next read or dispose
        catch (Exception)
#pragma warning restore CA1031
        {
            _failed = true;
            _hasResult = false;
        }
    }

    private async ValueTask NextAsync(bool async, CallWatch? watch, CancellationToken cancellationToken)
    {
        _hasResult = await Watched(SqlRunner.NextResultAsync(_reader, async, cancellationToken), watch).ConfigureAwait(false);
        if (_hasResult)
            _resultIndex++;
    }

    /// <summary>
    /// Once the last result set was read cleanly, ends the call at once, as Dapper does: the reader is closed, the outputs
    /// are read back and the connection is given back (to the pool, open-per-call), before the grid is disposed.
    /// </summary>
    private ValueTask FinishIfConsumedAsync(bool async) =>
        _hasResult || _failed || _ended || _abandoned is not null || Volatile.Read(ref _disposed) != 0 ? default : FinishAsync(async);

    private async ValueTask FinishAsync(bool async)
    {
        _ended = true;
        try
        {
            await SqlRunner.DisposeReaderAsync(_reader, async).ConfigureAwait(false);
            _call.Complete();
        }
        catch (Exception error)
        {
            _call.Fail(error);
            Diagnostics.OrseisActivitySource.Failed(Span, error);
            throw;
        }
        finally
        {
            try
            {
                await _call.EndAsync(async).ConfigureAwait(false);
            }
            finally
            {
                Diagnostics.OrseisActivitySource.Stop(Span);
            }
        }

        ParameterBag.ThrowIfOutputFailed(_call.Request.Args);
    }

    /// <summary>Notes a failure (reported when the reader is disposed) and returns the error the caller gets instead, if any.</summary>
    private Exception? Failed(Exception error, CallWatch? watch, CancellationToken cancellationToken)
    {
        if (watch?.Abandoned is { } pending)
        {
            // The provider still reads: nothing more can be read, and the connection goes with the provider, later.
            _abandoned = pending;
            _hasResult = false;
        }

        if (error is not (InvalidOperationException or MappingException or ArgumentException))
        {
            _failed = true;
            Diagnostics.OrseisActivitySource.Failed(Span, error);
        }

        return _call.Report(error, cancellationToken, watch);
    }

    /// <summary>The provider's reader, for <see cref="LeasedReader"/>: the caller reads it directly.</summary>
    internal DbDataReader Inner => _reader;

    /// <summary>A read of <see cref="Inner"/> by the caller failed: what to throw instead (null: the error itself).</summary>
    internal Exception? ReadFailed(Exception error, CancellationToken cancellationToken) => Failed(error, null, cancellationToken);

    /// <summary>The caller moved past the last result set of <see cref="Inner"/>: the command finished.</summary>
    internal void Consumed() => _hasResult = false;

    private void ThrowIfDone()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (!_hasResult)
            throw new InvalidOperationException("Every result set of this command has been read.");
        if (_unbuffered != Unbuffered.None)
        {
            throw new InvalidOperationException(
                "The current result set is being read unbuffered: read it to its end (or dispose its enumerator) before reading the " +
                "next one. Result sets are read in order, each once.");
        }
    }

    /// <summary>Closes the reader (asking the server to stop sending unread result sets) and gives back the connection.</summary>
    public void Dispose() => SyncPath.Done(DisposeAsync(async: false));

    /// <inheritdoc cref="Dispose"/>
    /// <returns>A task that completes when the connection is given back.</returns>
    public ValueTask DisposeAsync() => DisposeAsync(async: true);

    private async ValueTask DisposeAsync(bool async)
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0 || _ended)
            return;
        _ended = true;
        bool closed = false;
        bool readBack = false;
        try
        {
            if (_abandoned is null)
            {
                await SqlRunner.CloseReaderAsync(_call.Command, _reader, finished: !_hasResult, async).ConfigureAwait(false);
                closed = true;
            }
        }
        catch (Exception) when (_failed)
        {
            // The caller has the read's own error; closing a reader the server already failed (a stopped statement, a
            // broken connection) may fail too, and must not replace that error when a using block disposes the grid.
        }
        finally
        {
            if (_failed)
                _call.Fail(null);
            else
                _call.Complete(readBack = closed && !_hasResult);
            try
            {
                await _call.EndAsync(async, _abandoned).ConfigureAwait(false);
            }
            finally
            {
                Diagnostics.OrseisActivitySource.Stop(Span);
            }
        }

        if (readBack)
            ParameterBag.ThrowIfOutputFailed(_call.Request.Args);
    }
}
