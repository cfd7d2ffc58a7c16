using System.Data.Common;

namespace Orseis.Execution;

/// <summary>What Orseis knows about a provider from its types alone (no provider package is referenced).</summary>
internal static class ProviderInfo
{
    /// <summary>The OpenTelemetry <c>db.system.name</c> for the provider that defines <paramref name="providerType"/>.</summary>
    public static string SystemName(Type providerType)
    {
        string ns = providerType.Namespace ?? "";
        if (ns.StartsWith("Microsoft.Data.Sqlite", StringComparison.Ordinal) || ns.StartsWith("System.Data.SQLite", StringComparison.Ordinal))
            return "sqlite";
        if (ns.StartsWith("Npgsql", StringComparison.Ordinal))
            return "postgresql";
        if (ns.StartsWith("Microsoft.Data.SqlClient", StringComparison.Ordinal) || ns.StartsWith("System.Data.SqlClient", StringComparison.Ordinal))
            return "microsoft.sql_server";
        if (ns.StartsWith("MySqlConnector", StringComparison.Ordinal) || ns.StartsWith("MySql.Data", StringComparison.Ordinal))
            return "mysql";
        return "other_sql";
    }

    /// <summary>
    /// True for providers whose typed getters throw on NULL instead of returning a default (checked by the tests for
    /// these two); unknown providers are never trusted with that.
    /// </summary>
    public static bool TypedGettersRefuseNull(Type readerType) => SystemName(readerType) is "sqlite" or "postgresql";

    /// <summary>
    /// True for providers known to take <see cref="DateOnly"/> and <see cref="TimeOnly"/> parameter values
    /// (Microsoft.Data.Sqlite, Npgsql, Microsoft.Data.SqlClient, MySqlConnector). Others, Oracle's MySql.Data 8.0 and
    /// System.Data.SqlClient among them, get a <see cref="DateTime"/> and a <see cref="TimeSpan"/> instead.
    /// </summary>
    public static bool KnowsDateAndTimeOnly(Type providerType)
    {
        string ns = providerType.Namespace ?? "";
        return ns.StartsWith("Microsoft.Data.Sqlite", StringComparison.Ordinal) || ns.StartsWith("Npgsql", StringComparison.Ordinal) ||
               ns.StartsWith("Microsoft.Data.SqlClient", StringComparison.Ordinal) || ns.StartsWith("MySqlConnector", StringComparison.Ordinal);
    }

    /// <summary>
    /// A pool name from the connection string's server and database keys only; user names and passwords never appear.
    /// </summary>
    public static string DefaultPoolName(string systemName, string? connectionString)
    {
        var builder = new DbConnectionStringBuilder();
        try
        {
            builder.ConnectionString = connectionString ?? "";
        }
        catch (ArgumentException)
        {
            return systemName;
        }

        string? server = First(builder, "Data Source", "Server", "Host", "Address", "Addr", "Network Address", "DataSource", "Filename");
        string? database = First(builder, "Database", "Initial Catalog");
        if (builder.TryGetValue("Port", out object? port) && server is not null)
            server += ":" + port;
        return (server, database) switch
        {
            (null, null) => systemName,
            (_, null) => $"{systemName}:{server}",
            (null, _) => $"{systemName}:{database}",
            _ => $"{systemName}:{server}/{database}",
        };
    }

