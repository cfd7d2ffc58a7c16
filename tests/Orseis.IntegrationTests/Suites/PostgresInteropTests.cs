using Npgsql;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// Interop on PostgreSQL: COPY through a session's own connection inside its transaction, and Orseis calls on an
/// Npgsql connection and transaction the caller owns.
/// </summary>
public sealed class PostgresInteropTests : IDisposable
{
    private readonly Database _db = new(NpgsqlFactory.Instance, new PostgresDialect().ConnectionString);
    private readonly string _table = "orseis_copy_" + Guid.NewGuid().ToString("N")[..10];

    /// <summary>SQL text with the table name in it (a plain string, so Orseis does not parameterise the hole).</summary>
    private static string T(string sql) => sql;

    public void Dispose()
    {
        _db.Execute(T($"drop table if exists {_table}"));
        _db.Dispose();
    }

    [PostgresFact]
    public async Task Copy_through_the_sessions_connection_joins_its_transaction()
    {
        await _db.ExecuteAsync(T($"create table {_table} (id int primary key, name text not null)"));
        await using Session session = await _db.OpenSessionAsync();
        await using (SessionTransaction tx = await session.BeginTransactionAsync())
        {
            var connection = (NpgsqlConnection)session.Connection;
            await using (NpgsqlBinaryImporter copy = await connection.BeginBinaryImportAsync($"copy {_table} (id, name) from stdin (format binary)"))
            {
                for (int id = 1; id <= 1000; id++)
                {
                    await copy.StartRowAsync();
                    await copy.WriteAsync(id);
                    await copy.WriteAsync("row " + id);
                }

                await copy.CompleteAsync();
            }

            Assert.Equal(1000, await session.ScalarAsync<int>(T($"select count(*) from {_table}")));
            Assert.Equal(0, await _db.ScalarAsync<int>(T($"select count(*) from {_table}"))); // not committed yet
            await tx.CommitAsync();
        }

        Assert.Equal(1000, await _db.ScalarAsync<int>(T($"select count(*) from {_table}")));
    }

    [PostgresFact]
    public async Task Calls_on_the_callers_connection_join_its_transaction()
    {
        await _db.ExecuteAsync(T($"create table {_table} (id int primary key, name text not null)"));
        await using var connection = new NpgsqlConnection(new PostgresDialect().ConnectionString);
        await connection.OpenAsync();
        long opens = _db.GetPoolReport().Opens;
        await using (NpgsqlTransaction tx = await connection.BeginTransactionAsync())
        {
            SqlRunner on = _db.On(connection, tx);
            Assert.Equal(2, await on.ExecuteAsync(T($"insert into {_table} (id, name) values (@id, @name)"), new[] { new { id = 1, name = "a" }, new { id = 2, name = "b" } }));
            Assert.Equal(["a", "b"], await on.QueryAsync<string>(T($"select name from {_table} order by id")));
            await tx.RollbackAsync();
        }

        Assert.Equal(0, await _db.On(connection).ScalarAsync<int>(T($"select count(*) from {_table}")));
        Assert.Equal(opens, _db.GetPoolReport().Opens); // the borrowed calls took nothing from the pool
    }
}
