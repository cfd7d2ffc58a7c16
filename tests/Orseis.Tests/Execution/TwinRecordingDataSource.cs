using System.Collections.Concurrent;
using System.Data.Common;
using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Execution;

/// <summary>
/// A data source over a SQLite file that records which of the sync and async twins of open, dispose and execute its
/// connections and commands were called (SQLite's async ones only call the sync ones, so nothing else tells them apart).
/// Chosen async operations can really suspend (<see cref="Yielding"/>), as a network provider's do, and opens can fail.
/// </summary>
public sealed class TwinRecordingDataSource(string connectionString) : DbDataSource
{
    private readonly ConcurrentQueue<Connection> _connections = new();

    public override string ConnectionString => connectionString;

    /// <summary>The calls made, in order: "Open", "OpenAsync", "Dispose", "DisposeAsync", "ExecuteNonQuery", "ExecuteNonQueryAsync".</summary>
    public ConcurrentQueue<string> Calls { get; } = new();

    /// <summary>The commands that were disposed.</summary>
    public ConcurrentDictionary<DbCommand, bool> DisposedCommands { get; } = new();

    /// <summary>The async operations that suspend before completing: any of "OpenAsync", "DisposeAsync", "ExecuteNonQueryAsync".</summary>
    public HashSet<string> Yielding { get; } = [];

    /// <summary>Called with the provider's token once an async command has run.</summary>
    public Action<CancellationToken>? AfterExecuteAsync { get; set; }

    /// <summary>Called with the provider's token as an async open starts.</summary>
    public Action<CancellationToken>? OnOpenAsync { get; set; }

    /// <summary>When set, opens (sync and async) throw this.</summary>
    public Func<Exception>? OpenFailure { get; set; }

    /// <summary>The connections created, in order.</summary>
    public IReadOnlyList<DbConnection> Connections => [.. _connections];

    public int Count(string call) => Calls.Count(c => c == call);

    protected override DbConnection CreateDbConnection()
    {
        var connection = new Connection(this, connectionString);
        _connections.Enqueue(connection);
        return connection;
    }

    // Task.Delay(1) is never complete when returned: the awaiting method really suspends and resumes on a timer thread.
    private async Task YieldIfAsked(string call)
    {
        if (Yielding.Contains(call))
            await Task.Delay(1, CancellationToken.None).ConfigureAwait(false);
    }

    private sealed class Connection(TwinRecordingDataSource source, string connectionString) : SqliteConnection(connectionString)
    {
        private bool _disposingAsync;

        public override void Open()
        {
            source.Calls.Enqueue("Open");
            if (source.OpenFailure is { } failure)
                throw failure();
            base.Open();
        }

        public override async Task OpenAsync(CancellationToken cancellationToken)
        {
            source.Calls.Enqueue("OpenAsync");
            source.OnOpenAsync?.Invoke(cancellationToken);
            await source.YieldIfAsked("OpenAsync").ConfigureAwait(false);
            if (source.OpenFailure is { } failure)
                throw failure();
            base.Open();
        }

        public override SqliteCommand CreateCommand() =>
            new Command(source) { Connection = this, CommandTimeout = DefaultTimeout, Transaction = Transaction };

        public override async ValueTask DisposeAsync()
        {
            source.Calls.Enqueue("DisposeAsync");
            await source.YieldIfAsked("DisposeAsync").ConfigureAwait(false);
            _disposingAsync = true;
            base.Dispose();
        }

        protected override void Dispose(bool disposing)
        {
            if (disposing && !_disposingAsync)
                source.Calls.Enqueue("Dispose");
            base.Dispose(disposing);
        }
    }

    private sealed class Command(TwinRecordingDataSource source) : SqliteCommand
    {
        public override int ExecuteNonQuery()
        {
            source.Calls.Enqueue("ExecuteNonQuery");
            return base.ExecuteNonQuery();
        }

        public override async Task<int> ExecuteNonQueryAsync(CancellationToken cancellationToken)
        {
            source.Calls.Enqueue("ExecuteNonQueryAsync");
            await source.YieldIfAsked("ExecuteNonQueryAsync").ConfigureAwait(false);
            int affected = base.ExecuteNonQuery();
            source.AfterExecuteAsync?.Invoke(cancellationToken);
            return affected;
        }

        protected override void Dispose(bool disposing)
        {
            source.DisposedCommands[this] = true;
            base.Dispose(disposing);
        }
    }
}
