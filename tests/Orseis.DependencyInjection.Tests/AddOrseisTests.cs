using Orseis.Tests.Infrastructure;
using System.Data.Common;
using Microsoft.Data.Sqlite;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Orseis.DependencyInjection.Tests;

/// <summary>AddOrseis and AddKeyedOrseis through a real ServiceCollection, configuration and logging, over SQLite.</summary>
public sealed class AddOrseisTests : IDisposable
{
    private readonly SqliteFile _file = new();

    public void Dispose() => _file.Dispose();

    [Fact]
    public async Task The_database_is_a_singleton_configured_from_the_section_and_disposed_with_the_container()
    {
        IConfiguration configuration = TestConfiguration.From(
            ("Orseis:ConnectionString", _file.ConnectionString),
            ("Orseis:Mode", "reuseconnection"),
            ("Orseis:CommandTimeout", "00:00:07"),
            ("Orseis:ReuseWaitTimeout", "Infinite"),
            ("Orseis:ScopeIdleWindow", "00:00:00.005"),
            ("Orseis:PoolName", "app-db"),
            ("Orseis:NullKeepsDefault", "True"),
            ("Orseis:Diagnostics:ProviderPoolCounts", "true"),
            ("Orseis:Diagnostics:RepeatedStatementThreshold", "8"),
            ("Orseis:Diagnostics:RepeatedStatementGap", "00:00:00.050"));
        var services = new ServiceCollection();
        services.AddOrseis(SqliteFactory.Instance, configuration.GetSection("Orseis"));

        Database db;
        await using (ServiceProvider provider = services.BuildServiceProvider(validateScopes: true))
        {
            db = provider.GetRequiredService<Database>();
            Assert.Same(db, provider.GetRequiredService<Database>());
            using (IServiceScope scope = provider.CreateScope())
                Assert.Same(db, scope.ServiceProvider.GetRequiredService<Database>());

            Assert.Equal(ExecutionMode.ReuseConnection, db.Mode);
            Assert.Equal("app-db", db.PoolName);
            OrseisOptions options = provider.GetRequiredService<IOptionsMonitor<OrseisOptions>>().Get(Options.DefaultName);
            Assert.Equal(TimeSpan.FromSeconds(7), options.CommandTimeout);
            Assert.Equal(Timeout.InfiniteTimeSpan, options.ReuseWaitTimeout);
            Assert.Equal(TimeSpan.FromMilliseconds(5), options.ScopeIdleWindow);
            Assert.True(options.Diagnostics.ProviderPoolCounts);
            Assert.Equal(8, options.Diagnostics.RepeatedStatementThreshold);
            Assert.Equal(TimeSpan.FromMilliseconds(50), options.Diagnostics.RepeatedStatementGap);
            Assert.True(options.NullKeepsDefault);
            Assert.Equal(0, await db.ScalarAsync<int>("select null")); // the database was built with it

            await db.ExecuteAsync("create table t (id integer primary key)");
            Assert.Equal(2, await db.ExecuteAsync("insert into t (id) values (@id)", new[] { new { id = 1 }, new { id = 2 } }));
            Assert.Equal(2, await db.ScalarAsync<long>("select count(*) from t"));
        }

        // The container disposed it: the kept connection is closed and the database refuses new work.
        Assert.Throws<ObjectDisposedException>(() => db.OpenSession());
    }

    [Fact]
    public void The_callback_runs_after_the_configuration_and_named_options_reach_the_database()
    {
        IConfiguration configuration = TestConfiguration.From(("ConnectionString", _file.ConnectionString), ("Mode", "ReuseConnection"), ("PoolName", "from-config"));
        var services = new ServiceCollection();
        services.AddOrseis(SqliteFactory.Instance, configuration, o => o.Mode = ExecutionMode.OpenPerCall);
        services.Configure<OrseisOptions>(o => o.PoolName = "from-configure");

        using ServiceProvider provider = services.BuildServiceProvider();
        Database db = provider.GetRequiredService<Database>();
        Assert.Equal(ExecutionMode.OpenPerCall, db.Mode);
        Assert.Equal("from-configure", db.PoolName);
    }

    [Fact]
    public async Task Keyed_databases_each_get_their_own_options_and_mode()
    {
        IConfiguration configuration = TestConfiguration.From(
            ("Databases:Main:ConnectionString", _file.ConnectionString),
            ("Databases:Main:Mode", "ReuseConnection"),
            ("Databases:Reports:ConnectionString", _file.ConnectionString),
            ("Databases:Reports:Mode", "OpenPerCall"),
            ("Databases:Reports:PoolName", "reports"));
        var services = new ServiceCollection();
        services.AddOrseis(SqliteFactory.Instance, configuration.GetSection("Databases:Main"));
        services.AddKeyedOrseis("reports", SqliteFactory.Instance, configuration.GetSection("Databases:Reports"));
        services.AddKeyedOrseis("audit", SqliteFactory.Instance, _file.ConnectionString, o => o.PoolName = "audit");
        services.AddSingleton<ReportService>();

        await using ServiceProvider provider = services.BuildServiceProvider();
        Database main = provider.GetRequiredService<Database>();
        ReportService reports = provider.GetRequiredService<ReportService>();
        Database audit = provider.GetRequiredKeyedService<Database>("audit");

        Assert.Equal(ExecutionMode.ReuseConnection, main.Mode);
        Assert.Equal(ExecutionMode.OpenPerCall, reports.Database.Mode);
        Assert.Equal("reports", reports.Database.PoolName);
        Assert.Equal("audit", audit.PoolName);
        Assert.NotSame(main, reports.Database);
        Assert.Same(reports.Database, provider.GetRequiredKeyedService<Database>("reports"));

        // The same file through both: a row written by one is read by the other.
        await main.ExecuteAsync("create table t (id integer primary key)");
        await main.ExecuteAsync("insert into t (id) values (1)");
        Assert.Equal(1, await reports.Database.ScalarAsync<long>("select count(*) from t"));
        Assert.Equal(0, main.ReuseWaits);
    }

