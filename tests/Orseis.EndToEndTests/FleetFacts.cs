namespace Orseis.EndToEndTests;

/// <summary>Needs Debian's promtool: skipped, saying why, without it, except in CI where scripts/test.sh installs it.</summary>
public sealed class PromtoolFactAttribute : FactAttribute
{
    public const string NoPrometheus =
        "The fleet tests need Debian's prometheus package (promtool, prometheus): apt-get install prometheus; "
        + "./scripts/test.sh installs it when run as root.";

    public PromtoolFactAttribute()
    {
        if (!StudyTools.OnPath("promtool") && !StudyTools.InCi)
            Skip = NoPrometheus;
    }
}

/// <summary>Needs a MariaDB (ORSEIS_MYSQL) and Debian's prometheus: skipped, saying why, without them, except in CI.</summary>
public sealed class MariaDbWithPrometheusFactAttribute : FactAttribute
{
    public MariaDbWithPrometheusFactAttribute()
    {
        if (StudyTools.InCi)
            return;
        if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable("ORSEIS_MYSQL")))
            Skip = "The fleet test needs ORSEIS_MYSQL (a MariaDB connection string); ./scripts/test.sh starts a private mariadbd and sets it.";
        else if (!StudyTools.OnPath("prometheus"))
            Skip = PromtoolFactAttribute.NoPrometheus;
    }
}
