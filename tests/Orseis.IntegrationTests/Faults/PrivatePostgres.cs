using System.Globalization;
using Orseis.Testing;

namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// A PostgreSQL of the fault tests' own, started with scripts/pg-start.sh on a free loopback port and a temporary data
/// directory, restarted with scripts/pg-restart.sh (same port and data) and stopped with scripts/pg-stop.sh on dispose:
/// stopping it never disturbs another test's server, nor any system service.
/// </summary>
public sealed class PrivatePostgres : IDisposable
{
    private readonly string _state =
        Path.Combine(Path.GetTempPath(), $"orseis-fault-pg-{Environment.ProcessId}-{Guid.NewGuid():N}.env");

    public PrivatePostgres() => ConnectionString = Script("pg-start.sh", TimeSpan.FromMinutes(3), _state).Trim();

    /// <summary>An Npgsql connection string.</summary>
    public string ConnectionString { get; }

    /// <summary>Stops the server (fast shutdown), keeps it down for <paramref name="down"/> (whole seconds), starts it again.</summary>
    public void Restart(TimeSpan down) =>
        Script("pg-restart.sh", TimeSpan.FromMinutes(1), _state, ((int)Math.Ceiling(down.TotalSeconds)).ToString(CultureInfo.InvariantCulture));

    public void Dispose() => Script("pg-stop.sh", TimeSpan.FromMinutes(1), _state);

    private static string Script(string name, TimeSpan limit, params string[] args) =>
        RepositoryScripts.Run(name, limit, environment: null, args);
}

/// <summary>
/// A fault test on a server of its own under a load from Debian's <c>hey</c>: skipped, saying why, on a machine without
/// the server's binaries or hey (./scripts/test.sh installs them as root); never skipped in CI.
/// </summary>
public sealed class ServerFaultFactAttribute : FactAttribute
{
    public ServerFaultFactAttribute(string server, bool needsHey = false)
    {
        if (Infrastructure.Servers.InCi)
            return;
        if (server == "postgres" && !PostgresInstalled())
            Skip = "This fault test starts a PostgreSQL of its own and needs Debian's postgresql package (./scripts/test.sh installs it as root).";
        else if (server == "mariadb" && !OnPath("mariadbd"))
            Skip = "This fault test starts a MariaDB of its own and needs Debian's mariadb-server (./scripts/test.sh installs it as root).";
        else if (needsHey && !OnPath("hey"))
            Skip = "This fault test loads a web app with Debian's hey (./scripts/test.sh installs it as root).";
    }

    private static bool PostgresInstalled() =>
        Directory.Exists("/usr/lib/postgresql") &&
        Directory.EnumerateDirectories("/usr/lib/postgresql").Any(d => File.Exists(Path.Combine(d, "bin", "initdb")));

    private static bool OnPath(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Append("/usr/sbin").Any(dir => File.Exists(Path.Combine(dir, tool)));
}
