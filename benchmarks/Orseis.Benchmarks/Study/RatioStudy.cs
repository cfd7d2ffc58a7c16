using System.Data.Common;
using System.Globalization;
using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// The 2014 study: N sequential <c>select 1</c> queries on one kept connection (reuse, the baseline) and with a pooled
/// connection opened and closed around each query (<see cref="OpenPerCall"/>), through Orseis
/// (<see cref="ExecutionMode.ReuseConnection"/> and <see cref="ExecutionMode.OpenPerCall"/> databases) and through raw
/// ADO.NET (a new command per query, on the kept connection or on one opened from the provider's data source). Also
/// open-per-call with <c>Pooling=false</c> (N ≤ <see cref="StudyCases.UnpooledMaxN"/>) and, where the provider has
/// one, without its pooled-connection reset (N ≤ <see cref="StudyCases.NoResetMaxN"/>); and Orseis' open per call inside a
/// <see cref="ConnectionScope"/> (<see cref="AdaptiveScope"/>) beside a session per N queries (<see cref="SessionPerUnit"/>).
/// Each benchmark measures one of
/// them against reuse, alternating the two call by call within the case, so each pair of timings is taken moments
/// apart. How it is measured: <see cref="StudyConfig"/>.
/// </summary>
[Config(typeof(StudyConfig))]
public class RatioStudy : StudyParameters
{
    private BenchDatabase? _database;
    private readonly List<IDisposable> _owned = [];
    private Func<long>? _reuse;
    private Func<long>? _perCall;
    private Func<long>? _unpooled;
    private Func<long>? _noReset;
    private Func<long>? _scoped;
    private Func<IDisposable>? _beginScope;
    private Func<long>? _inSession;
    private Func<IDisposable>? _openSession;
    private int _calls;

    /// <summary>Creates the variants of <see cref="StudyParameters.Library"/> and warms them (once per process).</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        if (Library == Orseis)
        {
            _reuse = OrseisQuery(_database.ConnectionString, ExecutionMode.ReuseConnection);
            _perCall = OrseisQuery(_database.ConnectionString, ExecutionMode.OpenPerCall);
            _unpooled = OrseisQuery(_database.Unpooled, ExecutionMode.OpenPerCall);
            _noReset = _database.NoResetOnClose is { } noReset ? OrseisQuery(noReset, ExecutionMode.OpenPerCall) : null;
            Database scoped = Own(new Database(_database.Factory, _database.ConnectionString));
            _scoped = () => scoped.Scalar<long>(Sql);
            _beginScope = scoped.BeginScope;
            Database sessions = Own(new Database(_database.Factory, _database.ConnectionString));
            Session? session = null;
            _inSession = () => session!.Scalar<long>(Sql);
            _openSession = () => session = sessions.OpenSession();
        }
        else
        {
            DbConnection open = Own(Own(_database.CreateDataSource(_database.ConnectionString)).OpenConnection());
            _reuse = () => Query(open);
            _perCall = AdoPerCall(_database.ConnectionString);
            _unpooled = AdoPerCall(_database.Unpooled);
            _noReset = _database.NoResetOnClose is { } noReset ? AdoPerCall(noReset) : null;
        }

