using System.Data.Common;
using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// A data source over a SQLite file whose opens can be slowed, held at a gate or failed, and whose advertised
/// connection string can carry pool settings SQLite has not (such as Max Pool Size).
/// </summary>
public sealed class TestDataSource(string sqliteConnectionString, string advertised) : DbDataSource
{
    public override string ConnectionString => advertised;

    /// <summary>Added to each open.</summary>
    public TimeSpan OpenDelay { get; set; }

    /// <summary>When set, opens throw this.</summary>
    public Func<Exception>? Failure { get; set; }

    /// <summary>When set, opens wait for it.</summary>
    public ManualResetEventSlim? Gate { get; set; }

    internal void BeforeOpen()
    {
        Gate?.Wait(TimeSpan.FromSeconds(30));
        if (OpenDelay > TimeSpan.Zero)
            Thread.Sleep(OpenDelay);
        if (Failure is { } failure)
            throw failure();
    }

    protected override DbConnection CreateDbConnection() => new TestConnection(this, sqliteConnectionString);

    private sealed class TestConnection(TestDataSource source, string connectionString) : SqliteConnection(connectionString)
    {
        public override void Open()
        {
            source.BeforeOpen();
            base.Open();
        }

        public override Task OpenAsync(CancellationToken cancellationToken)
        {
            source.BeforeOpen();
            return base.OpenAsync(cancellationToken);
        }
    }
}
