using System.Data.Common;
using Microsoft.Extensions.Time.Testing;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>
/// The command a <see cref="ConnectionScope"/> keeps for its parked connection (kept with the connection, in its
/// <c>ScopeConnection</c>), so the scope's next call runs on it. Each call binds only its own parameters (none are left
/// from the last call), runs in no transaction, and a failed call's command is never handed on; a stream's command is
/// disposed as it ends; every command the scope made is disposed once its connection goes back (the scope's end, the
/// idle sweep, a call beside the parked one).
/// </summary>
public sealed class ConnectionScopeCommandTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly FakeTimeProvider _time = new();
    private readonly RecordingDataSource _source;
    private readonly Database _db;

    public ConnectionScopeCommandTests()
    {
        using (Database setup = _file.Open())
        {
            setup.Execute("create table items (id integer primary key, name text not null)");
            for (int i = 1; i <= 5; i++)
                setup.Execute("insert into items (id, name) values (@i, @name)", new { i, name = "item " + i });
        }

        _source = new RecordingDataSource(_file.ConnectionString);
        var options = new OrseisOptions();
        options.Diagnostics.TimeProvider = _time; // the idle window passes only when a test says so
        _db = new Database(_source, options);
    }

    public void Dispose()
    {
        _db.Dispose();
        _source.Dispose();
        _file.Dispose();
    }

    private RecordingDataSource.Execution[] Runs => [.. _source.Executions];

    [Fact]
    public void Calls_with_other_or_no_parameters_run_on_the_kept_command_and_bind_only_their_own()
    {
        using ConnectionScope scope = _db.BeginScope();
        Assert.Equal(3, _db.Scalar<long>("select @a + @b", new { a = 1, b = 2 }));
        Assert.Equal(5, _db.Scalar<long>("select @c", new { c = 5 }));
        Assert.Equal(4, _db.Scalar<long>("select count(*) from items where id > 1"));

        // The first call's @a is not on the kept command: SQLite refuses the unbound parameter (a leak would answer 1).
        Exception unbound = Assert.ThrowsAny<Exception>(() => _db.Scalar<long>("select @a"));
        Assert.Contains("@a", unbound.Message, StringComparison.Ordinal);
        Assert.Equal(7, _db.Scalar<long>("select @a", new { a = 7 }));

        RecordingDataSource.Execution[] runs = Runs;
        Assert.Equal([["@a", "@b"], ["@c"], [], [], ["@a"]], runs.Select(e => e.ParameterNames));
        Assert.All(runs, e => Assert.Null(e.Transaction));
        // The first four ran on one command, parked and taken with the connection; the failed one was disposed, and the
        // call after it made its own on the same connection.
        Assert.Single(runs.Take(4).Select(e => e.Command).Distinct());
        Assert.True(_source.Disposed.ContainsKey(runs[3].Command));
        Assert.NotSame(runs[3].Command, runs[4].Command);
        Assert.False(_source.Disposed.ContainsKey(runs[4].Command));
        Assert.Equal(4, scope.ReusedCalls);
        Assert.Equal(1, _db.GetPoolReport().Opens);
    }

    [Fact]
    public async Task After_a_statement_failed_the_next_call_has_neither_its_command_nor_its_parameters()
    {
        await using ConnectionScope scope = _db.BeginScope();
        Assert.Equal("item 2", await _db.ScalarAsync<string>("select name from items where id = @id", new { id = 2 }));
        await Assert.ThrowsAnyAsync<DbException>(
            () => _db.ExecuteAsync("insert into items (id, name) values (@id, @name)", new { id = 1, name = "dup" }));
        await Task.Yield();

        // The failed call's @name is gone with its command: unbound here.
        Exception unbound = await Assert.ThrowsAnyAsync<Exception>(() => _db.ScalarAsync<long>("select count(*) from items where name = @name"));
        Assert.Contains("@name", unbound.Message, StringComparison.Ordinal);
        Assert.Equal(0, await _db.ScalarAsync<long>("select count(*) from items where name = @name", new { name = "dup" }));

        RecordingDataSource.Execution[] runs = Runs;
        Assert.Equal([["@id"], ["@id", "@name"], [], ["@name"]], runs.Select(e => e.ParameterNames));
        Assert.Same(runs[0].Command, runs[1].Command);
        Assert.True(_source.Disposed.ContainsKey(runs[1].Command));
        Assert.NotSame(runs[1].Command, runs[2].Command);
        Assert.True(_source.Disposed.ContainsKey(runs[2].Command));
        Assert.NotSame(runs[2].Command, runs[3].Command);
        Assert.Equal(3, scope.ReusedCalls); // the connection itself stayed with the scope through both failures
        Assert.Equal(1, _db.GetPoolReport().Opens);
    }

    [Fact]
    public async Task Async_calls_with_yields_between_them_share_the_kept_command()
    {
        await using ConnectionScope scope = _db.BeginScope();
        for (int id = 1; id <= 5; id++)
        {
            await Task.Yield();
            Assert.Equal("item " + id, await _db.ScalarAsync<string>("select name from items where id = @id", new { id }));
        }

        Assert.Single(Runs.Select(e => e.Command).Distinct());
        Assert.Equal(4, scope.ReusedCalls);
        Assert.Equal(1, _source.CommandsCreated);
    }

    [Fact]
    public void A_stream_between_calls_disposes_its_command_and_the_calls_bind_only_their_own()
    {
        using ConnectionScope scope = _db.BeginScope();
        Assert.Equal("item 1", _db.Scalar<string>("select name from items where id = @id", new { id = 1 }));
        Assert.Equal([3L, 4L, 5L], _db.Stream<long>("select id from items where id > @min order by id", new { min = 2 }).ToList());
        Assert.Equal("item 2", _db.Scalar<string>("select name from items where id = @id", new { id = 2 }));

        RecordingDataSource.Execution[] runs = Runs;
        Assert.Equal([["@id"], ["@min"], ["@id"]], runs.Select(e => e.ParameterNames));
        Assert.True(_source.Disposed.ContainsKey(runs[1].Command)); // the stream's command went with its end
        Assert.NotSame(runs[1].Command, runs[2].Command);
        Assert.False(_source.Disposed.ContainsKey(runs[2].Command));
        Assert.Equal(2, scope.ReusedCalls);
        Assert.Equal(2, _source.CommandsCreated);
    }

    [Fact]
    public void The_scope_end_and_the_idle_sweep_dispose_the_parked_command()
    {
        DbCommand ended;
        using (_db.BeginScope())
        {
            _db.Scalar<string>("select name from items where id = @id", new { id = 1 });
            ended = Assert.Single(Runs).Command;
            Assert.False(_source.Disposed.ContainsKey(ended));
        }

        Assert.True(_source.Disposed.ContainsKey(ended));

        using ConnectionScope quiet = _db.BeginScope();
        _db.Scalar<string>("select name from items where id = @id", new { id = 2 });
        DbCommand swept = Runs[^1].Command;
        Assert.NotSame(ended, swept);
        Assert.False(_source.Disposed.ContainsKey(swept));
        _time.Advance(TimeSpan.FromMilliseconds(4)); // two sweeps: the parked connection sat a whole window
        Assert.Equal(0, _db.GetPoolReport().ParkedConnections);
        Assert.True(_source.Disposed.ContainsKey(swept));
    }

    [Fact]
    public async Task Concurrent_calls_of_a_scope_leave_no_command_undisposed_once_it_ends()
    {
        await using (_db.BeginScope())
        {
            for (int round = 0; round < 20; round++)
            {
                // Calls at once: one takes the parked connection and its command, the others open their own; as they end, one
                // parks and the rest give back their connection and command.
                await Task.WhenAll(Enumerable.Range(1, 4).Select(async id =>
                {
                    await Task.Yield();
                    Assert.Equal("item " + id, await _db.ScalarAsync<string>("select name from items where id = @id", new { id }));
                }));
            }
        }

        Assert.Equal(80, _source.Executions.Count);
        Assert.Equal(_source.CommandsCreated, _source.Disposed.Count);
        Assert.Equal(0, _db.GetPoolReport().ParkedConnections);
        Assert.Equal(0, _db.GetPoolReport().InUse);
    }
}
