using System.Collections.Concurrent;
using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Modes;

/// <summary>
/// A data source over a SQLite file that records every command its connections create and every execution: which
/// command ran, with what text, timeout and transaction, and which commands were disposed.
/// </summary>
public sealed class RecordingDataSource(string connectionString) : DbDataSource
{
    private int _created;
    private int _open;

    public override string ConnectionString => connectionString;

    /// <summary>How many commands the connections created.</summary>
    public int CommandsCreated => Volatile.Read(ref _created);

    /// <summary>How many of the connections are open now (opened and not yet closed, in the pool's sense or not).</summary>
    public int OpenConnections => Volatile.Read(ref _open);

    /// <summary>Every execution, in order.</summary>
    public ConcurrentQueue<Execution> Executions { get; } = new();

    /// <summary>The commands that were disposed.</summary>
    public ConcurrentDictionary<DbCommand, bool> Disposed { get; } = new();

    public sealed record Execution(DbCommand Command, string Text, int Timeout, DbTransaction? Transaction, string[] ParameterNames);

    protected override DbConnection CreateDbConnection() => new RecordingConnection(this, connectionString);

    private sealed class RecordingConnection : SqliteConnection
    {
        private readonly RecordingDataSource _source;

        public RecordingConnection(RecordingDataSource source, string connectionString)
            : base(connectionString)
        {
            _source = source;
            StateChange += (_, change) =>
            {
                if (change.CurrentState == ConnectionState.Open && change.OriginalState != ConnectionState.Open)
                    Interlocked.Increment(ref source._open);
                else if (change.OriginalState == ConnectionState.Open && change.CurrentState != ConnectionState.Open)
                    Interlocked.Decrement(ref source._open);
            };
        }

        public override SqliteCommand CreateCommand()
        {
            Interlocked.Increment(ref _source._created);
            return new RecordingCommand(_source) { Connection = this, CommandTimeout = DefaultTimeout, Transaction = Transaction };
        }
    }

    private sealed class RecordingCommand(RecordingDataSource source) : SqliteCommand
    {
        public override SqliteDataReader ExecuteReader(CommandBehavior behavior)
        {
            string[] names = [.. Parameters.Cast<SqliteParameter>().Select(p => p.ParameterName)];
            source.Executions.Enqueue(new Execution(this, CommandText, CommandTimeout, Transaction, names));
            return base.ExecuteReader(behavior);
        }

        protected override void Dispose(bool disposing)
        {
            source.Disposed[this] = true;
            base.Dispose(disposing);
        }
    }
}
