using System.Diagnostics;
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

    /// <summary>Runs one of the repository's scripts, bounded in time, and returns its standard output.</summary>
    private string Script(string name, TimeSpan limit, params string[] args)
    {
        var start = new ProcessStartInfo(Path.Combine(RepositoryRoot.Find(), "scripts", name))
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.Environment["MARIADB_SERVER_OPTIONS"] = _serverOptions;
        foreach (string arg in args)
            start.ArgumentList.Add(arg);
        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> errors = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(limit))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"scripts/{name} did not finish within {limit.TotalSeconds} s: {errors.Result}");
        }

        if (process.ExitCode != 0)
            throw new InvalidOperationException($"scripts/{name} failed with exit code {process.ExitCode}: {errors.Result}");
        return output.Result;
    }
}
