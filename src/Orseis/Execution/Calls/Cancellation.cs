using System.Data.Common;

namespace Orseis.Execution.Calls;

/// <summary>
/// Makes a cancelled call end the same way on every provider: with an <see cref="OperationCanceledException"/> for the
/// caller's token. Npgsql and MySqlConnector already throw one; SqlClient reports a cancelled command as a
/// <c>SqlException</c> ("Operation cancelled by user"), and providers without real async (Oracle's MySql.Data) get
/// <see cref="DbCommand.Cancel"/> from ADO.NET's base class and then throw whatever their interrupted statement throws
/// (MySql.Data 8.0.16: a <see cref="NullReferenceException"/>). The provider's exception is kept as the inner one.
/// </summary>
internal static class Cancellation
{
    /// <summary>True when <paramref name="error"/> is the provider's own report of a cancellation the caller asked for.</summary>
    public static bool IsMisreported(Exception error, CancellationToken cancellationToken) =>
        cancellationToken.IsCancellationRequested && error is not OperationCanceledException;

    /// <summary>The <see cref="OperationCanceledException"/> for <paramref name="error"/> (see <see cref="IsMisreported"/>).</summary>
    public static OperationCanceledException Reported(Exception error, CancellationToken cancellationToken) =>
        new($"The call was cancelled; the provider reported the cancellation as {error.GetType().FullName} (the inner exception).",
            error, cancellationToken);
}
