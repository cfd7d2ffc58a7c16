using System.Data.Common;
using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Costs;

/// <summary>
/// Where a query's time goes besides the open: 500 <c>select 1</c> on one command prepared once (baseline), on a
/// new command each time (prepared each time), on one command whose connection is closed and reopened around each
/// execution (does closing throw away the prepared statement?), and on a new pooled connection each time.
/// </summary>
[Config(typeof(CostConfig))]
public class PrepareCost : ProviderBenchmark
{
    /// <summary>Queries per benchmark call.</summary>
    public const int Queries = 500;

    private const string Sql = "select 1";

    private BenchDatabase? _database;
    private DbDataSource? _source;
    private DbConnection? _open;
    private DbCommand? _kept;
    private DbConnection? _reopened;
    private DbCommand? _keptAcrossReopen;

    /// <summary>Opens the kept connection and prepares the kept commands.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        _source = _database.CreateDataSource(_database.ConnectionString);
        _open = _source.OpenConnection();
        _kept = _open.CreateCommand();
        _kept.CommandText = Sql;
        _kept.Prepare();
        _reopened = _source.CreateConnection();
        _keptAcrossReopen = _reopened.CreateCommand();
        _keptAcrossReopen.CommandText = Sql;
        KeptCommandReopened();
    }

    /// <summary>Disposes everything.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _kept?.Dispose();
        _keptAcrossReopen?.Dispose();
        _reopened?.Dispose();
        _open?.Dispose();
        _source?.Dispose();
        _database?.Dispose();
    }

    /// <summary>One open connection, one command, prepared once and executed 500 times.</summary>
    [Benchmark(Baseline = true)]
    public long KeptCommand()
    {
        long sum = 0;
        for (int i = 0; i < Queries; i++)
            sum += Convert.ToInt64(_kept!.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture);
        return sum;
    }

    /// <summary>One open connection, a new command per query (what Orseis does in ReuseConnection mode).</summary>
    [Benchmark]
    public long NewCommandPerQuery()
    {
        long sum = 0;
        for (int i = 0; i < Queries; i++)
        {
            using DbCommand command = _open!.CreateCommand();
            command.CommandText = Sql;
            sum += Convert.ToInt64(command.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture);
        }

        return sum;
    }

    /// <summary>One command (prepared on first use) whose pooled connection is closed and reopened around each execution.</summary>
    [Benchmark]
    public long KeptCommandReopened()
    {
        long sum = 0;
        for (int i = 0; i < Queries; i++)
        {
            _reopened!.Open();
            sum += Convert.ToInt64(_keptAcrossReopen!.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture);
            _reopened.Close();
        }

        return sum;
    }

    /// <summary>A new pooled connection and a new command per query (what Orseis does in OpenPerCall mode).</summary>
    [Benchmark]
    public long NewConnectionPerQuery()
    {
        long sum = 0;
        for (int i = 0; i < Queries; i++)
        {
            using DbConnection connection = _source!.OpenConnection();
            using DbCommand command = connection.CreateCommand();
            command.CommandText = Sql;
            sum += Convert.ToInt64(command.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture);
        }

        return sum;
    }
}
