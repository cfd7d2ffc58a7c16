using System.Data.Common;
using BenchmarkDotNet.Attributes;
using Dapper;
using Microsoft.Data.Sqlite;
using Orseis.Benchmarks.Costs;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// Execute-many: 1000 rows inserted by one call given a list of argument objects. Dapper's
/// <c>connection.Execute(sql, list)</c> on a kept connection (the baseline; one command per item) against Orseis in
/// each mode (a batch per 1000 items where the provider has <see cref="DbBatch"/>, one command per item elsewhere),
/// each with every insert committed on its own and in one transaction.
/// </summary>
/// <remarks>
/// SQLite runs on a shared in-memory database, so the numbers are the libraries' and the provider's, not a disk's
/// flush per commit; the test MariaDB does not flush per commit either (scripts/mariadb-lib.sh).
/// </remarks>
[Config(typeof(CostConfig))]
[MemoryDiagnoser]
public class ExecuteManyOverhead : ProviderBenchmark
{
    /// <summary>Rows per call.</summary>
    public const int Rows = 1000;

    private const string Insert = "insert into bench_many (id, name, amount) values (@Id, @Name, @Amount)";

    private BenchDatabase? _database;
    private string _connectionString = "";
    private DbDataSource? _source;
    private DbConnection? _open;
    private Database? _perCall;
    private Database? _reuse;
    private Session? _session;
    private ManyRow[] _rows = [];

    /// <summary>Creates the table (no key: every call appends the same 1000 rows) and the connections, and runs every path once.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        _connectionString = _database.Provider == BenchProvider.Sqlite
            ? new SqliteConnectionStringBuilder { DataSource = $"orseis-many-{Guid.NewGuid():N}", Mode = SqliteOpenMode.Memory, Cache = SqliteCacheMode.Shared }.ToString()
            : _database.ConnectionString;
        _source = _database.Factory.CreateDataSource(_connectionString);
        _open = _source.OpenConnection(); // keeps a shared in-memory SQLite database alive
        _open.Execute("drop table if exists bench_many");
        _open.Execute("create table bench_many (id bigint not null, name varchar(100) not null, amount int not null)");
        _rows = Enumerable.Range(1, Rows).Select(i => new ManyRow(i, "row " + i, i % 97)).ToArray();
        _perCall = new Database(_database.Factory, _connectionString);
        _reuse = new Database(_database.Factory, _connectionString, new OrseisOptions { Mode = ExecutionMode.ReuseConnection });
        _session = _perCall.OpenSession();

        Check(DapperExecuteMany(), DapperInTransaction(), OrseisOpenPerCall(), OrseisReuseConnection(), OrseisSession(), OrseisSessionInTransaction());
        if (_open.ExecuteScalar<long>("select count(*) from bench_many") != 6 * Rows)
            throw new InvalidOperationException("The warm-up runs did not insert 6000 rows.");
    }

    /// <summary>Drops the table and closes everything.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _open?.Execute("drop table if exists bench_many");
        _session?.Dispose();
        _reuse?.Dispose();
        _perCall?.Dispose();
        _open?.Dispose();
        _source?.Dispose();
        _database?.Dispose();
    }

    /// <summary>Dapper on a kept connection, each insert committed on its own.</summary>
    [Benchmark(Baseline = true)]
    public int DapperExecuteMany() => _open!.Execute(Insert, _rows);

    /// <summary>Dapper on a kept connection, in one transaction.</summary>
    [Benchmark]
    public int DapperInTransaction()
    {
        using DbTransaction transaction = _open!.BeginTransaction();
        int rows = _open.Execute(Insert, _rows, transaction);
        transaction.Commit();
        return rows;
    }

    /// <summary>Orseis, database in <see cref="ExecutionMode.OpenPerCall"/> (one pooled connection for the whole sequence).</summary>
    [Benchmark]
    public int OrseisOpenPerCall() => _perCall!.Execute(Insert, _rows);

    /// <summary>Orseis, database in <see cref="ExecutionMode.ReuseConnection"/>.</summary>
    [Benchmark]
    public int OrseisReuseConnection() => _reuse!.Execute(Insert, _rows);

    /// <summary>Orseis, an open <see cref="Orseis.Session"/>, each insert committed on its own.</summary>
    [Benchmark]
    public int OrseisSession() => _session!.Execute(Insert, _rows);

    /// <summary>Orseis, an open <see cref="Orseis.Session"/>, in one transaction.</summary>
    [Benchmark]
    public int OrseisSessionInTransaction()
    {
        using SessionTransaction transaction = _session!.BeginTransaction();
        int rows = _session.Execute(Insert, _rows);
        transaction.Commit();
        return rows;
    }

    private static void Check(params int[] counts)
    {
        if (counts.Any(c => c != Rows))
            throw new InvalidOperationException($"An execute-many reported {string.Join(", ", counts)} rows instead of {Rows} each.");
    }

    /// <summary>One row's arguments.</summary>
    /// <param name="Id">The id.</param>
    /// <param name="Name">A short string.</param>
    /// <param name="Amount">An int.</param>
    public sealed record ManyRow(long Id, string Name, int Amount);
}
