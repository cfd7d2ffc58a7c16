using Microsoft.Data.Sqlite;
using Orseis.Diagnostics;

namespace Orseis.InstructionCount;

/// <summary>A row of the measured table.</summary>
public sealed class Item
{
    /// <summary>The key, 1..10.</summary>
    public long Id { get; set; }

    /// <summary>A short name.</summary>
    public string Name { get; set; } = "";

    /// <summary>An amount.</summary>
    public double Amount { get; set; }
}

/// <summary>
/// The databases one detector setting is measured on: an open-per-call database (for the per-call, scope and session
/// paths) and a ReuseConnection database, each over its own in-memory SQLite database of 10 rows, kept alive by a
/// connection of its own.
/// </summary>
internal sealed class Workload : IDisposable
{
    private readonly SqliteConnection _perCallKeeper;
    private readonly SqliteConnection _reuseKeeper;

    public Workload(string detectors)
    {
        (_perCallKeeper, string perCall) = Store("gate-" + detectors);
        (_reuseKeeper, string reuse) = Store("gate-reuse-" + detectors);
        PerCall = new Database(SqliteFactory.Instance, perCall, Options(detectors, ExecutionMode.OpenPerCall));
        Reuse = new Database(SqliteFactory.Instance, reuse, Options(detectors, ExecutionMode.ReuseConnection));
    }

    public Database PerCall { get; }

    public Database Reuse { get; }

    /// <summary>One call of <paramref name="op"/> on <paramref name="runner"/>, returning something to keep alive.</summary>
    public static object Call(string op, SqlRunner runner) => op switch
    {
        "Scalar" => runner.Scalar<long>("select 1"),
        "QuerySingle" => runner.QuerySingle<Item>("select id, name, amount from items where id = @Id", new { Id = 3 }),
        "Query10" => runner.Query<Item>("select id, name, amount from items order by id"),
        "Execute" => runner.Execute("update items set amount = @Amount where id = @Id", new { Id = 4, Amount = 2.5 }),
        _ => throw new ArgumentOutOfRangeException(nameof(op), op, "unknown call shape"),
    };

    public void Dispose()
    {
        PerCall.Dispose();
        Reuse.Dispose();
        _perCallKeeper.Dispose();
        _reuseKeeper.Dispose();
    }

    private static OrseisOptions Options(string detectors, ExecutionMode mode)
    {
        // Valgrind runs the calls about 50 times slower than the machine, so every window of time below would hold 50
        // times fewer calls than in a real run: a 2 ms idle window would give the scope's connection back between two
        // calls, a 10 ms churn gap would end a streak, a finding every 5 s would land inside some paths' calls and not
        // others. Stretched to seconds, each window behaves under valgrind as it does at full speed, and the count is
        // the per-call cost of the steady state; a finding is reported (once) during the warm-up, not counted. The churn
        // gap is stretched further, to minutes: between a path's warm-up and its measured calls the harness itself pauses
        // (full collections, the start of instrumentation) for longer than seconds under valgrind, which would end the
        // streak there and put the next streak's one-time work (reading the call site, the finding) inside the measured
        // calls, as no loop of calls without those pauses would.
        // A candidate repeated statement still running after a second is reported then: a scope's streak (never ended by a
        // pause) would report inside the measured calls (+40 B, +80 instructions a call on the scope paths); stretched too.
        AppContext.SetData("Orseis.RepeatedStatementStillRunning", TimeSpan.FromMinutes(10));
        var options = new OrseisOptions { Mode = mode, ScopeIdleWindow = TimeSpan.FromSeconds(5) };
        DiagnosticsOptions diagnostics = options.Diagnostics;
        diagnostics.Detectors = detectors == "AllButRepeats"
            ? FindingKind.All & ~FindingKind.RepeatedStatement
            : Enum.Parse<FindingKind>(detectors);
        diagnostics.HeldTooLongThreshold = TimeSpan.FromDays(1);
        diagnostics.FindingInterval = TimeSpan.FromDays(1);
        diagnostics.ChurnGap = TimeSpan.FromMinutes(10);
        diagnostics.RepeatedStatementGap = TimeSpan.FromMinutes(10); // likewise: a streak of repeats is not ended by the harness's pauses
        diagnostics.SlowOpenFloor = TimeSpan.FromSeconds(10);
        diagnostics.QueueWaitFloor = TimeSpan.FromSeconds(10);
        diagnostics.ThreadPoolDelayThreshold = TimeSpan.FromSeconds(10);
        return options;
    }

    private static (SqliteConnection Keeper, string ConnectionString) Store(string name)
    {
        string connectionString = $"Data Source=file:{name}?mode=memory&cache=shared";
        var keeper = new SqliteConnection(connectionString);
        keeper.Open();
        using SqliteCommand create = keeper.CreateCommand();
        create.CommandText = "create table items (id integer primary key, name text not null, amount real not null);"
                             + string.Concat(Enumerable.Range(1, 10).Select(i => $"insert into items values ({i}, 'item {i}', {i}.5);"));
        create.ExecuteNonQuery();
        return (keeper, connectionString);
    }
}
