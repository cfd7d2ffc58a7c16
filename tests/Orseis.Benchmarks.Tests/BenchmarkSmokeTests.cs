using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using Orseis.Benchmarks.Costs;
using Orseis.Benchmarks.Infrastructure;
using Orseis.Benchmarks.Overhead;
using Orseis.Benchmarks.Study;

namespace Orseis.Benchmarks.Tests;

/// <summary>Runs every benchmark class once, dry and in-process, so none of them rots between real runs.</summary>
[Collection(EnvironmentCollection.Name)]
public sealed class BenchmarkSmokeTests
{
    public static TheoryData<Type> BenchmarkClasses() =>
    [
        typeof(RatioStudy), typeof(OrmOverhead), typeof(OpenCloseCost), typeof(PrepareCost), typeof(DiagnosticsOverhead), typeof(CancellationOverhead),
        typeof(ExecuteManyOverhead), typeof(ScopeOverhead), typeof(RepeatedStatementOverhead), typeof(RetriesOverhead),
        typeof(ScopeFlowOverhead),
    ];

    [Fact]
    public void Every_benchmark_class_is_listed_here()
    {
        var listed = ((IEnumerable<object[]>)BenchmarkClasses()).Select(row => (Type)row[0]).ToHashSet();
        var all = typeof(Config).Assembly.GetTypes()
            .Where(t => !t.IsAbstract && t.GetMethods().Any(m => m.IsDefined(typeof(BenchmarkDotNet.Attributes.BenchmarkAttribute), true)));
        Assert.All(all, t => Assert.Contains(t, listed));
    }

    /// <summary>
    /// The classes that run against a server (the rest are SQLite- or provider-neutral cost probes), through
    /// MySqlConnector, and the ones with provider-specific set-up also through MySql.Data.
    /// </summary>
    public static TheoryData<Type, string> ServerBenchmarkClasses() => new()
    {
        { typeof(RatioStudy), "mysql" }, { typeof(OrmOverhead), "mysql" },
        { typeof(OpenCloseCost), "mysql" }, { typeof(OrmOverhead), "mysql-data" }, { typeof(OpenCloseCost), "mysql-data" },
        { typeof(ExecuteManyOverhead), "mysql" },
    };

    [Theory]
    [MemberData(nameof(BenchmarkClasses))]
    public void Benchmark_class_runs_dry_on_sqlite(Type benchmarkClass) => RunsDry(benchmarkClass, "sqlite");

    /// <summary>The same on MariaDB (scripts/test.sh starts one), including the no-reset variants only servers have.</summary>
    [MariaDbTheory]
    [MemberData(nameof(ServerBenchmarkClasses))]
    public void Benchmark_class_runs_dry_on_mariadb(Type benchmarkClass, string provider) => RunsDry(benchmarkClass, provider);

    /// <summary>
    /// SQL Server cannot run on these machines: with ORSEIS_SQLSERVER set (wherever a server exists) every suite runs dry
    /// against it; without it the test is skipped, saying so. The SqlClient path still builds and its provider is
    /// exercised without a server by <see cref="StudyTests.Sql_server_without_a_server_is_skipped_with_exit_code_0"/>.
    /// </summary>
    [SqlServerTheory]
    [MemberData(nameof(BenchmarkClasses))]
    public void Benchmark_class_runs_dry_on_sql_server(Type benchmarkClass) => RunsDry(benchmarkClass, "sqlserver");

    internal static Summary RunsDry(Type benchmarkClass, string provider)
    {
        Environment.SetEnvironmentVariable(BenchProviders.EnvironmentVariable, provider);
        Environment.SetEnvironmentVariable(StudySizes.MaxNVariable, "4");
        Environment.SetEnvironmentVariable(StudySizes.RoundsVariable, "2");
        IConfig config = new Config()
            .AddJob(Job.Dry.WithToolchain(InProcessEmitToolchain.Instance).AsMutator())
            .AddLogger(NullLogger.Instance)
            .WithOptions(ConfigOptions.DisableLogFile)
            .WithArtifactsPath(Path.Combine(Path.GetTempPath(), "orseis-bench-smoke", benchmarkClass.Name));

        Summary summary = BenchmarkRunner.Run(benchmarkClass, config);

        // BenchmarkDotNet refuses an assembly under the temp folder, assuming the test runner shadow-copied it there. This
        // test runs the assembly from its own build output (checked next), which is under temp only when the repository
        // itself is, as in a CI clone in /tmp; that one message is therefore not an error here, and every other one is.
        string location = benchmarkClass.Assembly.Location;
        Assert.Contains(Path.Combine("tests", "Orseis.Benchmarks.Tests", "bin"), location, StringComparison.Ordinal);
        Assert.Empty(summary.ValidationErrors.Where(e => !e.Message.Contains("is located in temp", StringComparison.Ordinal)));
        Assert.NotEmpty(summary.BenchmarksCases);
        Assert.All(summary.Reports, report => Assert.True(report.Success, $"{report.BenchmarkCase.DisplayInfo} failed"));
        Assert.Equal(summary.BenchmarksCases.Length, summary.Reports.Count(r => r.Success));
        // The dry mutator must override each class's own job, or this test would run the real study.
        Assert.All(summary.BenchmarksCases, c => Assert.Equal(1, c.Job.Run.IterationCount));
        return summary;
    }
}

/// <summary>A theory that needs ORSEIS_SQLSERVER: skipped, saying why, without it (no SQL Server can run here or in CI).</summary>
public sealed class SqlServerTheoryAttribute : TheoryAttribute
{
    public SqlServerTheoryAttribute()
    {
        if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable(ProviderFactories.SqlServerVariable)))
            Skip = $"{ProviderFactories.SqlServerVariable} is not set: no SQL Server can run on this machine or in CI; set it to a SqlClient connection string to run the suites on one.";
    }
}

/// <summary>A theory that needs ORSEIS_MYSQL: skipped (saying why) without it, except in CI, where it must run.</summary>
public sealed class MariaDbTheoryAttribute : TheoryAttribute
{
    public MariaDbTheoryAttribute()
    {
        if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable(ProviderFactories.MySqlVariable)) &&
            Environment.GetEnvironmentVariable("CI") != "true")
        {
            Skip = $"{ProviderFactories.MySqlVariable} is not set; ./scripts/test.sh starts a private mariadbd and sets it.";
        }
    }
}
