using Npgsql;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Diagnostics;

/// <summary>
/// A real pool timeout, read from each provider's own exception (its type and error code), is told as a wait for a free
/// connection, never as a connect that did not complete: the server answers every connect here.
/// </summary>
public sealed class OpenTimeoutKindTests
{
    public static TheoryData<MySqlProvider> Providers => [MySqlProvider.MySqlConnector, MySqlProvider.MySqlData];

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public void A_full_MariaDB_pool_is_a_wait_for_a_free_connection(MySqlProvider provider)
    {
        var dialect = new MySqlDialect(provider);
        using var db = new Database(dialect.Factory, dialect.ConnectionString + ";Maximum Pool Size=1;Connect Timeout=1");
        using Session holder = db.OpenSession();

        AssertWaitedForAFreeConnection(Assert.Throws<PoolExhaustedException>(() => db.Scalar<int>("select 1")));
    }

    [PostgresDiagnosticsFact]
    public void A_full_PostgreSQL_pool_is_a_wait_for_a_free_connection()
    {
        string cs = new NpgsqlConnectionStringBuilder(PostgresDiagnosticsFactAttribute.ConnectionString + ";Maximum Pool Size=1;Timeout=1")
        {
            ApplicationName = "orseis-kind-" + Guid.NewGuid().ToString("N")[..8],
        }.ConnectionString;
        using var db = new Database(NpgsqlFactory.Instance, cs);
        using Session holder = db.OpenSession();

        AssertWaitedForAFreeConnection(Assert.Throws<PoolExhaustedException>(() => db.Scalar<int>("select 1")));
    }

    private static void AssertWaitedForAFreeConnection(PoolExhaustedException error)
    {
        Assert.Contains("the provider timed out waiting for a free connection", error.Message, StringComparison.Ordinal);
        Assert.Contains("Every connection was held by callers", error.Message, StringComparison.Ordinal);
        Assert.Equal(0, error.Connecting);
    }
}
