using Microsoft.Data.Sqlite;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.DependencyInjection.Tests;

/// <summary>
/// The hosted warm-up and the health check through a real generic host and the real health-check service, over SQLite
/// (the warm-up itself is tested on every server provider in the integration tests).
/// </summary>
public sealed class WarmUpAndHealthTests
{
    [Fact]
    public async Task The_host_warms_the_pool_before_it_has_started_and_logs_what_it_did()
    {
        using var file = new SqliteFile();
        var logs = new CapturingLoggerProvider();
        using IHost host = Host(file.ConnectionString, logs, services => services.AddOrseisWarmUp(o => o.Connections = 6));
        await host.StartAsync();
        Database db = host.Services.GetRequiredService<Database>();
        Assert.Equal(6, db.GetPoolReport().PeakInUse);
        Assert.Equal(0, db.GetPoolReport().InUse);
        Assert.Contains(logs.Entries, e => e.Category == "Orseis.WarmUp" && e.Level == LogLevel.Information &&
                                           e.Message.Contains("warm-up: 6 of 6 connection(s) open at once", StringComparison.Ordinal));
        await host.StopAsync();
    }

    [Fact]
    public async Task A_failed_warm_up_stops_the_host_only_when_asked_to()
    {
        string unreachable = new SqliteConnectionStringBuilder { DataSource = "/nonexistent-orseis-dir/x.db", Mode = SqliteOpenMode.ReadWrite }.ToString();
        var logs = new CapturingLoggerProvider();
        using (IHost host = Host(unreachable, logs, services => services.AddOrseisWarmUp(o => o.Connections = 2)))
        {
            await host.StartAsync();
            Assert.Contains(logs.Entries, e => e.Level == LogLevel.Warning &&
                                               e.Message.Contains("2 of 2 connect(s) failed", StringComparison.Ordinal) &&
                                               e.Message.Contains("starts all the same", StringComparison.Ordinal));
            await host.StopAsync();
        }

        using IHost strict = Host(unreachable, logs, services => services.AddOrseisWarmUp(o => { o.Connections = 2; o.FailStartup = true; }));
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => strict.StartAsync());
        Assert.Contains("FailStartup", error.Message, StringComparison.Ordinal);
        Assert.Contains("SqliteException", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Bad_warm_up_settings_are_refused_naming_the_setting()
    {
        var services = new ServiceCollection();
        Assert.Contains("Connections", Assert.Throws<ArgumentOutOfRangeException>(() => services.AddOrseisWarmUp(o => o.Connections = 0)).Message,
            StringComparison.Ordinal);
        Assert.Contains("Deadline", Assert.Throws<ArgumentOutOfRangeException>(() => services.AddOrseisWarmUp(o => o.Deadline = TimeSpan.Zero)).Message,
            StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_health_check_is_healthy_degraded_while_new_findings_come_and_unhealthy_when_the_database_fails()
    {
        using var file = new SqliteFile();
        using IHost host = Host(file.ConnectionString, new CapturingLoggerProvider(), services => services.AddHealthChecks()
            .Add(new HealthCheckRegistration("orseis", provider => provider.CreateOrseisHealthCheck(), HealthStatus.Unhealthy, ["db"])),
            o => { o.Diagnostics.Detectors = FindingKind.HeldTooLong; o.Diagnostics.HeldTooLongThreshold = TimeSpan.FromMilliseconds(50); });
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();

        HealthReport first = await health.CheckHealthAsync();
        Assert.Equal(HealthStatus.Healthy, first.Status);
        Assert.StartsWith("Pool '", first.Entries["orseis"].Description, StringComparison.Ordinal);

        Database db = host.Services.GetRequiredService<Database>();
        using (Session held = db.OpenSession())
            await Task.Delay(200); // held past the 50 ms threshold: reported at release
        HealthReport degraded = await health.CheckHealthAsync();
        Assert.Equal(HealthStatus.Degraded, degraded.Status);
        Assert.Contains("1 finding(s) since the last check", degraded.Entries["orseis"].Description, StringComparison.Ordinal);
        Assert.Equal(1L, degraded.Entries["orseis"].Data["findings.HeldTooLong"]);
        Assert.Equal(HealthStatus.Healthy, (await health.CheckHealthAsync()).Status); // nothing new since

        string unreachable = new SqliteConnectionStringBuilder { DataSource = "/nonexistent-orseis-dir/x.db", Mode = SqliteOpenMode.ReadWrite }.ToString();
        using IHost broken = Host(unreachable, new CapturingLoggerProvider(), services => services.AddHealthChecks()
            .Add(new HealthCheckRegistration("orseis", provider => provider.CreateOrseisHealthCheck(), HealthStatus.Unhealthy, null)));
        HealthReport failing = await broken.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
        Assert.Equal(HealthStatus.Unhealthy, failing.Status);
        Assert.Contains("select 1 failed (SqliteException)", failing.Entries["orseis"].Description, StringComparison.Ordinal);
    }

    private static IHost Host(string connectionString, CapturingLoggerProvider logs, Action<IServiceCollection> more, Action<OrseisOptions>? configure = null)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Logging.AddProvider(logs);
        builder.Services.AddOrseis(SqliteFactory.Instance, connectionString, configure);
        more(builder.Services);
        return builder.Build();
    }
}