    /// <summary>
    /// The OpenTelemetry attributes <c>server.address</c>, <c>server.port</c> and <c>db.namespace</c> that the
    /// connection string gives, read with each provider's own keys: Npgsql <c>Host</c>/<c>Server</c> (a
    /// <c>host:port</c> form too), <c>Port</c>, <c>Database</c>/<c>DB</c>; MySqlConnector and MySql.Data
    /// <c>Server</c>/<c>Host</c>/<c>Data Source</c>/<c>Address</c>, <c>Port</c>, <c>Database</c>/<c>Initial
    /// Catalog</c>; SqlClient <c>Data Source</c>/<c>Server</c> (<c>tcp:host\instance,port</c>), <c>Initial
    /// Catalog</c>/<c>Database</c>. A list of several hosts names no one server and is left out. SQLite (a file) and
    /// unknown providers give none. No other key is read, so user names and passwords never appear.
    /// </summary>
    public static KeyValuePair<string, object?>[] ServerAttributes(string systemName, string? connectionString)
    {
        if (systemName is not ("postgresql" or "mysql" or "microsoft.sql_server"))
            return [];
        var builder = new DbConnectionStringBuilder();
        try
        {
            builder.ConnectionString = connectionString ?? "";
        }
        catch (ArgumentException)
        {
            return [];
        }

        string? host;
        string? port = First(builder, "Port");
        string? database;
        switch (systemName)
        {
            case "postgresql":
                host = First(builder, "Host", "Server");
                database = First(builder, "Database", "DB");
                if (host is not null && host.Count(c => c == ':') == 1 && SplitLast(host, ':') is ({ } h, { } p))
                    (host, port) = (h, port ?? p);
                break;
            case "mysql":
                host = First(builder, "Server", "Host", "Data Source", "DataSource", "Address", "Addr", "Network Address");
                database = First(builder, "Database", "Initial Catalog");
                break;
            default:
                host = First(builder, "Data Source", "Server", "Address", "Addr", "Network Address");
                database = First(builder, "Initial Catalog", "Database");
                if (host is not null)
                {
                    int colon = host.IndexOf(':', StringComparison.Ordinal);
                    if (colon > 0 && host[..colon].ToUpperInvariant() is "TCP" or "NP" or "LPC" or "ADMIN")
                        host = host[(colon + 1)..];
                    if (SplitLast(host, ',') is ({ } name, { } number))
                        (host, port) = (name, number);
                    int backslash = host.IndexOf('\\', StringComparison.Ordinal);
                    if (backslash >= 0)
                        host = host[..backslash];
                }

                break;
        }

        var attributes = new List<KeyValuePair<string, object?>>(3);
        if (host is { Length: > 0 } && !host.Contains(',', StringComparison.Ordinal))
        {
            attributes.Add(new("server.address", host.Trim()));
            if (int.TryParse(port, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out int number) && number > 0)
                attributes.Add(new("server.port", number));
        }

        if (database is not null)
            attributes.Add(new("db.namespace", database));
        return [.. attributes];
    }

    private static (string? Before, string? After) SplitLast(string text, char separator)
    {
        int at = text.LastIndexOf(separator);
        return at > 0 && at < text.Length - 1 ? (text[..at], text[(at + 1)..]) : (null, null);
    }

    /// <summary>
    /// Max Pool Size from the connection string ("Max Pool Size", "Maximum Pool Size", "MaxPoolSize"), else the
    /// provider's documented default (100 for Npgsql, SqlClient and MySqlConnector); null when pooling is off or the
    /// provider has no bound (SQLite).
    /// </summary>
    public static int? MaxPoolSize(string systemName, string? connectionString)
    {
        var builder = new DbConnectionStringBuilder();
        try
        {
            builder.ConnectionString = connectionString ?? "";
        }
        catch (ArgumentException)
        {
            return null;
        }

        if (First(builder, "Pooling") is { } pooling && bool.TryParse(pooling, out bool on) && !on)
            return null;
        if (First(builder, "Max Pool Size", "Maximum Pool Size", "MaxPoolSize", "Maximum Pool size") is { } text &&
            int.TryParse(text, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out int max) && max > 0)
            return max;
        return systemName is "postgresql" or "mysql" or "microsoft.sql_server" ? 100 : null;
    }

    private static string? First(DbConnectionStringBuilder builder, params string[] keys)
    {
        foreach (string key in keys)
        {
            if (builder.TryGetValue(key, out object? value) && value?.ToString() is { Length: > 0 } text)
                return text;
        }

        return null;
    }
}
