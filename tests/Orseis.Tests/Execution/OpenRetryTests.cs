using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// An open whose connection broke while opening (an I/O failure: typically a pooled connection the server closed) is
/// tried once more, by each route an open takes: a sync open, an async open that failed at once, and one that failed
/// after it suspended. A second break says nothing was sent; a failure that is not a break is never retried; every
/// connection tried is disposed, sync or async as the call is, and none stays counted in use.
/// </summary>
public sealed class OpenRetryTests : IAsyncDisposable
{
    private readonly SqliteFile _file = new();
    private readonly TwinRecordingDataSource _source;

    public OpenRetryTests() => _source = new TwinRecordingDataSource(_file.ConnectionString);

    public ValueTask DisposeAsync()
    {
        _file.Dispose();
        return default;
    }

    public static TheoryData<bool, bool> Routes => new() { { false, false }, { true, false }, { true, true } };

    [Theory]
    [MemberData(nameof(Routes))]
    public async Task A_connection_that_broke_while_opening_is_opened_once_more_and_the_call_succeeds(bool async, bool suspends)
    {
        await using Database db = Open(suspends);
        _source.OpenFailure = () =>
        {
            _source.OpenFailure = null; // the second open succeeds
            return new IOException("Connection reset by peer");
        };

        Assert.Equal(1L, await Scalar(db, async));
        string open = async ? "OpenAsync" : "Open", dispose = async ? "DisposeAsync" : "Dispose";
        Assert.Equal([open, dispose, open, dispose], _source.Calls);
        Assert.Equal(2, _source.Connections.Count);
        Assert.Equal(0, db.GetPoolReport().InUse);
    }

    [Theory]
    [MemberData(nameof(Routes))]
    public async Task Two_breaks_in_a_row_say_nothing_was_sent_and_name_the_caller(bool async, bool suspends)
    {
        await using Database db = Open(suspends);
        _source.OpenFailure = () => new IOException("Connection reset by peer");

        ConnectionBrokenException broken = await Assert.ThrowsAsync<ConnectionBrokenException>(() => Scalar(db, async));
        Assert.False(broken.StatementMayHaveRun);
        Assert.IsType<IOException>(broken.InnerException);
        Assert.StartsWith("Opening a connection for a call on 'retry' (OpenPerCall mode) failed twice", broken.Message, StringComparison.Ordinal);
        Assert.Equal(2, _source.Connections.Count);
        Assert.Equal(2, _source.Count(async ? "DisposeAsync" : "Dispose"));
        Assert.Equal(0, db.GetPoolReport().InUse);
    }

    [Theory]
    [MemberData(nameof(Routes))]
    public async Task A_failure_that_is_not_a_break_is_thrown_as_it_is_after_one_open(bool async, bool suspends)
    {
        await using Database db = Open(suspends);
        var refused = new SqliteException("unable to open database file", 14);
        _source.OpenFailure = () => refused;

        Assert.Same(refused, await Assert.ThrowsAsync<SqliteException>(() => Scalar(db, async)));
        Assert.Single(_source.Connections);
        Assert.Equal(0, db.GetPoolReport().InUse);
    }

    [Fact]
    public async Task A_break_while_the_caller_cancelled_is_not_retried()
    {
        await using Database db = Open(suspends: true);
        using var cancel = new CancellationTokenSource();
        _source.OnOpenAsync = _ => cancel.Cancel();
        _source.OpenFailure = () => new IOException("Connection reset by peer");

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.ScalarAsync<long>("select 1", cancellationToken: cancel.Token));
        Assert.Single(_source.Connections);
        Assert.Equal(0, db.GetPoolReport().InUse);
    }

    private Database Open(bool suspends)
    {
        if (suspends)
            _source.Yielding.Add("OpenAsync");
        return new Database(_source, new OrseisOptions { PoolName = "retry" });
    }

    private static async Task<long> Scalar(Database db, bool async) =>
        async ? await db.ScalarAsync<long>("select 1") : db.Scalar<long>("select 1");
}
