using System.Data.Common;
using System.Runtime.CompilerServices;
using Orseis.Mapping;

namespace Orseis;

// Unbuffered reads of one result set: its rows handed out one at a time, as Dapper's Read<T>(buffered: false).
public sealed partial class GridReader
{
    private Unbuffered _unbuffered;
    private int _resultIndex;

    private enum Unbuffered
    {
        None,
        Handed,
        Reading,
    }

    /// <summary>
    /// Reads the current result set: buffered (<see langword="true"/>, as <see cref="Read{T}()"/>) or, with
    /// <see langword="false"/>, one row at a time as the caller enumerates, as Dapper's <c>Read&lt;T&gt;(buffered: false)</c>.
    /// </summary>
    /// <typeparam name="T">The row type.</typeparam>
    /// <param name="buffered">False to hand out the rows as they are read.</param>
    /// <returns>The rows. Unbuffered, they can be enumerated once; the next result set can be read once the enumeration ended
    /// or its enumerator was disposed (the rows not read are skipped). After the last result set the call ends and its
    /// connection is given back.</returns>
    /// <exception cref="InvalidOperationException">Every result set has been read, or the previous one is still being read
    /// unbuffered.</exception>
    public IEnumerable<T> Read<T>(bool buffered)
    {
        if (buffered)
            return Read<T>();
        ThrowIfDone();
        _unbuffered = Unbuffered.Handed;
        return UnbufferedRows<T>(_resultIndex);
    }

    /// <summary>
    /// Reads the current result set one row at a time as the caller enumerates it, asynchronously: Dapper's
    /// <c>ReadUnbufferedAsync&lt;T&gt;()</c>. The rules of <see cref="Read{T}(bool)"/> unbuffered apply.
    /// </summary>
    /// <typeparam name="T">The row type.</typeparam>
    /// <returns>The rows, to enumerate once (<c>await foreach</c>); the enumeration's token cancels it.</returns>
    /// <exception cref="InvalidOperationException">Every result set has been read, or the previous one is still being read
    /// unbuffered.</exception>
    public IAsyncEnumerable<T> ReadUnbufferedAsync<T>()
    {
        ThrowIfDone();
        _unbuffered = Unbuffered.Handed;
        return UnbufferedRowsAsync<T>(_resultIndex, CancellationToken.None);
    }

    private IEnumerable<T> UnbufferedRows<T>(int index)
    {
        StartUnbuffered(index);
        bool done = false;
        try
        {
            Func<DbDataReader, T>? map = null;
            while (SyncPath.Done(StepAsync(async: false, watch: null, CancellationToken.None)))
            {
                map ??= RowMapper<T>.Get(_reader, _call.Command.CommandText, _call.Runner.Handlers);
                yield return map(_reader);
            }

            done = true;
        }
        finally
        {
            SyncPath.Done(EndUnbufferedAsync(done, async: false, watch: null, CancellationToken.None));
        }
    }

    private async IAsyncEnumerable<T> UnbufferedRowsAsync<T>(int index, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        StartUnbuffered(index);

        // Read at the caller's pace: the token watches the whole enumeration, the provider's command timeout each wait.
        using CallWatch? watch = _call.WatchEnumeration(cancellationToken);
        bool done = false;
        try
        {
            Func<DbDataReader, T>? map = null;
            while (await StepAsync(async: true, watch, cancellationToken).ConfigureAwait(false))
            {
                map ??= RowMapper<T>.Get(_reader, _call.Command.CommandText, _call.Runner.Handlers);
                yield return map(_reader);
            }

            done = true;
        }
        finally
        {
            await EndUnbufferedAsync(done, async: true, watch, cancellationToken).ConfigureAwait(false);
        }
    }

    private void StartUnbuffered(int index)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (index != _resultIndex || _unbuffered != Unbuffered.Handed)
            throw new InvalidOperationException("This unbuffered result set has already been read: each result set can be read once.");
        _unbuffered = Unbuffered.Reading;
    }

    /// <summary>Reads one row of an unbuffered result set, its failure reported as any grid read's.</summary>
    private async ValueTask<bool> StepAsync(bool async, CallWatch? watch, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        cancellationToken.ThrowIfCancellationRequested();
        try
        {
            return await Watched(SqlRunner.ReadAsync(_reader, async, watch?.Token ?? cancellationToken), watch).ConfigureAwait(false);
        }
        catch (Exception error) when (Failed(error, watch, cancellationToken) is { } translated)
        {
            throw translated;
        }
    }

    /// <summary>
    /// The end of an unbuffered read: moves to the next result set (its failure thrown when the rows were all read, skipped
    /// when the enumeration stopped early or failed), and ends the call after the last one.
    /// </summary>
    private async ValueTask EndUnbufferedAsync(bool done, bool async, CallWatch? watch, CancellationToken cancellationToken)
    {
        _unbuffered = Unbuffered.None;
        if (Volatile.Read(ref _disposed) != 0 || !_hasResult || _ended)
            return;
        if (!done)
        {
            await SkipAsync(async).ConfigureAwait(false);
        }
        else
        {
            try
            {
                await NextAsync(async, watch, watch?.Token ?? cancellationToken).ConfigureAwait(false);
            }
            catch (Exception error) when (Failed(error, watch, cancellationToken) is { } translated)
            {
                throw translated;
            }
        }

        await FinishIfConsumedAsync(async).ConfigureAwait(false);
    }
}
