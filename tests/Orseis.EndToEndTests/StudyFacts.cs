namespace Orseis.EndToEndTests;

/// <summary>Needs a MariaDB (ORSEIS_MYSQL) and Debian's hey: skipped, saying why, without them, except in CI where both must be there.</summary>
public sealed class MariaDbWithHeyFactAttribute : FactAttribute
{
    public MariaDbWithHeyFactAttribute()
    {
        if (StudyTools.InCi)
            return;
        if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable("ORSEIS_MYSQL")))
            Skip = "The cold-start study needs ORSEIS_MYSQL (a MariaDB connection string); ./scripts/test.sh starts a private mariadbd and sets it.";
        else if (!StudyTools.OnPath("hey"))
            Skip = StudyTools.NoHey;
    }
}

/// <summary>
/// Needs Debian's mariadb-server (the command starts a MariaDB of its own, since it restarts it) and hey: skipped, saying
/// why, without them, except in CI where both must be there.
/// </summary>
public sealed class MariaDbServerWithHeyFactAttribute : FactAttribute
{
    public MariaDbServerWithHeyFactAttribute()
    {
        if (StudyTools.InCi)
            return;
        if (!StudyTools.OnPath("mariadbd"))
            Skip = "The failover and capacity studies start a MariaDB of their own: apt-get install mariadb-server (./scripts/test.sh installs it when run as root).";
        else if (!StudyTools.OnPath("hey"))
            Skip = StudyTools.NoHey;
    }
}

/// <summary>What the studies' tests need from the machine.</summary>
internal static class StudyTools
{
    public const string NoHey = "The studies need hey (apt-get install hey); ./scripts/test.sh installs it when run as root.";

    public static bool InCi => Environment.GetEnvironmentVariable("CI") == "true";

    /// <summary>Whether <paramref name="tool"/> is on PATH or in /usr/sbin (where Debian puts mariadbd).</summary>
    public static bool OnPath(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Append("/usr/sbin").Any(dir => File.Exists(Path.Combine(dir, tool)));
}

/// <summary>Needs a MariaDB (ORSEIS_MYSQL): skipped, saying why, without it, except in CI where test.sh starts one.</summary>
public sealed class MySqlToolFactAttribute : FactAttribute
{
    public MySqlToolFactAttribute()
    {
        if (!StudyTools.InCi && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("ORSEIS_MYSQL")))
            Skip = "Needs ORSEIS_MYSQL (a MariaDB connection string); ./scripts/test.sh starts a private MariaDB and sets it.";
    }
}

/// <summary>Needs a PostgreSQL (ORSEIS_POSTGRES): skipped, saying why, without it, except in CI where test.sh starts one.</summary>
public sealed class PostgresToolFactAttribute : FactAttribute
{
    public PostgresToolFactAttribute()
    {
        if (!StudyTools.InCi && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("ORSEIS_POSTGRES")))
            Skip = "Needs ORSEIS_POSTGRES (a PostgreSQL connection string); ./scripts/test.sh starts a private PostgreSQL and sets it.";
    }
}
