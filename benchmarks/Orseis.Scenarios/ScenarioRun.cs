using System.Diagnostics;
using System.Runtime.CompilerServices;
using MySqlConnector;
using Orseis.Diagnostics;

namespace Orseis.Scenarios;

/// <summary>
/// What a scenario gets: databases opened as a user would (FindingKind.All, default settings unless the scenario says
/// otherwise), all reported on at the end, a cancellation token that ends it in time, and the clock its time to detect
/// is read on. The load starts when the run is made (just before the scenario's body), or once the pool is warm when
/// the body warms one (<see cref="WarmAsync"/>: warming is the set-up, not the load); the onset is the load's start
/// unless the body marks the moment its pathology begins (<see cref="MarkOnset"/>); each finding arrives when its
/// database publishes it (<see cref="FindingArrivals"/>).
/// </summary>
internal sealed class ScenarioRun(CancellationToken stop)
{
    private static readonly ConditionalWeakTable<Database, ScenarioRun> Runs = new();
    private readonly List<Database> _databases = [];
    private readonly long _created = Stopwatch.GetTimestamp();
    private long _warmed;
    private long _onset;
    private int _connectTimeouts;

    /// <summary>The run of this process (a scenario runs in a process of its own), for the burst helpers that note what their calls saw.</summary>
    public static ScenarioRun? Current { get; set; }

    public CancellationToken Stop { get; } = stop;

    /// <summary>How many of the workers' calls failed because the provider timed out making a new connection.</summary>
    public int ConnectTimeouts => Volatile.Read(ref _connectTimeouts);

    /// <summary>
    /// Runs <paramref name="call"/>; a connect that timed out (the provider's, as Orseis tells it:
    /// <see cref="PoolExhaustedException"/> "the provider timed out making a new connection") is noted on the current run
    /// and not thrown: ground truth for <see cref="Scenario.WhenConnectsTimedOut"/>. Returns whether the call succeeded.
    /// </summary>
    public static async Task<bool> NotingConnectTimeoutsAsync(Func<Task> call)
    {
        try
        {
            await call();
            return true;
        }
        catch (PoolExhaustedException e) when (IsConnectTimeout(e))
        {
            if (Current is { } run)
                Interlocked.Increment(ref run._connectTimeouts);
            return false;
        }
    }

    /// <summary>The same for a synchronous call.</summary>
    public static bool NotingConnectTimeouts(Action call)
    {
        try
        {
            call();
            return true;
        }
        catch (PoolExhaustedException e) when (IsConnectTimeout(e))
        {
            if (Current is { } run)
                Interlocked.Increment(ref run._connectTimeouts);
            return false;
        }
    }

    private static bool IsConnectTimeout(PoolExhaustedException e) =>
        e.Message.Contains("the provider timed out making a new connection", StringComparison.Ordinal);

    /// <summary>Every finding of this run's databases, as it arrives.</summary>
    public FindingArrivals Arrivals { get; } = new();

    /// <summary>
    /// Marks now as the onset: the moment the pathology begins (the burst is released, the server paused, the session
    /// leaked), which is what a finding's time to detect is measured from. The first mark counts; without one, the
    /// onset is the load's start.
    /// </summary>
    public void MarkOnset() => Interlocked.CompareExchange(ref _onset, Stopwatch.GetTimestamp(), 0);

    /// <summary>How the onset was defined: "marked" by the body, "after warm-up" or "load start".</summary>
    public string OnsetDefinition =>
        Interlocked.Read(ref _onset) != 0 ? "marked" : Interlocked.Read(ref _warmed) != 0 ? "after warm-up" : "load start";

    /// <summary>The onset (a <see cref="Stopwatch"/> timestamp): the mark, or the load's start.</summary>
    public long Onset =>
        Interlocked.Read(ref _onset) is var marked and not 0 ? marked : Interlocked.Read(ref _warmed) is var warmed and not 0 ? warmed : _created;

    /// <summary>Seconds from the run's making to the onset.</summary>
    public double OnsetSeconds => Stopwatch.GetElapsedTime(_created, Onset).TotalSeconds;

    /// <summary>A database over MySqlConnector with every detector on; <paramref name="settings"/> are added to the connection string.</summary>
    public Database Open(string settings = "", Action<DiagnosticsOptions>? configure = null, ExecutionMode mode = ExecutionMode.OpenPerCall) =>
        Track(new Database(MySqlConnectorFactory.Instance, Server.With(settings), Options(configure, mode)));

    /// <summary>The same over Oracle's MySql.Data (no pool meter: the detectors see only what Orseis measures).</summary>
    public Database OpenMySqlData(string settings = "", Action<DiagnosticsOptions>? configure = null)
    {
        string cs = Orseis.Testing.MySqlDataOnMariaDb.ConnectionString(Server.ConnectionString.TrimEnd(';') + ";" + settings, connectionReset: true);
        return Track(new Database(MySql.Data.MySqlClient.MySqlClientFactory.Instance, cs, Options(configure, ExecutionMode.OpenPerCall)));
    }

    public IReadOnlyList<Database> Databases => _databases;

    private OrseisOptions Options(Action<DiagnosticsOptions>? configure, ExecutionMode mode)
    {
        var options = new OrseisOptions { Mode = mode };
        options.Diagnostics.Detectors = FindingKind.All;
        options.Diagnostics.Logger = Arrivals;
        configure?.Invoke(options.Diagnostics);
        return options;
    }

    private Database Track(Database db)
    {
        _databases.Add(db);
        Runs.AddOrUpdate(db, this);
        return db;
    }

    /// <summary>
    /// Opens <paramref name="count"/> connections at once and gives them back: a warm pool of that size. Done in a task
    /// of its own, as a host warms its pool at startup: the scenario's own flow makes no call, so the callers it starts
    /// afterwards are separate flows, as requests are in a server. The load starts when it is done (the last warm-up's end).
    /// </summary>
    public static Task WarmAsync(Database db, int count) => Task.Run(async () =>
    {
        var sessions = await Task.WhenAll(Enumerable.Range(0, count).Select(_ => db.OpenSessionAsync()));
        foreach (Session s in sessions)
            await s.DisposeAsync();
        if (Runs.TryGetValue(db, out ScenarioRun? run))
            Interlocked.Exchange(ref run._warmed, Stopwatch.GetTimestamp());
    });

    /// <summary>Runs <paramref name="work"/> on <paramref name="callers"/> concurrent callers until <paramref name="duration"/> has passed.</summary>
    public static Task ForAsync(int callers, TimeSpan duration, Func<int, Task> work)
    {
        DateTime end = DateTime.UtcNow + duration;
        return Task.WhenAll(Enumerable.Range(0, callers).Select(i => Task.Run(async () =>
        {
            while (DateTime.UtcNow < end)
                await work(i);
        })));
    }
}
