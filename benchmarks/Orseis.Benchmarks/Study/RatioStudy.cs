using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// The 2014 study through Orseis: N sequential <c>Scalar&lt;long&gt;("select 1")</c> calls on a database in
/// <see cref="ExecutionMode.ReuseConnection"/> (the baseline) and in <see cref="ExecutionMode.OpenPerCall"/>, so
/// the Ratio column is the study's ratio for each N. Also open-per-call with <c>Pooling=false</c> (small N only) and,
/// without the provider's pooled-connection reset (see <see cref="BenchDatabase.NoResetOnClose"/>).
/// </summary>
public abstract class RatioStudy : StudyParameters
{
    private BenchDatabase? _database;
    private Database? _reuse;
    private Database? _perCall;
    private Database? _unpooled;
    private Database? _noReset;

    /// <summary>Creates one Orseis database per variant and opens the shared connection of the reuse one.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        _reuse = new Database(_database.Factory, _database.ConnectionString, new OrseisOptions { Mode = ExecutionMode.ReuseConnection });
        _perCall = new Database(_database.Factory, _database.ConnectionString);
        _unpooled = new Database(_database.Factory, _database.Unpooled);
        if (_database.NoResetOnClose is { } noReset)
            _noReset = new Database(_database.Factory, noReset);
        _reuse.Scalar<long>(Sql);
        _perCall.Scalar<long>(Sql);
        _noReset?.Scalar<long>(Sql);
    }

    /// <summary>Disposes the databases and the temporary database.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _reuse?.Dispose();
        _perCall?.Dispose();
        _unpooled?.Dispose();
        _noReset?.Dispose();
        _database?.Dispose();
    }

    /// <summary>One connection, kept open across the N calls.</summary>
    [Benchmark(Baseline = true)]
    public long Reuse() => Loop(_reuse!);

    /// <summary>Each call opens a pooled connection and closes it.</summary>
    [Benchmark]
    public long OpenPerCall() => Loop(_perCall!);

    /// <summary>Each call opens a real connection (<c>Pooling=false</c>).</summary>
    [Benchmark]
    public long OpenPerCallUnpooled() => Loop(_unpooled!);

    /// <summary>PostgreSQL and MySqlConnector: each call opens a pooled connection that is not reset (no <c>DISCARD ALL</c>) when closed.</summary>
    [Benchmark]
    public long OpenPerCallNoResetOnClose() => Loop(_noReset ?? throw new InvalidOperationException("No Reset On Close exists only on PostgreSQL (No Reset On Close) and MySqlConnector (Connection Reset=false)."));

    private long Loop(Database database)
    {
        long sum = 0;
        for (int i = 0; i < N; i++)
            sum += database.Scalar<long>(Sql);
        return sum;
    }
}

/// <summary>The Orseis study for N = 2^1..2^11 in a throughput job.</summary>
[Config(typeof(SmallStudyConfig))]
public class RatioStudySmall : RatioStudy
{
    /// <inheritdoc/>
    protected override IEnumerable<int> SizeRange => StudySizes.Small;
}

/// <summary>The Orseis study for N = 2^12..2^17 in a monitoring job.</summary>
[Config(typeof(LargeStudyConfig))]
public class RatioStudyLarge : RatioStudy
{
    /// <inheritdoc/>
    protected override IEnumerable<int> SizeRange => StudySizes.Large;
}
