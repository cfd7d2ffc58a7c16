using System.Data.Common;

namespace Orseis;

/// <summary>The provider's reader, for code that reads it itself.</summary>
public abstract partial class SqlRunner
{
    /// <summary>
    /// Runs <paramref name="sql"/> and hands back the provider's reader, for code that reads rows itself (with
    /// <see cref="Database.RowParser{T}"/>, or column by column). The call holds its connection until the reader is
    /// disposed: dispose it (a <c>using</c>), which asks the server to stop sending what was not read. A read that fails
    /// throws what any Orseis call throws (a broken connection, a command timeout).
    /// </summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The reader, before its first row; dispose it.</returns>
    public DbDataReader ExecuteReader(string sql, object? args = null, TimeSpan? timeout = null)
    {
        Pool.Telemetry.EnterFlow();
        return new LeasedReader(SyncPath.Done(OpenGridAsync(new CommandRequest(sql, args, timeout), async: false, CancellationToken.None)));
    }

    /// <inheritdoc cref="ExecuteReader(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public async Task<DbDataReader> ExecuteReaderAsync(
        string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        Pool.Telemetry.EnterFlow();
        GridReader call = await OpenGridAsync(new CommandRequest(sql, args, timeout), async: true, cancellationToken).ConfigureAwait(false);
        return new LeasedReader(call);
    }
}
