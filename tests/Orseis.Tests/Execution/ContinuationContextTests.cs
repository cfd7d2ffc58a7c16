using System.Data;
using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// Orseis's async calls under a UI thread's or classic ASP.NET's <see cref="SynchronizationContext"/>: no continuation
/// of Orseis's own comes back to the caller's context, so an application that blocks that thread on an Orseis task
/// (sync over async) does not deadlock, and its UI thread does no Orseis work. The provider stand-in really suspends in
/// the chosen operation, so each await on the way to it is one that resumes later.
/// </summary>
public sealed class ContinuationContextTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly TwinRecordingDataSource _source;
    private readonly CountingSynchronizationContext _context = new();

    public ContinuationContextTests()
    {
        _source = new TwinRecordingDataSource(_file.ConnectionString);
        using var setup = new Database(_source);
        setup.Execute("create table t (id integer primary key, v integer)");
        setup.Execute("insert into t (id, v) values (1, 10)");
    }

    public void Dispose()
    {
        _source.Dispose();
        _file.Dispose();
    }

    private Database Open(ExecutionMode mode) => new(_source, new OrseisOptions { Mode = mode });

    private async Task<T> UnderContext<T>(Func<Task<T>> call)
    {
        T result = await _context.Start(call);
        Assert.Equal(0, _context.Posts);
        return result;
    }

    private async Task UnderContext(Func<Task> call)
    {
        await _context.Start(call);
        Assert.Equal(0, _context.Posts);
    }

    [Theory]
    [InlineData(ExecutionMode.OpenPerCall, false)]
    [InlineData(ExecutionMode.OpenPerCall, true)]
    [InlineData(ExecutionMode.ReuseConnection, false)]
    [InlineData(ExecutionMode.ReuseConnection, true)]
    public async Task A_call_whose_open_suspends_resumes_off_the_caller_s_context(ExecutionMode mode, bool cancellable)
    {
        await using Database db = Open(mode);
        _source.Yielding.Add("OpenAsync");
        using var cts = new CancellationTokenSource();
        CancellationToken token = cancellable ? cts.Token : CancellationToken.None;

        Assert.Equal(10, await UnderContext(() => db.ScalarAsync<int>("select v from t where id = 1", cancellationToken: token)));
        Assert.Equal(1, _source.Count("OpenAsync"));
    }

    [Fact]
    public async Task A_session_opened_async_resumes_off_the_caller_s_context()
    {
        await using Database db = Open(ExecutionMode.OpenPerCall);
        _source.Yielding.Add("OpenAsync");

        await using Session session = await UnderContext(() => db.OpenSessionAsync());
        Assert.Equal(10, await UnderContext(() => session.ScalarAsync<int>("select v from t where id = 1")));
    }

    [Theory]
    [InlineData("OpenAsync", false)]
    [InlineData("DisposeAsync", false)]
    [InlineData("OpenAsync", true)]
    [InlineData("DisposeAsync", true)]
    public async Task Replacing_a_broken_kept_connection_resumes_off_the_caller_s_context(string yielding, bool session)
    {
        await using Database db = Open(session ? ExecutionMode.OpenPerCall : ExecutionMode.ReuseConnection);
        await using Session? own = session ? db.OpenSession() : null;
        SqlRunner runner = own ?? (SqlRunner)db;
        Assert.Equal(10, runner.Scalar<int>("select v from t where id = 1"));
        _source.Connections[^1].Close(); // the kept connection broke
        _source.Yielding.Add(yielding);

        Assert.Equal(10, await UnderContext(() => runner.ScalarAsync<int>("select v from t where id = 1")));
        Assert.Equal(1, _source.Count("DisposeAsync"));
        Assert.Equal(1, _source.Count("OpenAsync"));
    }

    [Fact]
    public async Task Closing_a_kept_connection_resumes_off_the_caller_s_context()
    {
        Database shared = Open(ExecutionMode.ReuseConnection);
        shared.Execute("update t set v = 10");
        await using Database db = Open(ExecutionMode.OpenPerCall);
        Session session = db.OpenSession();
        _source.Yielding.Add("DisposeAsync");

        await UnderContext(() => shared.DisposeAsync().AsTask());
        await UnderContext(() => session.DisposeAsync().AsTask());
        Assert.Equal(2, _source.Count("DisposeAsync"));
    }

    [Fact]
    public async Task An_execute_many_whose_commands_suspend_resumes_off_the_caller_s_context()
    {
        await using Database db = Open(ExecutionMode.OpenPerCall);
        _source.Yielding.Add("ExecuteNonQueryAsync");

        object[] items = [new { id = 2, v = 20 }, new { id = 3, v = 30 }];
        Assert.Equal(2, await UnderContext(() => db.ExecuteAsync("insert into t (id, v) values (@id, @v)", items)));
        Assert.Equal(2, _source.Count("ExecuteNonQueryAsync"));
    }

    [Fact]
    public async Task A_failed_open_resumes_off_the_caller_s_context_while_it_disposes_the_connection()
    {
        await using Database db = Open(ExecutionMode.OpenPerCall);
        _source.OpenFailure = () => new SqliteException("no such server", 14);
        _source.Yielding.Add("DisposeAsync");

        Exception? error = await UnderContext(async () =>
        {
            try
            {
                await db.ScalarAsync<int>("select 1").ConfigureAwait(false); // xUnit's ThrowsAsync would post to the context itself
                return null;
            }
            catch (SqliteException failed)
            {
                return failed;
            }
        });
        Assert.Equal("no such server", Assert.IsType<SqliteException>(error).Message);
        Assert.Equal(1, _source.Count("DisposeAsync"));
    }

    [Fact]
    public async Task A_call_that_waits_for_the_shared_connection_resumes_off_the_caller_s_context()
    {
        await using Database db = Open(ExecutionMode.ReuseConnection);
        IAsyncEnumerator<int> stream = db.StreamAsync<int>("select v from t").GetAsyncEnumerator();
        Assert.True(await stream.MoveNextAsync()); // the stream holds the one connection

        Task<int> waiting = _context.Start(() => db.ScalarAsync<int>("select count(*) from t"));
        Assert.True(SpinWait.SpinUntil(() => db.ReuseWaits == 1, TimeSpan.FromSeconds(10)));
        Assert.False(waiting.IsCompleted);
        await stream.DisposeAsync();

        Assert.Equal(1, await waiting);
        Assert.Equal(0, _context.Posts);
        Assert.Equal(ConnectionState.Open, _source.Connections[^1].State);
    }
}