        _calls = 0;
        StudyWarmup.Once($"{Library} {StudySizes.Reuse}", _reuse);
        StudyWarmup.Once($"{Library} {nameof(OpenPerCall)}", _perCall);
        if (_noReset is not null)
            StudyWarmup.Once($"{Library} {nameof(OpenPerCallNoResetOnClose)}", _noReset);
        if (_scoped is not null)
        {
            using (_beginScope!())
                StudyWarmup.Once($"{Library} {nameof(AdaptiveScope)}", _scoped);
            using (_openSession!())
                StudyWarmup.Once($"{Library} {nameof(SessionPerUnit)}", _inSession!);
        }
    }

    /// <summary>Disposes what the set-up created and the temporary database.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        for (int i = _owned.Count - 1; i >= 0; i--)
            _owned[i].Dispose();
        _owned.Clear();
        _database?.Dispose();
    }

    /// <summary>
    /// Open per call against reuse: the timed calls alternate between N queries on the kept connection and N queries
    /// each opening a pooled connection (<see cref="StudySizes.VariantFirst"/> says which goes first).
    /// </summary>
    [Benchmark]
    public long OpenPerCall() => Alternate(_perCall!, nameof(OpenPerCall));

    /// <summary>The same against a real connection per query (<c>Pooling=false</c>).</summary>
    [Benchmark]
    public long OpenPerCallUnpooled() => Alternate(_unpooled!, nameof(OpenPerCallUnpooled));

    /// <summary>PostgreSQL and the MySQL providers: the same against pooled connections that are not reset.</summary>
    [Benchmark]
    public long OpenPerCallNoResetOnClose() =>
        Alternate(_noReset ?? throw new InvalidOperationException("No Reset On Close exists only on PostgreSQL (No Reset On Close) and MySQL (Connection Reset=false)."), nameof(OpenPerCallNoResetOnClose));

    /// <summary>
    /// Orseis only: open-per-call code inside a <see cref="ConnectionScope"/> begun for each N queries (a unit of work of N
    /// calls), against reuse: back-to-back calls share the scope's parked connection.
    /// </summary>
    [Benchmark]
    public long AdaptiveScope() =>
        Alternate(_scoped ?? throw new InvalidOperationException("The adaptive scope is Orseis' own."), nameof(AdaptiveScope), _beginScope);

    /// <summary>
    /// Orseis only: the yardstick of <see cref="AdaptiveScope"/>, code rewritten to hold a <see cref="Session"/> for each N
    /// queries, against reuse.
    /// </summary>
    [Benchmark]
    public long SessionPerUnit() =>
        Alternate(_inSession ?? throw new InvalidOperationException("Sessions are Orseis' own."), nameof(SessionPerUnit), _openSession);

    /// <summary>
    /// Orseis only: the adaptive scope against the session directly, each call of one alternating with a call of the
    /// other (the session in the baseline's place). The study's scope/session column is this case's paired ratio: the
    /// ratio of <see cref="AdaptiveScope"/>'s and <see cref="SessionPerUnit"/>'s ratios to reuse divides two cases'
    /// baselines, which in some processes land in different speed modes (about 5 against 8.5 us for 8 queries at N = 8).
    /// </summary>
    [Benchmark]
    public long ScopeOverSession() =>
        Alternate(_scoped ?? throw new InvalidOperationException("The adaptive scope is Orseis' own."), nameof(ScopeOverSession), _beginScope,
            (_inSession!, _openSession));

    /// <summary>
    /// Calls <paramref name="variant"/> or the baseline, in turn: call i is the variant when i's parity says so. The
    /// variant's N queries run inside <paramref name="unit"/> when one is given; the baseline is reuse unless
    /// <paramref name="baseline"/> names another query and its unit.
    /// </summary>
    private long Alternate(Func<long> variant, string method, Func<IDisposable>? unit = null,
        (Func<long> Query, Func<IDisposable>? Unit)? baseline = null) =>
        StudySizes.IsVariantCall(_calls++, Round) ? Loop(variant, method, unit)
            : baseline is { } other ? Loop(other.Query, StudySizes.Reuse, other.Unit) : Loop(_reuse!, StudySizes.Reuse);

    /// <summary>N sequential queries (each N inside a new <paramref name="unit"/>, if given), repeated <see cref="StudySizes.Batches"/> times.</summary>
    private long Loop(Func<long> query, string mode, Func<IDisposable>? unit = null)
    {
        long sum = 0;
        for (int batch = StudySizes.Batches(mode, N); batch > 0; batch--)
        {
            using (unit?.Invoke())
            {
                for (int i = 0; i < N; i++)
                    sum += query();
            }
        }

        return sum;
    }

    private Func<long> OrseisQuery(string connectionString, ExecutionMode mode)
    {
        Database database = Own(new Database(_database!.Factory, connectionString, new OrseisOptions { Mode = mode }));
        return () => database.Scalar<long>(Sql);
    }

    private Func<long> AdoPerCall(string connectionString)
    {
        DbDataSource source = Own(_database!.CreateDataSource(connectionString));
        return () =>
        {
            using DbConnection connection = source.OpenConnection();
            return Query(connection);
        };
    }

    private T Own<T>(T disposable)
        where T : IDisposable
    {
        _owned.Add(disposable);
        return disposable;
    }

    private static long Query(DbConnection connection)
    {
        using DbCommand command = connection.CreateCommand();
        command.CommandText = Sql;
        return Convert.ToInt64(command.ExecuteScalar(), CultureInfo.InvariantCulture);
    }
}
