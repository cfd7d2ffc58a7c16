using System.Diagnostics;
using Orseis.Testing;

namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// A MariaDB of the fault tests' own, started with scripts/mariadb-start.sh on a free loopback port and stopped when the
/// tests end, so that stopping, restarting or cutting it off never disturbs another test's server.
/// </summary>
public sealed class PrivateMariaDb : IDisposable
{
    private readonly string _state;

    public PrivateMariaDb()
    {
        _state = Path.Combine(Path.GetTempPath(), $"orseis-fault-mariadb-{Environment.ProcessId}-{Guid.NewGuid():N}.env");
        ConnectionString = Script("mariadb-start.sh", TimeSpan.FromMinutes(3), _state).Trim();
        Port = int.Parse(new MySqlConnector.MySqlConnectionStringBuilder(ConnectionString).Port.ToString(System.Globalization.CultureInfo.InvariantCulture),
            System.Globalization.CultureInfo.InvariantCulture);
    }

    /// <summary>The connection string, in the keys both MySQL providers read.</summary>
    public string ConnectionString { get; }

    public int Port { get; }

    /// <summary>Stops the server, keeps it down for <paramref name="down"/>, and starts it again on the same port and data.</summary>
    public void Restart(TimeSpan down) =>
        Script("mariadb-restart.sh", TimeSpan.FromMinutes(1), _state, ((int)Math.Ceiling(down.TotalSeconds)).ToString(System.Globalization.CultureInfo.InvariantCulture));

    public void Dispose() => Script("mariadb-stop.sh", TimeSpan.FromMinutes(1), _state);

    /// <summary>Runs one of the repository's scripts, bounded in time, and returns its standard output.</summary>
    internal static string Script(string name, TimeSpan limit, params string[] args)
    {
        var start = new ProcessStartInfo(Path.Combine(RepositoryRoot.Find(), "scripts", name))
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
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
