using System.Data.Common;
using System.Net;
using System.Net.Sockets;
using Orseis.Diagnostics;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// <see cref="Database.WarmUpAsync"/> on real servers through every server provider here: the warm-up's connections are
/// physical ones the provider keeps (a burst after it makes no new connects), Max Pool Size bounds it, a refused connect
/// and a silent server are failures it reports rather than throws, and a cancel stops it.
/// </summary>
public sealed class WarmUpServerTests
{
    private async Task A_warmed_pool_serves_the_next_burst_without_new_connects(string provider)
    {
        (DbProviderFactory factory, string connectionString, string sleep) = Server(provider, "Maximum Pool Size=37");
        await using var db = new Database(factory, connectionString, new OrseisOptions { Diagnostics = { Detectors = FindingKind.All } });
        WarmUpResult result = await db.WarmUpAsync(10);
        Assert.Equal((10, 10), (result.Requested, result.Opened));
        Assert.Empty(result.Failures);
        Assert.Equal(10, db.GetPoolReport().PeakInUse);
        if (provider == "MySqlData")
        {
            Assert.Null(result.NewConnections); // MySql.Data publishes no pool meter
        }
        else
        {
            Assert.Equal(10, result.NewConnections);
        }

        long? before = db.GetPoolReport().ProviderPhysicalConnects;
        await Task.WhenAll(Enumerable.Range(0, 10).Select(_ => Task.Run(() => db.ExecuteAsync(sleep))));
        Assert.Equal(before, db.GetPoolReport().ProviderPhysicalConnects);
        Assert.DoesNotContain(db.GetPoolReport().Findings, f => f.Kind == FindingKind.SlowOpen);
    }

    private async Task More_than_max_pool_size_is_refused_naming_both(string provider)
    {
        (DbProviderFactory factory, string connectionString, _) = Server(provider, "Maximum Pool Size=5");
        await using var db = new Database(factory, connectionString);
        var error = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => db.WarmUpAsync(6));
        Assert.Equal("connections", error.ParamName);
        Assert.Contains("Max Pool Size is 5", error.Message, StringComparison.Ordinal);
    }

    /// <summary>A port nobody listens on refuses every connect: the warm-up reports each failure and throws nothing.</summary>
    private async Task Refused_connects_are_reported_not_thrown(string provider)
    {
        int closedPort = ClosedPort();
        (DbProviderFactory factory, string connectionString, _) = Server(provider, "Connect Timeout=5");
        await using var db = new Database(factory, WithPort(provider, connectionString, closedPort));
        var clock = System.Diagnostics.Stopwatch.StartNew();
        WarmUpResult result = await db.WarmUpAsync(3);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(20), $"{clock.Elapsed.TotalSeconds:0.0} s");
        Assert.Equal(0, result.Opened);
        Assert.Equal(3, result.Failures.Count);
        Assert.All(result.Failures, f => Assert.IsAssignableFrom<DbException>(f));
        Assert.Contains("3 failed", result.ToString(), StringComparison.Ordinal);
    }

    /// <summary>
    /// A server that accepts the TCP connection and never says a word (a hung server, a black-holing proxy): the connects
    /// wait for the greeting; the caller's cancel stops the warm-up within a few seconds, whatever the connect timeout.
    /// </summary>
    private async Task A_cancel_stops_a_warm_up_stuck_on_a_silent_server(string provider)
    {
        await using var silent = new SilentServer();
        (DbProviderFactory factory, string connectionString, _) = Server(provider, "Connect Timeout=30");
        await using var db = new Database(factory, WithPort(provider, connectionString, silent.Port));
        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(500));
        var clock = System.Diagnostics.Stopwatch.StartNew();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.WarmUpAsync(4, cancel.Token));
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), $"the cancelled warm-up took {clock.Elapsed.TotalSeconds:0.0} s");
        Assert.Equal(0, db.GetPoolReport().InUse);
    }

    [MySqlTheory]
    [InlineData("MySqlConnector")]
    [InlineData("MySqlData")]
    public Task A_warmed_pool_serves_the_next_burst_without_new_connects_on_mariadb(string provider) => A_warmed_pool_serves_the_next_burst_without_new_connects(provider);

    [PostgresFact]
    public Task A_warmed_pool_serves_the_next_burst_without_new_connects_on_postgresql() => A_warmed_pool_serves_the_next_burst_without_new_connects("Npgsql");

    [MySqlTheory]
    [InlineData("MySqlConnector")]
    [InlineData("MySqlData")]
    public Task More_than_max_pool_size_is_refused_naming_both_on_mariadb(string provider) => More_than_max_pool_size_is_refused_naming_both(provider);

    [PostgresFact]
    public Task More_than_max_pool_size_is_refused_naming_both_on_postgresql() => More_than_max_pool_size_is_refused_naming_both("Npgsql");

    [MySqlTheory]
    [InlineData("MySqlConnector")]
    [InlineData("MySqlData")]
    public Task Refused_connects_are_reported_not_thrown_on_mariadb(string provider) => Refused_connects_are_reported_not_thrown(provider);

    [PostgresFact]
    public Task Refused_connects_are_reported_not_thrown_on_postgresql() => Refused_connects_are_reported_not_thrown("Npgsql");

    [MySqlTheory]
    [InlineData("MySqlConnector")]
    public Task A_cancel_stops_a_warm_up_stuck_on_a_silent_server_on_mariadb(string provider) => A_cancel_stops_a_warm_up_stuck_on_a_silent_server(provider);

    [PostgresFact]
    public Task A_cancel_stops_a_warm_up_stuck_on_a_silent_server_on_postgresql() => A_cancel_stops_a_warm_up_stuck_on_a_silent_server("Npgsql");

    private static (DbProviderFactory Factory, string ConnectionString, string Sleep) Server(string provider, string extra) => provider switch
    {
        // Npgsql calls its connect timeout "Timeout".
        "Npgsql" => (Npgsql.NpgsqlFactory.Instance, new PostgresDialect().ConnectionString + ";" + extra.Replace("Connect Timeout", "Timeout", StringComparison.Ordinal),
            "select pg_sleep(0.2)"),
        "MySqlData" => (new MySqlDialect(MySqlProvider.MySqlData).Factory, new MySqlDialect(MySqlProvider.MySqlData).ConnectionString + ";" + extra,
            "do sleep(0.2)"),
        _ => (MySqlConnector.MySqlConnectorFactory.Instance, new MySqlDialect().ConnectionString + ";" + extra, "do sleep(0.2)"),
    };

    private static string WithPort(string provider, string connectionString, int port)
    {
        var builder = new DbConnectionStringBuilder { ConnectionString = connectionString };
        builder["Port"] = port;
        if (provider != "Npgsql")
            builder["Pooling"] = true;
        return builder.ConnectionString;
    }

    private static int ClosedPort()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        return ((IPEndPoint)probe.LocalEndpoint).Port; // closed again when disposed: nothing listens there
    }
}
