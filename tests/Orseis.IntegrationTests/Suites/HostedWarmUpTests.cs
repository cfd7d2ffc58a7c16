using System.Data.Common;
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Orseis.Diagnostics;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// <c>AddOrseisWarmUp</c> in a real generic host on the real servers: the pool is warm before the host has started; a
/// server that refuses connects stops the host only with <c>FailStartup</c>; a server that never answers is cut off by
/// the warm-up's deadline.
/// </summary>
public sealed class HostedWarmUpTests
{
    [MySqlFact]
    public Task The_host_starts_with_a_warm_pool_on_mariadb() => WarmHost(MySqlConnector.MySqlConnectorFactory.Instance, new MySqlDialect().ConnectionString);

    [PostgresFact]
    public Task The_host_starts_with_a_warm_pool_on_postgresql() => WarmHost(Npgsql.NpgsqlFactory.Instance, new PostgresDialect().ConnectionString);

    [MySqlFact]
    public async Task Refused_connects_stop_the_host_only_when_asked_to_and_a_silent_server_is_cut_off_by_the_deadline()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        int closedPort = ((IPEndPoint)probe.LocalEndpoint).Port;
        probe.Stop();
        var builder = new DbConnectionStringBuilder { ConnectionString = new MySqlDialect().ConnectionString };
        builder["Port"] = closedPort;
        builder["Connect Timeout"] = 3;

        using (IHost lenient = Host(builder.ConnectionString, o => o.Connections = 3))
        {
            await lenient.StartAsync();
            await lenient.StopAsync();
        }

        using IHost strict = Host(builder.ConnectionString, o => { o.Connections = 3; o.FailStartup = true; });
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => strict.StartAsync());
        Assert.Contains("3 of 3 connect(s) failed", error.Message, StringComparison.Ordinal);
        Assert.Contains("MySqlConnector.MySqlException", error.Message, StringComparison.Ordinal);

        // A server that accepts and never answers: the deadline ends the warm-up, long before the connect timeout.
        await using var silent = new SilentServer();
        builder["Port"] = silent.Port;
        builder["Connect Timeout"] = 30;
        using IHost hung = Host(builder.ConnectionString, o => { o.Connections = 4; o.Deadline = TimeSpan.FromSeconds(1); o.FailStartup = true; });
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var missed = await Assert.ThrowsAsync<InvalidOperationException>(() => hung.StartAsync());
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(6), $"the warm-up ran {clock.Elapsed.TotalSeconds:0.0} s past its 1 s deadline");
        Assert.Contains("deadline of 1 s", missed.Message, StringComparison.Ordinal);
        Assert.Equal(0, hung.Services.GetRequiredService<Database>().GetPoolReport().InUse);
    }

    private static async Task WarmHost(DbProviderFactory factory, string connectionString)
    {
        // A pool of its own (an odd size), so the count of new connections is this host's.
        var builder = new DbConnectionStringBuilder { ConnectionString = connectionString };
        builder["Maximum Pool Size"] = 41;
        using IHost host = Host(builder.ConnectionString, o => o.Connections = 12, factory);
        await host.StartAsync();
        Database db = host.Services.GetRequiredService<Database>();
        PoolReport report = db.GetPoolReport();
        Assert.Equal(12, report.PeakInUse);
        Assert.Equal(12, report.ProviderPhysicalConnects);
        await Task.WhenAll(Enumerable.Range(0, 12).Select(_ => Task.Run(() => db.ScalarAsync<int>("select 1"))));
        Assert.Equal(12, db.GetPoolReport().ProviderPhysicalConnects); // the first requests found the warm connections
        await host.StopAsync();
    }

    private static IHost Host(string connectionString, Action<Orseis.DependencyInjection.OrseisWarmUpOptions> warmUp, DbProviderFactory? factory = null)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Services.AddOrseis(factory ?? MySqlConnector.MySqlConnectorFactory.Instance, connectionString,
            o => o.Diagnostics.Detectors = FindingKind.All);
        builder.Services.AddOrseisWarmUp(warmUp);
        return builder.Build();
    }
}
