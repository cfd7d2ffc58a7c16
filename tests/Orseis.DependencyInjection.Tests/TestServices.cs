using System.Collections.Concurrent;
using System.Data.Common;
using Microsoft.Data.Sqlite;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Logging;

namespace Orseis.DependencyInjection.Tests;

/// <summary>Configuration built from key/value pairs.</summary>
public static class TestConfiguration
{
    public static IConfiguration From(params (string Key, string Value)[] pairs) =>
        new ConfigurationBuilder().AddInMemoryCollection(pairs.Select(p => new KeyValuePair<string, string?>(p.Key, p.Value))).Build();
}

/// <summary>Keeps every log entry written through the container's logger factory.</summary>
public sealed class CapturingLoggerProvider : ILoggerProvider
{
    public ConcurrentQueue<(string Category, LogLevel Level, string Message)> Entries { get; } = new();

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void Dispose()
    {
    }

    private sealed class Logger(CapturingLoggerProvider owner, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            owner.Entries.Enqueue((category, logLevel, formatter(state, exception)));
    }
}

/// <summary>A data source registered in the container, over SQLite, that says whether it was disposed.</summary>
public sealed class TrackedDataSource(string connectionString) : DbDataSource
{
    private readonly DbDataSource _inner = SqliteFactory.Instance.CreateDataSource(connectionString);

    public int Disposals { get; private set; }

    public override string ConnectionString => _inner.ConnectionString;

    protected override DbConnection CreateDbConnection() => _inner.CreateConnection();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            Disposals++;
            _inner.Dispose();
        }

        base.Dispose(disposing);
    }

    protected override async ValueTask DisposeAsyncCore()
    {
        Disposals++;
        await _inner.DisposeAsync();
    }
}
