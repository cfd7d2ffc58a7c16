namespace Orseis.Tests.Infrastructure;

/// <summary>The three ways of running the same calls: open-per-call, a reuse-connection database, a session.</summary>
public enum RunnerKind
{
    OpenPerCall,
    ReuseConnection,
    Session,
}

/// <summary>A SQLite file with a seeded table, and a runner of the requested kind over it.</summary>
public sealed class SeededDatabase : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly Session? _session;

    public SeededDatabase(RunnerKind kind, Action<OrseisOptions>? configure = null)
    {
        Database = _file.Open(kind == RunnerKind.ReuseConnection ? ExecutionMode.ReuseConnection : ExecutionMode.OpenPerCall, configure);
        Database.Execute("create table people (id integer primary key, name text not null, age integer, created_at text)");
        for (int i = 1; i <= 5; i++)
            Database.Execute("insert into people (id, name, age, created_at) values (@id, @name, @age, @created)", new { id = i, name = "person " + i, age = i == 5 ? (int?)null : 20 + i, created = "2024-01-0" + i });
        if (kind == RunnerKind.Session)
            _session = Database.OpenSession();
        Runner = _session ?? (SqlRunner)Database;
    }

    public Database Database { get; }

    public SqlRunner Runner { get; }

    public string Path => _file.Path;

    public void Dispose()
    {
        _session?.Dispose();
        Database.Dispose();
        _file.Dispose();
    }

    public static TheoryData<RunnerKind> AllKinds => new() { RunnerKind.OpenPerCall, RunnerKind.ReuseConnection, RunnerKind.Session };
}

public sealed class Person
{
    public long Id { get; set; }

    public string Name { get; set; } = "";

    public int? Age { get; set; }
}

public sealed record PersonRecord(long Id, string Name, int? Age);
