using System.Data.Common;

namespace Orseis;

/// <summary>Calls on a connection the caller already has.</summary>
public sealed partial class Database
{
    /// <summary>
    /// Runs calls on <paramref name="connection"/>, a connection the caller owns (one that Dapper code or EF Core's
    /// <c>Database.GetDbConnection()</c> uses), joining <paramref name="transaction"/> when given, with this database's
    /// mapping, type handlers, command timeout, tracing and command telemetry. Orseis never takes the connection from or
    /// gives it back to the pool, and the pool's figures count no open or hold for it. A closed connection is opened for
    /// each call and closed after it; an open one stays open. The caller disposes the connection and the transaction.
    /// </summary>
    /// <param name="connection">The caller's connection, from the same provider as this database.</param>
    /// <param name="transaction">A transaction begun on <paramref name="connection"/> that every call joins; null for none.</param>
    /// <returns>A runner of every call, on that connection; cheap to create per use.</returns>
    /// <exception cref="ArgumentException">The transaction belongs to another connection.</exception>
    /// <example>
    /// <code>
    /// await using DbTransaction tx = await connection.BeginTransactionAsync();
    /// await db.On(connection, tx).ExecuteAsync("update accounts set balance = balance - @amount where id = @id", new { amount, id });
    /// await tx.CommitAsync();
    /// </code>
    /// </example>
    public SqlRunner On(DbConnection connection, DbTransaction? transaction = null)
    {
        ArgumentNullException.ThrowIfNull(connection);
        ThrowIfDisposed();
        if (transaction is not null && !ReferenceEquals(transaction.Connection, connection))
        {
            throw new ArgumentException(
                "The transaction belongs to another connection (or has ended): pass the connection it was begun on.", nameof(transaction));
        }

        return new BorrowedRunner(new BorrowedSource(Pool, connection, transaction, $"a borrowed connection of '{PoolName}'"));
    }

    /// <summary>A runner of calls on a connection the caller owns.</summary>
    private sealed class BorrowedRunner(BorrowedSource source) : SqlRunner(source);
}
