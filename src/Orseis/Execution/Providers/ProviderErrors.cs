using System.Collections.Concurrent;
using System.Globalization;
using System.Reflection;
using System.Resources;
using Orseis.Diagnostics;

namespace Orseis.Execution;

/// <summary>
/// What each provider's open failures mean, read from the exception's type and its error code (through the provider's
/// public properties, found once per exception type: no provider package is referenced). Where a provider gives one code
/// to two different failures, its own fixed, untranslated text tells them apart, and each place says so.
/// </summary>
internal static class ProviderErrors
{
    /// <summary><c>MySqlErrorCode.UnableToConnectToHost</c> (both MySQL providers): every failed open.</summary>
    private const int UnableToConnectToHost = 1042;

    /// <summary>SqlClient's <c>SqlException.Number</c> for a timeout (<c>TdsEnums.TIMEOUT_EXPIRED</c>).</summary>
    private const int SqlClientTimeout = -2;

    private static readonly ConcurrentDictionary<(Type Type, string Name), PropertyInfo?> Properties = new();
    private static readonly ConcurrentDictionary<(string AssemblyName, CultureInfo Culture), string?> SqlClientPoolTimeoutTexts = new();

    /// <summary>
    /// MySqlConnector throws <c>MySqlException</c> with <c>ErrorCode</c> <c>UnableToConnectToHost</c> (1042) for every
    /// open that fails: refused, timed out, or timed out waiting for the pool. Which one is only in its message, a fixed
    /// English literal (MySqlConnector has no translations): "Connect Timeout expired." when the open timed out, with
    /// " All pooled connections are in use." added when the pool had no free connection.
    /// </summary>
    public static OpenTimeout MySqlConnector(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (IsType(e, "MySqlConnector.MySqlException") && ReadInt(e, "ErrorCode") == UnableToConnectToHost &&
                e.Message.StartsWith("Connect Timeout expired.", StringComparison.Ordinal))
            {
                return e.Message.EndsWith("All pooled connections are in use.", StringComparison.Ordinal)
                    ? OpenTimeout.PoolWait
                    : OpenTimeout.Connect;
            }
        }

        return OpenTimeout.None;
    }

    /// <summary>
    /// Oracle's MySql.Data throws <c>MySqlException</c> with <c>Number</c> 0 (no server error) when no pooled connection
    /// freed up in time; its text (MySql.Data ships no translations) is the only mark of that. A connect that timed out
    /// is <c>UnableToConnectToHost</c> like a refused one, so it is not told apart.
    /// </summary>
    public static OpenTimeout MySqlData(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (IsType(e, "MySql.Data.MySqlClient.MySqlException") && ReadInt(e, "Number") == 0 &&
                e.Message.Contains("prior to obtaining a connection from the pool", StringComparison.Ordinal))
            {
                return OpenTimeout.PoolWait;
            }
        }

        return OpenTimeout.None;
    }

    /// <summary>
    /// Npgsql reports every open that ran out of time as an <c>NpgsqlException</c> (not a <c>PostgresException</c>, which
    /// is the server's answer) around a <see cref="TimeoutException"/>: while waiting for the pool, or while connecting
    /// (the connect itself or the server's first answer). Only its message, a fixed English literal (Npgsql has no
    /// translations), says the pool was exhausted.
    /// </summary>
    public static OpenTimeout Npgsql(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (IsType(e, "Npgsql.NpgsqlException") && e.InnerException is TimeoutException)
            {
                return e.Message.StartsWith("The connection pool has been exhausted", StringComparison.Ordinal)
                    ? OpenTimeout.PoolWait
                    : OpenTimeout.Connect;
            }
        }

        return OpenTimeout.None;
    }

    /// <summary>
    /// SqlClient (<paramref name="assemblyName"/>: Microsoft.Data.SqlClient or System.Data.SqlClient): a connect or login
    /// that timed out is a <c>SqlException</c> with <c>Number</c> -2. A pool that had no connection in time is a plain
    /// <see cref="InvalidOperationException"/> that carries nothing but its message, which SqlClient translates: it is
    /// compared with SqlClient's own text for the current UI culture (its resource <c>ADP_PooledOpenTimeout</c>), and,
    /// should that resource not be found, with the narrowest part of the English text.
    /// </summary>
    public static OpenTimeout SqlClient(Exception error, string assemblyName)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (IsType(e, assemblyName + ".SqlException") && ReadInt(e, "Number") == SqlClientTimeout)
                return OpenTimeout.Connect;
            if (e.GetType() == typeof(InvalidOperationException) &&
                (string.Equals(e.Message, SqlClientPoolTimeoutText(assemblyName), StringComparison.Ordinal) ||
                 e.Message.Contains("prior to obtaining a connection from the pool", StringComparison.Ordinal)))
            {
                return OpenTimeout.PoolWait;
            }
        }

        return OpenTimeout.None;
    }

    /// <summary>SqlClient's text for a pool timeout in the current UI culture; null when its resource cannot be read.</summary>
    internal static string? SqlClientPoolTimeoutText(string assemblyName) =>
        SqlClientPoolTimeoutTexts.GetOrAdd((assemblyName, CultureInfo.CurrentUICulture), static key =>
        {
            try
            {
                Assembly assembly = Assembly.Load(new AssemblyName(key.AssemblyName));
                var resources = new ResourceManager(key.AssemblyName + ".Resources.Strings", assembly);
                return resources.GetString("ADP_PooledOpenTimeout", key.Culture);
            }
            catch (Exception error) when (error is IOException or MissingManifestResourceException or BadImageFormatException)
            {
                return null;
            }
        });

    internal static bool IsType(Exception error, string fullName)
    {
        for (Type? type = error.GetType(); type is not null && type != typeof(Exception); type = type.BaseType)
        {
            if (type.FullName == fullName)
                return true;
        }

        return false;
    }

    /// <summary>
    /// An integer (or enum) property of the provider's exception, declared on its own type: MySqlConnector's
    /// <c>ErrorCode</c> hides <see cref="System.Runtime.InteropServices.ExternalException.ErrorCode"/> with an enum, so the
    /// most derived declaration is the one read. Null when the type has no such property.
    /// </summary>
    internal static int? ReadInt(Exception error, string name)
    {
        return Property(error, name)?.GetValue(error) switch
        {
            int number => number,
            Enum code => Convert.ToInt32(code, CultureInfo.InvariantCulture),
            _ => null,
        };
    }

    /// <summary>A string property of the provider's exception (Npgsql's <c>SqlState</c>); null when the type has none.</summary>
    internal static string? ReadString(Exception error, string name) => Property(error, name)?.GetValue(error) as string;

    private static PropertyInfo? Property(Exception error, string name) =>
        Properties.GetOrAdd((error.GetType(), name), static key =>
        {
            for (Type? type = key.Type; type is not null; type = type.BaseType)
            {
                if (type.GetProperty(key.Name, BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly) is { } found)
                    return found;
            }

            return null;
        });
}
