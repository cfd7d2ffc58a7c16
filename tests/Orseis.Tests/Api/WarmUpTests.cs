using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>
/// <see cref="Database.WarmUpAsync"/> on SQLite: the connections are held open at once (the pool's peak), then all go
/// back; bad counts are refused naming the argument; a cancelled warm-up throws and holds nothing. The server providers'
/// physical connects, a failing connect and Max Pool Size are checked on MariaDB and PostgreSQL in the integration tests.
/// </summary>
public sealed class WarmUpTests
{
    [Fact]
    public async Task A_warm_up_holds_its_connections_at_once_then_gives_them_all_back()
    {
        using var file = new SqliteFile();
        await using Database db = file.Open(ExecutionMode.OpenPerCall, o => o.Diagnostics.Detectors = Orseis.Diagnostics.FindingKind.All);
        WarmUpResult result = await db.WarmUpAsync(12);

        Assert.Equal((12, 12), (result.Requested, result.Opened));
        Assert.Empty(result.Failures);
        Assert.Null(result.NewConnections); // Microsoft.Data.Sqlite publishes no connect count
        Assert.True(result.Elapsed > TimeSpan.Zero);
        var report = db.GetPoolReport();
        Assert.Equal(12, report.PeakInUse);
        Assert.Equal(0, report.InUse);
        Assert.Empty(report.Findings); // a warm-up's connections are held by design: never held too long, never churn
        Assert.StartsWith("warm-up: 12 of 12 connection(s) open at once in ", result.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_reuse_connection_database_opens_its_one_connection()
    {
        using var file = new SqliteFile();
        await using Database db = file.Open(ExecutionMode.ReuseConnection);
        WarmUpResult result = await db.WarmUpAsync(5);
        Assert.Equal((1, 1), (result.Requested, result.Opened));
        Assert.Equal(1, db.GetPoolReport().Opens);
        Assert.Equal(1, await db.ScalarAsync<int>("select 1"));
        Assert.Equal(1, db.GetPoolReport().Opens); // the call used the warmed connection
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-3)]
    public async Task A_count_below_one_is_refused_naming_the_argument(int connections)
    {
        using var file = new SqliteFile();
        await using Database db = file.Open();
        var error = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => db.WarmUpAsync(connections));
        Assert.Equal("connections", error.ParamName);
    }

    [Fact]
    public async Task A_cancelled_warm_up_throws_and_leaves_nothing_held()
    {
        using var file = new SqliteFile();
        await using Database db = file.Open();
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.WarmUpAsync(4, cancelled.Token));
        Assert.Equal(0, db.GetPoolReport().InUse);
    }
}
