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
