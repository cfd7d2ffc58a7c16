using Orseis.Diagnostics;

namespace Orseis.Samples.SlowApp;

/// <summary>The app's settings, read from the environment (see Program.cs), each checked with a message naming it.</summary>
/// <param name="ConnectionString">ORSEIS_MYSQL (ORSEIS_POSTGRES for npgsql).</param>
/// <param name="Provider">SLOWAPP_PROVIDER: mysqlconnector, mysql-data or npgsql.</param>
/// <param name="Sync">SLOWAPP_CALLS is sync.</param>
/// <param name="MinThreads">SLOWAPP_MIN_THREADS.</param>
/// <param name="MaxPool">SLOWAPP_MAX_POOL.</param>
/// <param name="Unit">SLOWAPP_UNIT: how /work's calls get their connection (percall, scope or session).</param>
/// <param name="Detectors">SLOWAPP_DETECTORS: all (default), none, or FindingKind names, comma-separated.</param>
internal sealed record SlowAppSettings(
    string ConnectionString, string Provider, bool Sync, int? MinThreads, int MaxPool, string Unit = "percall",
    FindingKind Detectors = FindingKind.All)
{
    public static SlowAppSettings FromEnvironment()
    {
        string provider = Environment.GetEnvironmentVariable("SLOWAPP_PROVIDER") ?? "mysqlconnector";
        if (provider is not ("mysqlconnector" or "mysql-data" or "npgsql"))
            throw new ArgumentException($"SLOWAPP_PROVIDER must be mysqlconnector, mysql-data or npgsql, not '{provider}'.");
        string server = provider == "npgsql" ? "ORSEIS_POSTGRES" : "ORSEIS_MYSQL";
        string cs = Environment.GetEnvironmentVariable(server) is { Length: > 0 } value
            ? value
            : throw new ArgumentException(provider == "npgsql"
                ? "ORSEIS_POSTGRES is not set: give it a PostgreSQL connection string (scripts/pg-start.sh prints one)."
                : "ORSEIS_MYSQL is not set: give it a MariaDB connection string (scripts/mariadb-start.sh prints one).");
        string calls = Environment.GetEnvironmentVariable("SLOWAPP_CALLS") ?? "async";
        if (calls is not ("async" or "sync"))
            throw new ArgumentException($"SLOWAPP_CALLS must be async or sync, not '{calls}'.");
        string unit = Environment.GetEnvironmentVariable("SLOWAPP_UNIT") is { Length: > 0 } u ? u : "percall";
        if (unit is not ("percall" or "scope" or "session"))
            throw new ArgumentException($"SLOWAPP_UNIT must be percall, scope or session, not '{unit}'.");
        string detectors = Environment.GetEnvironmentVariable("SLOWAPP_DETECTORS") is { Length: > 0 } d ? d : "all";
        if (!Enum.TryParse(detectors, ignoreCase: true, out FindingKind kinds) || char.IsAsciiDigit(detectors[0]))
            throw new ArgumentException($"SLOWAPP_DETECTORS must be all, none or FindingKind names (Churn,Saturation), not '{detectors}'.");
        int maxPool = Number("SLOWAPP_MAX_POOL", 100) ?? 100;
        return new SlowAppSettings(cs, provider, calls == "sync", Number("SLOWAPP_MIN_THREADS", null), maxPool, unit, kinds);
    }

    private static int? Number(string name, int? fallback)
    {
        string? text = Environment.GetEnvironmentVariable(name);
        if (string.IsNullOrEmpty(text))
            return fallback;
        return int.TryParse(text, System.Globalization.CultureInfo.InvariantCulture, out int value) && value > 0
            ? value
            : throw new ArgumentException($"{name} must be a positive whole number, not '{text}'.");
    }
}
