using System.Data;
using System.Data.Common;

namespace Orseis.Execution.Providers;

/// <summary>
/// Turns a failure that left its connection closed into a <see cref="ConnectionBrokenException"/>, the same way in every
/// mode and call form, so that a broken connection reads the same whether it was opened for one call or kept.
/// </summary>
internal static class ConnectionFailures
{
    /// <summary>A <see cref="ConnectionBrokenException"/> for <paramref name="error"/> when it left <paramref name="connection"/> closed;
    /// otherwise null.</summary>
    public static ConnectionBrokenException? Translate(DbConnection connection, Exception error, string owner, bool inTransaction)
    {
        if (connection.State == ConnectionState.Open || error is OperationCanceledException or OrseisException)
            return null;
        string next = inTransaction
            ? "A transaction was open, so its work is lost (the server rolls it back): dispose the transaction; " +
              "the next call after that opens a new connection."
            : "No transaction was open; the next call opens a new connection. Whether this statement took effect on the server is unknown.";
        return new ConnectionBrokenException(
            $"The connection of {owner} broke while a statement ran (the server or the network ended it). {next}",
            inTransaction, statementMayHaveRun: true, error);
    }

    /// <summary>The error for an open whose connection broke twice in a row while being opened (see
    /// <see cref="OpenFailure.BrokeWhileOpening"/>).</summary>
    public static ConnectionBrokenException BrokenOnOpen(string owner, Exception error) =>
        new($"Opening a connection for {owner} failed twice: each connection broke while it was opened or reset " +
            "(the server may be restarting, or a network device closed idle connections). Nothing was sent to the server; " +
            "the call can be retried.", inTransaction: false, statementMayHaveRun: false, error);
}