    private sealed class ReportService([FromKeyedServices("reports")] Database database)
    {
        public Database Database { get; } = database;
    }

    [Fact]
    public async Task A_data_source_from_the_container_is_used_and_left_to_the_container()
    {
        var services = new ServiceCollection();
        services.AddSingleton(_ => new TrackedDataSource(_file.ConnectionString));
        services.AddKeyedSingleton("reports", (_, _) => new TrackedDataSource(_file.ConnectionString));
        services.AddOrseis<TrackedDataSource>(TestConfiguration.From(("Mode", "ReuseConnection")));
        services.AddKeyedOrseis<TrackedDataSource>("reports");

        TrackedDataSource unkeyed;
        TrackedDataSource keyed;
        await using (ServiceProvider provider = services.BuildServiceProvider())
        {
            Database db = provider.GetRequiredService<Database>();
            Database reports = provider.GetRequiredKeyedService<Database>("reports");
            unkeyed = provider.GetRequiredService<TrackedDataSource>();
            keyed = provider.GetRequiredKeyedService<TrackedDataSource>("reports");
            Assert.Equal(ExecutionMode.ReuseConnection, db.Mode);
            Assert.Equal(1, await db.ScalarAsync<int>("select 1"));
            Assert.Equal(2, await reports.ScalarAsync<int>("select 2"));

            await db.DisposeAsync(); // a database over a data source it was given leaves the source open
            Assert.Equal(0, unkeyed.Disposals);
            Assert.Equal(3, await reports.ScalarAsync<int>("select 3"));
        }

        Assert.Equal(1, unkeyed.Disposals);
        Assert.Equal(1, keyed.Disposals);
    }

    [Fact]
    public void A_keyed_database_without_a_data_source_of_its_key_uses_the_unkeyed_one_and_a_missing_one_is_named()
    {
        var services = new ServiceCollection();
        services.AddSingleton<DbDataSource>(_ => SqliteFactory.Instance.CreateDataSource(_file.ConnectionString));
        services.AddKeyedOrseis<DbDataSource>("reports");
        services.AddKeyedOrseis<TrackedDataSource>("missing");
        using ServiceProvider provider = services.BuildServiceProvider();
        Assert.Equal(1, provider.GetRequiredKeyedService<Database>("reports").Scalar<int>("select 1"));

        var error = Assert.Throws<InvalidOperationException>(() => provider.GetRequiredKeyedService<Database>("missing"));
        Assert.Contains("The Orseis database 'missing' uses the TrackedDataSource from the container, but none is registered", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Findings_go_to_the_containers_logger_factory_unless_a_logger_was_set()
    {
        IConfiguration configuration = TestConfiguration.From(
            ("ConnectionString", _file.ConnectionString),
            ("Diagnostics:Detectors", "Churn"),
            ("Diagnostics:ChurnThreshold", "3"),
            ("Diagnostics:ChurnGap", "00:05:00"));
        var capture = new CapturingLoggerProvider();
        var services = new ServiceCollection();
        services.AddLogging(logging => logging.AddProvider(capture));
        services.AddOrseis(SqliteFactory.Instance, configuration);

        using (ServiceProvider provider = services.BuildServiceProvider())
        {
            Database db = provider.GetRequiredService<Database>();
            for (int i = 0; i < 3; i++)
                db.Execute("select 1"); // three opens back to back on one flow: churn
        }

        (string category, LogLevel level, string message) = Assert.Single(capture.Entries);
        Assert.Equal("Orseis", category);
        Assert.Equal(LogLevel.Warning, level);
        Assert.StartsWith("Orseis Churn: ", message, StringComparison.Ordinal);
        Assert.Contains(nameof(Findings_go_to_the_containers_logger_factory_unless_a_logger_was_set), message, StringComparison.Ordinal);

        // A logger set in the callback wins over the container's.
        var own = new CapturingLoggerProvider();
        var second = new CapturingLoggerProvider();
        var services2 = new ServiceCollection();
        services2.AddLogging(logging => logging.AddProvider(second));
        services2.AddOrseis(SqliteFactory.Instance, configuration, o => o.Diagnostics.Logger = own.CreateLogger("mine"));
        using (ServiceProvider provider = services2.BuildServiceProvider())
        {
            Database db = provider.GetRequiredService<Database>();
            for (int i = 0; i < 3; i++)
                db.Execute("select 1");
        }

        Assert.Single(own.Entries);
        Assert.Empty(second.Entries);
    }

    [Fact]
    public void Registering_a_second_unkeyed_database_or_a_key_twice_is_refused()
    {
        var services = new ServiceCollection();
        services.AddOrseis(SqliteFactory.Instance, _file.ConnectionString);
        services.AddKeyedOrseis("reports", SqliteFactory.Instance, _file.ConnectionString);
        var unkeyed = Assert.Throws<InvalidOperationException>(() => services.AddOrseis(SqliteFactory.Instance, _file.ConnectionString));
        Assert.Contains("AddKeyedOrseis", unkeyed.Message, StringComparison.Ordinal);
        var keyed = Assert.Throws<InvalidOperationException>(() => services.AddKeyedOrseis("reports", SqliteFactory.Instance, _file.ConnectionString));
        Assert.Contains("'reports'", keyed.Message, StringComparison.Ordinal);
    }
}
