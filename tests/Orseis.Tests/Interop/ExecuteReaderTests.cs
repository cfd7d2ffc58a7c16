using System.Data.Common;
using Microsoft.Data.Sqlite;
using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Interop;

/// <summary>
/// <see cref="SqlRunner.ExecuteReader(string, object?, TimeSpan?)"/>: the provider's reader over an Orseis call that holds
/// its connection until the reader is disposed, in every way of running.
/// </summary>
public sealed class ExecuteReaderTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly Database _db;

    public ExecuteReaderTests()
    {
        _db = _file.Open(configure: o => o.Diagnostics.Detectors = FindingKind.All);
        _db.Execute("create table items (id integer primary key, name text not null)");
        _db.Execute("insert into items (id, name) values (1, 'a'), (2, 'b'), (3, 'c')");
    }

    public void Dispose()
    {
        _db.Dispose();
        _file.Dispose();
    }

    public sealed record Item(long Id, string Name);

    [Fact]
    public async Task Rows_and_result_sets_are_read_and_the_connection_is_held_until_disposal()
    {
        var items = new List<Item>();
        long count;
        await using (DbDataReader reader = await _db.ExecuteReaderAsync("select id, name from items where id > @min order by id; select count(*) from items", new { min = 1 }))
        {
            Assert.Equal(1, _db.GetPoolReport().InUse);
            Func<DbDataReader, Item>? map = null;
            while (await reader.ReadAsync())
                items.Add((map ??= _db.RowParser<Item>(reader))(reader));
            Assert.True(await reader.NextResultAsync());
            Assert.True(reader.Read());
            count = reader.GetInt64(0);
            Assert.False(await reader.NextResultAsync());
        }

        Assert.Equal([new Item(2, "b"), new Item(3, "c")], items);
        Assert.Equal(3, count);
        PoolReport report = _db.GetPoolReport();
        Assert.Equal(0, report.InUse);
    }

    [Fact]
    public void A_reader_disposed_early_gives_its_connection_back_and_works_in_a_session_and_a_scope()
    {
        using (DbDataReader reader = _db.ExecuteReader("select id from items order by id"))
        {
            Assert.True(reader.Read());
            Assert.Equal(1L, reader.GetInt64(0));
        }

        Assert.Equal(0, _db.GetPoolReport().InUse);

        using (Session session = _db.OpenSession())
        {
            using (DbDataReader reader = session.ExecuteReader("select name from items where id = @id", new { id = 2 }))
            {
                Assert.True(reader.Read());
                Assert.Equal("b", reader.GetString(0));
                Assert.Throws<SessionBusyException>(() => session.Scalar<long>("select 1")); // the reader holds the session
            }

            Assert.Equal(1, session.Scalar<long>("select 1"));
        }

        using (ConnectionScope scope = _db.BeginScope())
        {
            _db.Scalar<long>("select 1");
            using (DbDataReader reader = _db.ExecuteReader("select id from items"))
                Assert.True(reader.Read());
            Assert.Equal(1, scope.ReusedCalls); // the reader took the parked connection, and parked it again
        }
    }

    [Fact]
    public void A_failing_read_throws_and_the_connection_still_goes_back()
    {
        using (DbDataReader reader = _db.ExecuteReader("select 1; select abs(-9223372036854775808)"))
        {
            Assert.True(reader.Read());
            Assert.ThrowsAny<SqliteException>(() => reader.NextResult() && reader.Read());
        }

        Assert.Equal(0, _db.GetPoolReport().InUse);
        Assert.Equal(3, _db.Scalar<long>("select count(*) from items"));
    }
}
