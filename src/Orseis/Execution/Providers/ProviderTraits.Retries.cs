using System.Net.Sockets;

namespace Orseis.Execution.Providers;

/// <summary>
/// Which of a provider's own errors say that an open never got a connection made (<see cref="CouldNotConnect"/>):
/// <see cref="OrseisRetry"/> reads them from the exception alone, so the provider is found from the exception's type.
/// </summary>
internal sealed partial class ProviderTraits
{
    /// <summary>MySQL's <c>UnableToConnectToHost</c> (both providers): refused, or timed out connecting.</summary>
    private const int MySqlUnableToConnect = 1042;

    /// <summary>MySQL's <c>ConnectionCountError</c>: too many connections.</summary>
    private const int MySqlTooManyConnections = 1040;

    /// <summary>
    /// True when the exception given (one exception of a chain, of this provider's types) says the server could not be
    /// reached or could not take the connection yet: errors only an open raises, so nothing was sent. False for a provider
    /// Orseis does not know, and for SQLite and SqlClient (whose error numbers are not read: a refused socket is told
    /// without a trait, by <see cref="OrseisRetry"/>).
    /// </summary>
    public readonly Func<Exception, bool> CouldNotConnect;

    /// <summary>A provider whose errors Orseis does not read for this: none of them says so.</summary>
    private static bool NeverCouldNotConnect(Exception error) => false;

    /// <summary>
    /// True when <paramref name="error"/>, an exception of any type, is one its provider's <see cref="CouldNotConnect"/>
    /// names; the provider is the known one whose namespace the exception's type (or a base type) lives in.
    /// </summary>
    /// <param name="error">One exception of a chain.</param>
    public static bool SaysCouldNotConnect(Exception error) => For(error.GetType()).CouldNotConnect(error);

    /// <summary>MySqlConnector: <c>MySqlException.ErrorCode</c> 1042 or 1040.</summary>
    private static bool MySqlConnectorCouldNotConnect(Exception error) =>
        ProviderErrors.IsType(error, "MySqlConnector.MySqlException") &&
        ProviderErrors.ReadInt(error, "ErrorCode") is MySqlUnableToConnect or MySqlTooManyConnections;

    /// <summary>MySql.Data: <c>MySqlException.Number</c> 1042 or 1040.</summary>
    private static bool MySqlDataCouldNotConnect(Exception error) =>
        ProviderErrors.IsType(error, "MySql.Data.MySqlClient.MySqlException") &&
        ProviderErrors.ReadInt(error, "Number") is MySqlUnableToConnect or MySqlTooManyConnections;

    /// <summary>
    /// Npgsql: SQLSTATE <c>57P03</c> (starting up or shutting down) or <c>53300</c> (too many connections), and its TCP
    /// connect that failed: "Failed to connect to &lt;host&gt;", which Npgsql (7 to 10) raises only from the loop that
    /// connects the socket, before its startup message is written, around what the connect threw: a
    /// <see cref="SocketException"/> of any code (refused, or reset: a server shutting down closes its
    /// listening socket and resets the connections the kernel had queued that it never accepted) or a
    /// <see cref="TimeoutException"/> (a restarting server accepted the socket and did not answer yet), which a
    /// statement's timeout never reads. A reset read while a statement runs is "Exception while reading from stream":
    /// not this.
    /// </summary>
    private static bool NpgsqlCouldNotConnect(Exception error)
    {
        if (ProviderErrors.IsType(error, "Npgsql.PostgresException"))
            return ProviderErrors.ReadString(error, "SqlState") is "57P03" or "53300";
        return ProviderErrors.IsType(error, "Npgsql.NpgsqlException") &&
               error.InnerException is TimeoutException or SocketException &&
               error.Message.StartsWith("Failed to connect to ", StringComparison.Ordinal);
    }
}
