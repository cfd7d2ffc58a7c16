using System.Collections.Concurrent;
using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Execution;

/// <summary>
/// SQLite with the <see cref="DbBatch"/> API it lacks: each batch runs its commands one after another on the
/// connection and is recorded (commands, parameters, timeout, transaction, sync or async), so the unit tests can see how
/// Orseis cuts a sequence into batches. A failing command is reported as providers with batches do, naming it in
/// <see cref="DbException.BatchCommand"/>; a parameter still in another command's collection is refused, as SqlClient
/// and Npgsql refuse it.
/// </summary>
public sealed class BatchingDataSource(string connectionString) : DbDataSource
{
    public override string ConnectionString => connectionString;

    /// <summary>Every batch executed, in order.</summary>
    public ConcurrentQueue<BatchRun> Batches { get; } = new();

    /// <summary>How each batch was disposed, in order: "Dispose" or "DisposeAsync".</summary>
    public ConcurrentQueue<string> Disposals { get; } = new();

    /// <summary>The async operations that really suspend before completing: "ExecuteNonQueryAsync", "DisposeAsync".</summary>
    public HashSet<string> Yielding { get; } = [];

    /// <summary>Called with the provider's token once an async batch has run (like SQLite, a batch does not stop for a cancel).</summary>
    public Action<CancellationToken>? AfterExecuteAsync { get; set; }

    public sealed record BatchRun(int Commands, int Parameters, int Timeout, DbTransaction? Transaction, bool Async = false);

    private async Task YieldIfAsked(string call)
    {
        if (Yielding.Contains(call))
            await Task.Delay(1, CancellationToken.None).ConfigureAwait(false);
    }

    protected override DbConnection CreateDbConnection() => new Connection(this, connectionString);

    private sealed class Connection(BatchingDataSource source, string connectionString) : SqliteConnection(connectionString)
    {
        private readonly List<WeakReference<SqliteCommand>> _commands = [];

        public override bool CanCreateBatch => true;

        public override SqliteCommand CreateCommand()
        {
            SqliteCommand command = base.CreateCommand();
            lock (_commands)
                _commands.Add(new WeakReference<SqliteCommand>(command));
            return command;
        }

        /// <summary>A command for running a batch's commands, not one of the caller's.</summary>
        public SqliteCommand CreateOwnCommand() => base.CreateCommand();

        public bool InACommand(object parameter)
        {
            lock (_commands)
                return _commands.Exists(c => c.TryGetTarget(out SqliteCommand? command) && command.Parameters.Contains(parameter));
        }

        public override void Open()
        {
            base.Open();
            using SqliteCommand fast = CreateCommand();
            fast.CommandText = "pragma synchronous = off"; // thousands of single-row commits: no flush to disk for each
            fast.ExecuteNonQuery();
        }

        protected override DbBatch CreateDbBatch() => new Batch(source) { Connection = this };
    }

    private sealed class Batch(BatchingDataSource source) : DbBatch
    {
        private readonly Commands _commands = new();

        public override int Timeout { get; set; } = 30;

        protected override DbBatchCommandCollection DbBatchCommands => _commands;

        protected override DbConnection? DbConnection { get; set; }

        protected override DbTransaction? DbTransaction { get; set; }

        public override int ExecuteNonQuery() => Run(async: false);

        public override async Task<int> ExecuteNonQueryAsync(CancellationToken cancellationToken = default)
        {
            await source.YieldIfAsked("ExecuteNonQueryAsync").ConfigureAwait(false);
            int total = Run(async: true);
            source.AfterExecuteAsync?.Invoke(cancellationToken);
            return total;
        }

        public override void Dispose() => source.Disposals.Enqueue("Dispose");

        public override async ValueTask DisposeAsync()
        {
            source.Disposals.Enqueue("DisposeAsync");
            await source.YieldIfAsked("DisposeAsync").ConfigureAwait(false);
        }

        private int Run(bool async)
        {
            source.Batches.Enqueue(new BatchRun(_commands.Count, _commands.Sum(c => c.Parameters.Count), Timeout, Transaction, async));
            int total = 0;
            foreach (Command batchCommand in _commands)
            {
                using SqliteCommand command = ((Connection)Connection!).CreateOwnCommand();
                command.Transaction = (SqliteTransaction?)Transaction;
                command.CommandTimeout = Timeout;
                command.CommandText = batchCommand.CommandText;
                foreach (SqliteParameter parameter in batchCommand.Parameters)
                    command.Parameters.Add(new SqliteParameter(parameter.ParameterName, parameter.Value));
                try
                {
                    batchCommand.Affected = command.ExecuteNonQuery();
                }
                catch (SqliteException error)
                {
                    throw new BatchCommandException(batchCommand, error);
                }

                total += batchCommand.Affected;
            }

            return total;
        }

        protected override DbDataReader ExecuteDbDataReader(CommandBehavior behavior) => throw new NotSupportedException();

        protected override Task<DbDataReader> ExecuteDbDataReaderAsync(CommandBehavior behavior, CancellationToken cancellationToken) => throw new NotSupportedException();

        public override object? ExecuteScalar() => throw new NotSupportedException();

        public override Task<object?> ExecuteScalarAsync(CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public override void Prepare()
        {
        }

        public override Task PrepareAsync(CancellationToken cancellationToken = default) => Task.CompletedTask;

        public override void Cancel()
        {
        }

        protected override DbBatchCommand CreateDbBatchCommand() => new Command((Connection)Connection!);
    }

    private sealed class Command(Connection connection) : DbBatchCommand
    {
        private readonly Parameters _parameters = new(connection);

        public override string CommandText { get; set; } = "";

        public override CommandType CommandType { get; set; } = CommandType.Text;

        public int Affected { get; set; } = -1;

        public override int RecordsAffected => Affected;

        protected override DbParameterCollection DbParameterCollection => _parameters;
    }

    private sealed class Parameters(Connection connection) : SqliteParameterCollection
    {
        public override int Add(object value) =>
            connection.InACommand(value)
                ? throw new ArgumentException("The parameter is already contained by another parameter collection.", nameof(value))
                : base.Add(value);
    }

    private sealed class Commands : DbBatchCommandCollection
    {
        private readonly List<DbBatchCommand> _list = [];

        public override int Count => _list.Count;

        public override bool IsReadOnly => false;

        public override void Add(DbBatchCommand item) => _list.Add(item);

        public override void Clear() => _list.Clear();

        public override bool Contains(DbBatchCommand item) => _list.Contains(item);

        public override void CopyTo(DbBatchCommand[] array, int arrayIndex) => _list.CopyTo(array, arrayIndex);

        public override IEnumerator<DbBatchCommand> GetEnumerator() => _list.GetEnumerator();

        public override int IndexOf(DbBatchCommand item) => _list.IndexOf(item);

        public override void Insert(int index, DbBatchCommand item) => _list.Insert(index, item);

        public override bool Remove(DbBatchCommand item) => _list.Remove(item);

        public override void RemoveAt(int index) => _list.RemoveAt(index);

        protected override DbBatchCommand GetBatchCommand(int index) => _list[index];

        protected override void SetBatchCommand(int index, DbBatchCommand batchCommand) => _list[index] = batchCommand;
    }
}

/// <summary>A failure of one command of a batch, naming it as Npgsql and SqlClient do.</summary>
public sealed class BatchCommandException(DbBatchCommand failed, Exception inner) : DbException(inner.Message, inner)
{
    protected override DbBatchCommand? DbBatchCommand => failed;
}
