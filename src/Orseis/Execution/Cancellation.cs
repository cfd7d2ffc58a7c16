using System.Data.Common;

namespace Orseis.Execution;

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
        new($"The call was cancelled; the provider reported the cancellation as {error.GetType().FullName} (the inner exception).", error, cancellationToken);

    /// <summary><see cref="DbDataReader.ReadAsync(CancellationToken)"/>, with a misreported cancellation translated; no allocation when the read completes at once.</summary>
    public static ValueTask<bool> ReadAsync(DbDataReader reader, CancellationToken cancellationToken)
    {
        Task<bool> read;
        try
        {
            read = reader.ReadAsync(cancellationToken);
        }
        catch (Exception error) when (IsMisreported(error, cancellationToken))
        {
            throw Reported(error, cancellationToken);
        }

        return read.IsCompletedSuccessfully ? new ValueTask<bool>(read.Result) : AwaitAsync(read, cancellationToken);
    }

    /// <summary>Awaits a provider task, translating a misreported cancellation.</summary>
    public static async ValueTask<T> AwaitAsync<T>(Task<T> pending, CancellationToken cancellationToken)
    {
        try
        {
            return await pending.ConfigureAwait(false);
        }
        catch (Exception error) when (IsMisreported(error, cancellationToken))
        {
            throw Reported(error, cancellationToken);
        }
    }
}
