using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Bad settings fail when the database is created, with a message naming the setting.</summary>
public sealed class OptionsTests
{
    [Theory]
    [InlineData("CommandTimeout")]
    [InlineData("ReuseWaitTimeout")]
    [InlineData("Mode")]
    [InlineData("PoolName")]
    public void Invalid_options_are_refused_at_construction_naming_the_setting(string setting)
    {
        var options = new OrseisOptions();
        switch (setting)
        {
            case "CommandTimeout": options.CommandTimeout = TimeSpan.FromSeconds(-5); break;
            case "ReuseWaitTimeout": options.ReuseWaitTimeout = TimeSpan.Zero; break;
            case "Mode": options.Mode = (ExecutionMode)42; break;
            case "PoolName": options.PoolName = ""; break;
        }

        var error = Assert.Throws<ArgumentException>(() => new Database(SqliteFactory.Instance, "Data Source=:memory:", options));
        Assert.Contains("OrseisOptions." + setting, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Missing_provider_or_connection_string_is_refused()
    {
        Assert.Throws<ArgumentNullException>(() => new Database(null!, "Data Source=x"));
        Assert.ThrowsAny<ArgumentException>(() => new Database(SqliteFactory.Instance, " "));
    }

    [Fact]
    public void The_default_pool_name_has_server_and_database_but_never_credentials()
    {
        using var db = new Database(SqliteFactory.Instance, "Data Source=/tmp/app.db;Password=secret");
        Assert.Equal("sqlite:/tmp/app.db", db.PoolName);
        using var named = new Database(SqliteFactory.Instance, "Data Source=:memory:", new OrseisOptions { PoolName = "orders" });
        Assert.Equal("orders", named.PoolName);
    }

    [Fact]
    public void The_database_command_timeout_applies_when_a_call_gives_none()
    {
        using var file = new SqliteFile();
        using Database db = file.Open(configure: o => o.CommandTimeout = TimeSpan.FromSeconds(1));
        Assert.Equal(1, db.Scalar<int>("select 1"));
        Assert.Equal(1, db.Scalar<int>("select 1", timeout: Timeout.InfiniteTimeSpan));
    }

    [Fact]
    public void A_disposed_database_refuses_calls()
    {
        using var file = new SqliteFile();
        Database db = file.Open(ExecutionMode.ReuseConnection);
        Assert.Equal(1, db.Scalar<int>("select 1"));
        db.Dispose();
        Assert.Throws<ObjectDisposedException>(() => db.Scalar<int>("select 1"));
        Assert.Throws<ObjectDisposedException>(() => db.OpenSession());
    }
}
