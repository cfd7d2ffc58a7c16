using System.Data;
using Microsoft.Data.Sqlite;
using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Interop;

/// <summary>
/// Orseis on a connection the caller owns (<see cref="Database.On"/>), as Dapper code and EF Core have them, and the
/// session's own connection and transaction handed out for what Orseis does not wrap.
/// </summary>
public sealed class BorrowedConnectionTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly Database _db;

    public BorrowedConnectionTests()
    {
        _db = _file.Open(configure: o =>
        {
            o.Diagnostics.Detectors = FindingKind.All;
            o.AddTypeHandler(new UpperHandler());
        });
        _db.Execute("create table items (id integer primary key, name text not null)");
    }

    public void Dispose()
    {
        _db.Dispose();
        _file.Dispose();
    }

    public sealed record Shout(string Text);

    public sealed record Item(long Id, Shout Name);

    private sealed class UpperHandler : TypeHandler<Shout>
    {
        public override Shout Parse(object value) => new(((string)value).ToUpperInvariant());

        public override void SetValue(System.Data.Common.DbParameter parameter, Shout value) => parameter.Value = value.Text;
    }

    [Fact]
    public async Task Calls_run_on_the_callers_open_connection_with_the_databases_handlers_and_leave_it_open()
    {
        await using var connection = new SqliteConnection(_file.ConnectionString);
        await connection.OpenAsync();
        using (SqliteCommand temp = connection.CreateCommand())
        {
            temp.CommandText = "create temp table scratch (v int); insert into scratch values (7)";
            temp.ExecuteNonQuery();
        }

        long opensBefore = _db.GetPoolReport().Opens;
        SqlRunner on = _db.On(connection);
        Assert.Equal(7, await on.ScalarAsync<long>("select v from scratch")); // the caller's own session
        await on.ExecuteAsync("insert into items (id, name) values (@id, @name)", new { id = 1, name = new Shout("ada") });
        Item item = Assert.Single(on.Query<Item>("select id, name from items"));
        Assert.Equal("ADA", item.Name.Text);
        Assert.Equal(ConnectionState.Open, connection.State);

        PoolReport report = _db.GetPoolReport();
        Assert.Equal(opensBefore, report.Opens); // nothing taken from the pool
        Assert.Equal(0, report.InUse);
    }

    [Fact]
    public void A_closed_connection_is_opened_for_each_call_and_closed_after_it()
    {
        using var connection = new SqliteConnection(_file.ConnectionString);
        SqlRunner on = _db.On(connection);
        Assert.Equal(0, on.Scalar<long>("select count(*) from items"));
        Assert.Equal(ConnectionState.Closed, connection.State);
        Assert.Empty(on.Stream<long>("select id from items").ToList());
        Assert.Equal(ConnectionState.Closed, connection.State);
    }

    [Fact]
    public async Task Calls_join_the_callers_transaction_and_it_decides()
    {
        await using var connection = new SqliteConnection(_file.ConnectionString);
        await connection.OpenAsync();
        await using (var rolledBack = (SqliteTransaction)await connection.BeginTransactionAsync())
        {
            await _db.On(connection, rolledBack).ExecuteAsync("insert into items (id, name) values (1, 'a')");
            Assert.Equal(1, await _db.On(connection, rolledBack).ScalarAsync<long>("select count(*) from items"));
            await rolledBack.RollbackAsync();
        }

        Assert.Equal(0, await _db.ScalarAsync<long>("select count(*) from items"));
        using (SqliteTransaction committed = connection.BeginTransaction())
        {
            _db.On(connection, committed).Execute("insert into items (id, name) values (@id, 'b')", new[] { new { id = 2 }, new { id = 3 } });
            committed.Commit();
        }

        Assert.Equal(2, await _db.ScalarAsync<long>("select count(*) from items"));
    }

    [Fact]
    public void Misuse_is_refused_with_what_was_wrong()
    {
        using var connection = new SqliteConnection(_file.ConnectionString);
        using var other = new SqliteConnection(_file.ConnectionString);
        connection.Open();
        other.Open();
        using SqliteTransaction foreign = other.BeginTransaction();
        var wrongTransaction = Assert.Throws<ArgumentException>(() => _db.On(connection, foreign));
        Assert.Equal("transaction", wrongTransaction.ParamName);

        SqlRunner on = _db.On(connection);
        using IEnumerator<long> reading = on.Stream<long>("select 1 union all select 2").GetEnumerator();
        Assert.True(reading.MoveNext());
        Assert.Throws<SessionBusyException>(() => on.Scalar<long>("select 1"));
        reading.Dispose();
        Assert.Equal(1, on.Scalar<long>("select 1"));

        Assert.Throws<ArgumentNullException>(() => _db.On(null!));
    }

    [Fact]
    public async Task A_sessions_connection_and_transaction_serve_what_Orseis_does_not_wrap()
    {
        await using Session session = await _db.OpenSessionAsync();
        await using SessionTransaction tx = await session.BeginTransactionAsync();
        using (var command = (SqliteCommand)session.Connection.CreateCommand())
        {
            command.Transaction = (SqliteTransaction)tx.DbTransaction;
            command.CommandText = "insert into items (id, name) values (10, 'raw')";
            Assert.Equal(1, command.ExecuteNonQuery());
        }

        Assert.Equal(1, await session.ScalarAsync<long>("select count(*) from items where id = 10"));
        await tx.RollbackAsync(); // the raw insert was in the session's transaction
        Assert.Equal(0, await session.ScalarAsync<long>("select count(*) from items"));
        await session.DisposeAsync();
        Assert.Throws<ObjectDisposedException>(() => session.Connection);
    }
}
