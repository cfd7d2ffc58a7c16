namespace Orseis.Samples.SlowApp;

/// <summary>The app's settings, read from the environment (see Program.cs), each checked with a message naming it.</summary>
internal sealed record SlowAppSettings(string ConnectionString, string Provider, bool Sync, int? MinThreads, int MaxPool)
{
    public static SlowAppSettings FromEnvironment()
    {
        string cs = Environment.GetEnvironmentVariable("ORSEIS_MYSQL") is { Length: > 0 } value
            ? value
            : throw new ArgumentException("ORSEIS_MYSQL is not set: give it a MariaDB connection string (scripts/mariadb-start.sh prints one).");
        string provider = Environment.GetEnvironmentVariable("SLOWAPP_PROVIDER") ?? "mysqlconnector";
        if (provider is not ("mysqlconnector" or "mysql-data"))
            throw new ArgumentException($"SLOWAPP_PROVIDER must be mysqlconnector or mysql-data, not '{provider}'.");
        string calls = Environment.GetEnvironmentVariable("SLOWAPP_CALLS") ?? "async";
        if (calls is not ("async" or "sync"))
            throw new ArgumentException($"SLOWAPP_CALLS must be async or sync, not '{calls}'.");
        return new SlowAppSettings(cs, provider, calls == "sync", Number("SLOWAPP_MIN_THREADS", null), Number("SLOWAPP_MAX_POOL", 100) ?? 100);
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
