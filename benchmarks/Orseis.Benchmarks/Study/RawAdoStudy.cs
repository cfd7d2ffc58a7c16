using System.Data.Common;
using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// The same study in raw ADO.NET, no Orseis: a command per query on one open connection (the baseline), or a
/// connection opened from the provider's data source and disposed around every query. Beside
/// <see cref="RatioStudy"/> it separates Orseis' own cost from the provider's.
/// </summary>
public abstract class RawAdoStudy : StudyParameters
{
    private BenchDatabase? _database;
    private DbDataSource? _pooled;
    private DbDataSource? _unpooled;
    private DbDataSource? _noReset;
    private DbConnection? _open;

    /// <summary>Creates the data sources and opens the kept connection.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        _pooled = _database.CreateDataSource(_database.ConnectionString);
        _unpooled = _database.CreateDataSource(_database.Unpooled);
        if (_database.NoResetOnClose is { } noReset)
            _noReset = _database.CreateDataSource(noReset);
        _open = _pooled.OpenConnection();
        OpenPerCall();
        if (_noReset is not null)
            OpenPerCallNoResetOnClose();
    }

    /// <summary>Closes the kept connection and disposes the data sources and the temporary database.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _open?.Dispose();
        _pooled?.Dispose();
        _unpooled?.Dispose();
        _noReset?.Dispose();
        _database?.Dispose();
    }

    /// <summary>One connection, kept open; a new command per query.</summary>
    [Benchmark(Baseline = true)]
    public long Reuse()
    {
        long sum = 0;
        for (int i = 0; i < N; i++)
            sum += Query(_open!);
        return sum;
    }

    /// <summary>A pooled connection opened and disposed around each query.</summary>
    [Benchmark]
    public long OpenPerCall() => PerCall(_pooled!);

    /// <summary>A real connection (<c>Pooling=false</c>) opened and disposed around each query.</summary>
    [Benchmark]
    public long OpenPerCallUnpooled() => PerCall(_unpooled!);

    /// <summary>PostgreSQL and MySqlConnector: a pooled connection that is not reset when it goes back to the pool.</summary>
    [Benchmark]
    public long OpenPerCallNoResetOnClose() => PerCall(_noReset ?? throw new InvalidOperationException("No Reset On Close exists only on PostgreSQL (No Reset On Close) and MySqlConnector (Connection Reset=false)."));

    private long PerCall(DbDataSource source)
    {
        long sum = 0;
        for (int i = 0; i < N; i++)
        {
            using DbConnection connection = source.OpenConnection();
            sum += Query(connection);
        }

        return sum;
    }

    private static long Query(DbConnection connection)
    {
        using DbCommand command = connection.CreateCommand();
        command.CommandText = Sql;
        return Convert.ToInt64(command.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture);
    }
}

/// <summary>Raw ADO.NET for N = 2^1..2^11 in a throughput job.</summary>
[Config(typeof(SmallStudyConfig))]
public class RawAdoStudySmall : RawAdoStudy
{
    /// <inheritdoc/>
    protected override IEnumerable<int> SizeRange => StudySizes.Small;
}

/// <summary>Raw ADO.NET for N = 2^12..2^17 in a monitoring job.</summary>
[Config(typeof(LargeStudyConfig))]
public class RawAdoStudyLarge : RawAdoStudy
{
    /// <inheritdoc/>
    protected override IEnumerable<int> SizeRange => StudySizes.Large;
}
