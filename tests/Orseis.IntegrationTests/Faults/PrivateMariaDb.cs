using Orseis.Testing;

namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// A MariaDB of the fault tests' own (<see cref="ThrowawayMariaDb"/>), stopped when the tests end, so that stopping,
/// restarting or cutting it off never disturbs another test's server.
/// </summary>
public sealed class PrivateMariaDb : IDisposable
{
    private readonly ThrowawayMariaDb _server = new("fault");

    /// <summary>The connection string, in the keys both MySQL providers read.</summary>
    public string ConnectionString => _server.ConnectionString;

    public int Port => _server.Port;

    /// <summary>Stops the server, keeps it down for <paramref name="down"/>, and starts it again on the same port and data.</summary>
    public void Restart(TimeSpan down) => _server.Restart(down);

    /// <summary>
    /// Makes every new connection of the test user sleep <paramref name="seconds"/> on the server (init_connect, set as
    /// root, to which it never applies), as a TLS handshake or a distant server would; null undoes it.
    /// </summary>
    public async Task SlowConnectsAsync(double? seconds)
    {
        var admin = new MySqlConnector.MySqlConnectionStringBuilder(ConnectionString) { UserID = "root", Password = "", Pooling = false };
        await using var connection = new MySqlConnector.MySqlConnection(admin.ConnectionString);
        await connection.OpenAsync();
        await using MySqlConnector.MySqlCommand command = connection.CreateCommand();
        command.CommandText = seconds is { } s
            ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $"SET GLOBAL init_connect='DO SLEEP({s:0.0##})'")
            : "SET GLOBAL init_connect=''";
        await command.ExecuteNonQueryAsync();
    }

    public void Dispose() => _server.Dispose();
}

/// <summary>The fault tests share one private server and run alone: they stop it, cut it off and load the machine.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class FaultCollection : ICollectionFixture<PrivateMariaDb>
{
    public const string Name = "Faults on a private MariaDB";
}

/// <summary>
/// A fault test: it starts a MariaDB of its own (scripts/mariadb-start.sh), and with <c>needsFirewall</c> drops
/// packets with nftables, which needs root. Skipped, saying why, on a machine without them; never skipped in CI.
/// </summary>
public sealed class FaultFactAttribute : FactAttribute
{
    public FaultFactAttribute(bool needsFirewall = false)
    {
        if (Infrastructure.Servers.InCi)
            return;
        if (!Exists("mariadbd") || !Exists("mariadb-install-db"))
            Skip = "Fault tests start a MariaDB of their own and need Debian's mariadb-server (./scripts/test.sh installs it as root).";
        else if (needsFirewall && (Environment.UserName != "root" || !Exists("nft")))
            Skip = "This fault test drops packets with nftables, which needs root and Debian's nftables package (./scripts/test.sh installs it as root).";
    }

    private static bool Exists(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Append("/usr/sbin").Any(dir => File.Exists(Path.Combine(dir, tool)));
}
