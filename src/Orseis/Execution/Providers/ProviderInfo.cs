using System.Data.Common;
using System.Globalization;

namespace Orseis.Execution.Providers;

/// <summary>
/// What a connection string says about the server and the database, read with each provider's own keys (by its
/// <see cref="ProviderTraits.SystemName"/> and <see cref="ProviderTraits.ServerKeys"/>) and never a secret: the default
/// pool name and the OpenTelemetry attributes.
/// </summary>
internal static class ProviderInfo
{
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
    /// connection string gives, read with the keys of the system's provider (<see cref="ProviderTraits.ServerKeys"/>):
    /// Npgsql <c>Host</c>/<c>Server</c> (a <c>host:port</c> form too), <c>Port</c>, <c>Database</c>/<c>DB</c>;
    /// MySqlConnector and MySql.Data <c>Server</c>/<c>Host</c>/<c>Data Source</c>/<c>Address</c>, <c>Port</c>,
    /// <c>Database</c>/<c>Initial Catalog</c>; SqlClient <c>Data Source</c>/<c>Server</c> (<c>tcp:host\instance,port</c>),
    /// <c>Initial Catalog</c>/<c>Database</c>. A list of several hosts names no one server and is left out. SQLite (a
    /// file) and unknown providers give none. No other key is read, so user names and passwords never appear.
    /// </summary>
    public static KeyValuePair<string, object?>[] ServerAttributes(string systemName, string? connectionString)
    {
        if (ProviderTraits.OfSystem(systemName).ServerKeys is not { } keys)
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

        string? host = First(builder, keys.Host);
        string? port = First(builder, "Port");
        string? database = First(builder, keys.Database);
        if (host is not null && keys.SplitHost is { } split)
        {
            (host, string? named) = split(host);
            port ??= named;
        }

        var attributes = new List<KeyValuePair<string, object?>>(3);
        if (host is { Length: > 0 } && !host.Contains(',', StringComparison.Ordinal))
        {
            attributes.Add(new("server.address", host.Trim()));
            if (int.TryParse(port, NumberStyles.Integer, CultureInfo.InvariantCulture, out int number) && number > 0)
                attributes.Add(new("server.port", number));
        }

        if (database is not null)
            attributes.Add(new("db.namespace", database));
        return [.. attributes];
    }

    /// <summary>Npgsql's host: <c>host:port</c> (one colon only, so an IPv6 address stays whole).</summary>
    internal static (string Host, string? Port) PostgresHost(string host) =>
        host.Count(c => c == ':') == 1 && SplitLast(host, ':') is ({ } h, { } p) ? (h, p) : (host, null);

    /// <summary>
    /// SqlClient's data source: <c>tcp:</c>, <c>np:</c>, <c>lpc:</c> or <c>admin:</c> before the host, <c>,port</c> after
    /// it, <c>\instance</c> within; the port a comma names wins over the <c>Port</c> key.
    /// </summary>
    internal static (string Host, string? Port) SqlServerHost(string host)
    {
        string? port = null;
        int colon = host.IndexOf(':', StringComparison.Ordinal);
        if (colon > 0 && host[..colon].ToUpperInvariant() is "TCP" or "NP" or "LPC" or "ADMIN")
            host = host[(colon + 1)..];
        if (SplitLast(host, ',') is ({ } name, { } number))
            (host, port) = (name, number);
        int backslash = host.IndexOf('\\', StringComparison.Ordinal);
        if (backslash >= 0)
            host = host[..backslash];
        return (host, port);
    }

    private static (string? Before, string? After) SplitLast(string text, char separator)
    {
        int at = text.LastIndexOf(separator);
        return at > 0 && at < text.Length - 1 ? (text[..at], text[(at + 1)..]) : (null, null);
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
