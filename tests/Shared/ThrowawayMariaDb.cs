using System.Globalization;

namespace Orseis.Testing;

/// <summary>
/// A MariaDB of its own, started with scripts/mariadb-start.sh on a free loopback port and a temporary data directory,
/// restarted with scripts/mariadb-restart.sh (same port and data, as a restart or failover looks to clients) and stopped
/// with scripts/mariadb-stop.sh on dispose.
/// </summary>
internal sealed class ThrowawayMariaDb : IDisposable
{
    private readonly string _state;
    private readonly string _serverOptions = "";

    /// <param name="purpose">A word for the state file's name (fault, failover).</param>
    /// <param name="serverOptions">Extra mariadbd options, separated by spaces (kept across restarts).</param>
    public ThrowawayMariaDb(string purpose, string serverOptions = "")
    {
        _state = Path.Combine(Path.GetTempPath(), $"orseis-{purpose}-mariadb-{Environment.ProcessId}-{Guid.NewGuid():N}.env");
        _serverOptions = serverOptions;
        ConnectionString = Script("mariadb-start.sh", TimeSpan.FromMinutes(3), _state).Trim();
        Port = (int)new MySqlConnector.MySqlConnectionStringBuilder(ConnectionString).Port;
    }

    /// <summary>The connection string, in the keys both MySQL providers read.</summary>
    public string ConnectionString { get; }

    public int Port { get; }

    /// <summary>Stops the server, keeps it down for <paramref name="down"/> (whole seconds), and starts it again.</summary>
    public void Restart(TimeSpan down) =>
        Script("mariadb-restart.sh", TimeSpan.FromMinutes(1), _state, ((int)Math.Ceiling(down.TotalSeconds)).ToString(CultureInfo.InvariantCulture));

    public void Dispose() => Script("mariadb-stop.sh", TimeSpan.FromMinutes(1), _state);

    private string Script(string name, TimeSpan limit, params string[] args) =>
        RepositoryScripts.Run(name, limit, new Dictionary<string, string> { ["MARIADB_SERVER_OPTIONS"] = _serverOptions }, args);
}
