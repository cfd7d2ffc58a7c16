using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Diagnostics;

/// <summary>A SQLite file with a table, and databases over it named uniquely so listeners can filter on the pool name.</summary>
public abstract class DiagTest : IDisposable
{
    protected DiagTest()
    {
        using Database setup = File.Open();
        setup.Execute("create table items (id integer primary key, name text not null)");
        setup.Execute("insert into items (id, name) values (1, 'one'), (2, 'two'), (3, 'three')");
    }

    protected SqliteFile File { get; } = new();

    protected string Pool { get; } = "test-" + Guid.NewGuid().ToString("N")[..8];

    protected Database Open(ExecutionMode mode = ExecutionMode.OpenPerCall, Action<DiagnosticsOptions>? diagnostics = null) =>
        File.Open(mode, o =>
        {
            o.PoolName = Pool;
            diagnostics?.Invoke(o.Diagnostics);
        });

    /// <summary>A database over <see cref="TestDataSource"/> advertising <paramref name="poolSettings"/> in its connection string.</summary>
    protected (Database Db, TestDataSource Source) OpenTest(string poolSettings = "", Action<DiagnosticsOptions>? diagnostics = null)
    {
        var source = new TestDataSource(File.ConnectionString, "Data Source=test.db;" + poolSettings);
        var options = new OrseisOptions { PoolName = Pool };
        diagnostics?.Invoke(options.Diagnostics);
        return (new Database(source, options), source);
    }

    public virtual void Dispose()
    {
        File.Dispose();
        GC.SuppressFinalize(this);
    }
}
