using System.Collections.Concurrent;
using System.Globalization;
using System.Reflection;
using System.Resources;

namespace Orseis.Execution.Providers;

/// <summary>What kind of "no connection in time" a provider's open failure is.</summary>
internal enum OpenTimeout
{
    /// <summary>Not a timeout of the open.</summary>
    None,

    /// <summary>The provider timed out waiting for a pooled connection.</summary>
    PoolWait,

    /// <summary>The provider timed out making a new connection (MySqlConnector's "Connect Timeout expired.", Npgsql's timeout while
    /// connecting).</summary>
    Connect,
}

/// <summary>
/// What a failed open was, read once from its exception by <see cref="Of"/>, the one place that reads open failures: a
/// cancellation, a timeout waiting for the pool or making a connection (<see cref="OpenTimeout"/>, read by the
/// provider's <see cref="ProviderTraits.ReadOpenTimeout"/>, one of the readers below: from exception types and error
/// codes through <see cref="ProviderErrors"/>, or from the message for a provider Orseis does not know), and whether
/// the connection broke while it was opened or reset. The open path decides from it whether to retry, and the pool's
/// telemetry what to translate and report.
/// </summary>
/// <param name="Error">What the provider threw.</param>
/// <param name="Timeout">Whether it ran out of time, and waiting for what.</param>
/// <param name="Cancelled">It is an <see cref="OperationCanceledException"/>: never a timeout, nor a failure to connect.</param>
/// <param name="BrokeWhileOpening">
/// The connection broke while it was being opened or reset (an I/O failure on a connection that existed, typically a
/// pooled one the server closed), not because the server refused or did not answer: such an open is tried once more.
/// </param>
internal readonly record struct OpenFailure(Exception Error, OpenTimeout Timeout, bool Cancelled, bool BrokeWhileOpening)
{
    /// <summary><c>MySqlErrorCode.UnableToConnectToHost</c> (both MySQL providers): every failed open.</summary>
    private const int UnableToConnectToHost = 1042;

    /// <summary>SqlClient's <c>SqlException.Number</c> for a timeout (<c>TdsEnums.TIMEOUT_EXPIRED</c>).</summary>
    private const int SqlClientTimeout = -2;

    private static readonly ConcurrentDictionary<(string AssemblyName, CultureInfo Culture), string?> SqlClientPoolTimeoutTexts = new();

    /// <summary>
    /// The open did not get a connection made (refused, timed out connecting, broken while opening): neither a wait for the
    /// pool nor a cancellation. The pool's connections may be gone too.
    /// </summary>
    public bool FailedToConnect => !Cancelled && Timeout != OpenTimeout.PoolWait;

    /// <summary>
    /// The server refused or did not answer a new connection: a failure to connect that is not a pooled connection found dead.
    /// </summary>
    public bool ServerUnanswered => FailedToConnect && !BrokeWhileOpening;

    /// <summary>Reads <paramref name="error"/>, thrown by an open of <paramref name="traits"/>' provider.</summary>
    public static OpenFailure Of(Exception error, ProviderTraits traits)
    {
        bool cancelled = error is OperationCanceledException;
        OpenTimeout timeout = cancelled ? OpenTimeout.None : traits.ReadOpenTimeout(error);
        return new OpenFailure(error, timeout, cancelled, Broke(error));
    }

    /// <summary>An I/O failure somewhere in the chain: see <see cref="BrokeWhileOpening"/>.</summary>
    private static bool Broke(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (e is IOException)
                return true;
        }

        return false;
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

    /// <summary>
    /// MySqlConnector throws <c>MySqlException</c> with <c>ErrorCode</c> <c>UnableToConnectToHost</c> (1042) for every
    /// open that fails: refused, timed out, or timed out waiting for the pool. Which one is only in its message, a fixed
    /// English literal (MySqlConnector has no translations): "Connect Timeout expired." when the open timed out, with
    /// " All pooled connections are in use." added when the pool had no free connection.
    /// </summary>
    internal static OpenTimeout MySqlConnector(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (ProviderErrors.IsType(e, "MySqlConnector.MySqlException") &&
                ProviderErrors.ReadInt(e, "ErrorCode") == UnableToConnectToHost &&
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
    /// is <c>UnableToConnectToHost</c> like a refused one, so it is not told apart. A new connection whose server
    /// accepted it but did not answer in time (the handshake, or the queries Open runs to read the server's settings, on
    /// a server still starting) is a <c>MySqlException</c> with <c>Number</c> 0 around a <see cref="TimeoutException"/>:
    /// a connect that timed out.
    /// </summary>
    internal static OpenTimeout MySqlData(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (!ProviderErrors.IsType(e, "MySql.Data.MySqlClient.MySqlException") || ProviderErrors.ReadInt(e, "Number") != 0)
                continue;
            if (e.Message.Contains("prior to obtaining a connection from the pool", StringComparison.Ordinal))
                return OpenTimeout.PoolWait;
            if (e.InnerException is TimeoutException)
                return OpenTimeout.Connect;
        }

        return OpenTimeout.None;
    }

    /// <summary>
    /// Npgsql reports every open that ran out of time as an <c>NpgsqlException</c> (not a <c>PostgresException</c>, which
    /// is the server's answer) around a <see cref="TimeoutException"/>: while waiting for the pool, or while connecting
    /// (the connect itself or the server's first answer). Only its message, a fixed English literal (Npgsql has no
    /// translations), says the pool was exhausted.
    /// </summary>
    internal static OpenTimeout Npgsql(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (ProviderErrors.IsType(e, "Npgsql.NpgsqlException") && e.InnerException is TimeoutException)
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
    internal static OpenTimeout SqlClient(Exception error, string assemblyName)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (ProviderErrors.IsType(e, assemblyName + ".SqlException") && ProviderErrors.ReadInt(e, "Number") == SqlClientTimeout)
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

    /// <summary>
    /// The last resort for a provider Orseis does not know (<see cref="ProviderTraits.Other"/>), whose exceptions carry
    /// nothing but a message: an open failure whose message, or an inner one's, speaks of a pool and a timeout is a pool
    /// wait, and "Connect Timeout expired" or a timeout while connecting is a connect.
    /// </summary>
    internal static OpenTimeout ByMessage(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            string message = e.Message;
            if (message.Contains("pool has been exhausted", StringComparison.OrdinalIgnoreCase))
                return OpenTimeout.PoolWait;
            bool mentionsPool = message.Contains("pool", StringComparison.OrdinalIgnoreCase);
            bool mentionsTimeout = message.Contains("timeout", StringComparison.OrdinalIgnoreCase) ||
                                   message.Contains("timed out", StringComparison.OrdinalIgnoreCase);
            if (mentionsPool && mentionsTimeout)
                return OpenTimeout.PoolWait;
        }

        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            string message = e.Message;
            if (message.Contains("Connect Timeout expired", StringComparison.OrdinalIgnoreCase) ||
                message.Contains("timeout while connecting", StringComparison.OrdinalIgnoreCase) ||
                message.Contains("timeout during connecting", StringComparison.OrdinalIgnoreCase))
            {
                return OpenTimeout.Connect;
            }
        }

        return OpenTimeout.None;
    }
}
