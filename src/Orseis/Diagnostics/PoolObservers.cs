using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>
/// The observers of one pool, made from its <see cref="DiagnosticsOptions.Detectors"/>: one line per detector in
/// <see cref="Table"/>, saying which detectors turn it on, which of the facts that cost something to record it needs
/// (<see cref="CostlyFacts"/>), and how it is made. A new detector is a class under <c>Detectors/</c> that derives from
/// <see cref="PoolObserver"/>, and a line here. The table's order is the order in which they hear each fact, and so the
/// order of the findings one step may raise. Each fact goes only to the observers that declare they hear it
/// (<see cref="PoolObserver.Hears"/>), so a call pays for the detectors that listen to its step, not for all.
/// </summary>
internal sealed class PoolObservers
{
    /// <summary>On whatever the detectors, even none: the report's pool-size advice and hold times.</summary>
    private const FindingKind Always = FindingKind.None;

    /// <summary>On as soon as any detector is.</summary>
    private const FindingKind AnyDetector = FindingKind.All;

    private static readonly Entry[] Table =
    [
        // First: writes each fact as the detectors are about to hear it (a finding one raises takes time, and would
        // otherwise put a later fact of another thread first), for a replay offline, only while a session asks for them.
        new(AnyDetector, CostlyFacts.None, static p => new FactRecorder(p)),
        // Counts queued opens for the report and the advice whatever detector is on; reports only for its own.
        new(AnyDetector, CostlyFacts.None, static p => new SaturationDetector(p.Log, p.MaxPoolSize, p.Reports(FindingKind.Saturation))),
        new(FindingKind.SlowOpen, CostlyFacts.ThreadPoolDelay, static p => new SlowOpenDetector(p.Log, p.Connects, p.ProviderPool)),
        // A first wave is summed up from its physical connects: where none can be known (SQLite, an unknown provider) it
        // never has any to report, and its opens would only pay for following it.
        new(FindingKind.SlowOpen, CostlyFacts.FirstWave | CostlyFacts.ThreadPoolDelay,
            static p => new ColdStarts(p.Log, p.Connects, maxPoolSize: p.MaxPoolSize),
            static p => p.Connects != ConnectCount.None),
        new(FindingKind.Churn, CostlyFacts.Flow, static p => new ChurnDetector(p.Log)),
        new(FindingKind.Churn, CostlyFacts.Flow, static p => new FactRecorder.ChurnSites(p.Log)),
        new(FindingKind.ServerUnavailable, CostlyFacts.None, static p => new ServerUnavailableDetector(p.Log, p.Connects)),
        new(FindingKind.PoolTimeout, CostlyFacts.None, static p => new PoolTimeoutDetector(p.Log)),
        new(FindingKind.HeldTooLong, CostlyFacts.AcquirerStack, static p => new HeldTooLongDetector(p.Log, p.Holders)),
        new(FindingKind.RepeatedStatement, CostlyFacts.Flow | CostlyFacts.Statements, static p => new RepeatedStatementDetector(p.Log)),
        new(FindingKind.LockConflicts, CostlyFacts.None, static p => new LockConflictDetector(p.Log, p.Log.Time)),
        new(FindingKind.ThreadPoolStarvation, CostlyFacts.None,
            static p => ThreadPoolStarvationDetector.Subscribed(p.Log, p.BlockingAsyncProvider)),
        // Last of the detectors: it advises from what the others describe.
        new(Always, CostlyFacts.None,
            static p => new PoolSizeAdvisor(p.Log, p.MaxPoolSize, p.Reports(FindingKind.PoolSize), holders: p.Holders)),
    ];

    private PoolObservers(List<PoolObserver> observers, CostlyFacts needs)
    {
        All = [.. observers];
        Needs = needs;
        Traced = new Steps(observers);
        var quiet = new List<PoolObserver>(observers.Count);
        foreach (PoolObserver observer in observers)
        {
            if (!observer.OnlyWhileTraced)
                quiet.Add(observer);
        }

        Quiet = new Steps(quiet);
    }

    /// <summary>The steps' observers while the Orseis EventSource has a session, those that only write for it included.</summary>
    internal Steps Traced { get; }

    /// <summary>The steps' observers while it has none: a pool nobody traces does not call those at all.</summary>
    internal Steps Quiet { get; }

    private Steps Current => OrseisEventSource.Log.IsEnabled() ? Traced : Quiet;

    /// <summary>Every observer, in table order: each describes itself in a report, and is disposed with the pool.</summary>
    public PoolObserver[] All { get; }

    /// <summary>The costly facts some observer needs.</summary>
    public CostlyFacts Needs { get; }

    /// <summary>Those that hear <see cref="PoolObserver.OnOpenStarting"/> now.</summary>
    public PoolObserver[] OpenStarting => Current.OpenStarting;

    /// <summary>Those that hear <see cref="PoolObserver.OnOpenCompleted"/> now.</summary>
    public PoolObserver[] OpenCompleted => Current.OpenCompleted;

    /// <summary>Those that hear <see cref="PoolObserver.OnOpenFailed"/> now.</summary>
    public PoolObserver[] OpenFailed => Current.OpenFailed;

    /// <summary>Those that hear <see cref="PoolObserver.OnAcquired"/> now.</summary>
    public PoolObserver[] Acquired => Current.Acquired;

    /// <summary>Those that hear <see cref="PoolObserver.OnReleased"/> now.</summary>
    public PoolObserver[] Released => Current.Released;

    /// <summary>Those that hear <see cref="PoolObserver.OnCommandFailed"/> now.</summary>
    public PoolObserver[] CommandFailed => Current.CommandFailed;

    /// <summary>Those that hear <see cref="PoolObserver.OnStatementStarting"/> now.</summary>
    public PoolObserver[] StatementStarting => Current.StatementStarting;

    /// <summary>Those that hear <see cref="PoolObserver.OnStatementEnded"/> now.</summary>
    public PoolObserver[] StatementEnded => Current.StatementEnded;

    /// <summary>Those that hear <see cref="PoolObserver.OnUnitEnded"/> now.</summary>
    public PoolObserver[] UnitEnded => Current.UnitEnded;

    /// <summary>The observers <paramref name="context"/>'s detectors turn on, in table order.</summary>
    public static PoolObservers For(ObserverContext context)
    {
        var observers = new List<PoolObserver>(Table.Length);
        CostlyFacts needs = CostlyFacts.None;
        FindingKind detectors = context.Detectors;
        foreach (Entry entry in Table)
        {
            if ((entry.On != Always && (detectors & entry.On) == 0) || entry.AppliesTo?.Invoke(context) == false)
                continue;
            observers.Add(entry.Create(context));
            needs |= entry.Needs;
        }

        return new PoolObservers(observers, needs);
    }

    /// <summary>The observers that declare they hear <paramref name="fact"/>, in table order.</summary>
    /// <remarks>Loops rather than LINQ, and <see cref="Entry"/> has fields rather than properties: every database makes its
    /// observers, and each lambda or property read here is a method the JIT compiles at the process's start (issue 44).</remarks>
    private static PoolObserver[] Hearing(List<PoolObserver> observers, HeardFacts fact)
    {
        var hearing = new List<PoolObserver>(observers.Count);
        foreach (PoolObserver observer in observers)
        {
            if ((observer.Hears & fact) != 0)
                hearing.Add(observer);
        }

        return hearing.ToArray();
    }

    /// <summary>Each step's observers, in table order: those that declare its fact (<see cref="PoolObserver.Hears"/>).</summary>
    internal sealed class Steps(List<PoolObserver> observers)
    {
        public PoolObserver[] OpenStarting { get; } = Hearing(observers, HeardFacts.OpenStarting);

        public PoolObserver[] OpenCompleted { get; } = Hearing(observers, HeardFacts.OpenCompleted);

        public PoolObserver[] OpenFailed { get; } = Hearing(observers, HeardFacts.OpenFailed);

        public PoolObserver[] Acquired { get; } = Hearing(observers, HeardFacts.Acquired);

        public PoolObserver[] Released { get; } = Hearing(observers, HeardFacts.Released);

        public PoolObserver[] CommandFailed { get; } = Hearing(observers, HeardFacts.CommandFailed);

        public PoolObserver[] StatementStarting { get; } = Hearing(observers, HeardFacts.StatementStarting);

        public PoolObserver[] StatementEnded { get; } = Hearing(observers, HeardFacts.StatementEnded);

        public PoolObserver[] UnitEnded { get; } = Hearing(observers, HeardFacts.UnitEnded);
    }

    /// <summary>A line of the table; <paramref name="appliesTo"/>, when given, says whether the pool can use the observer at all.</summary>
    private sealed class Entry(
        FindingKind on, CostlyFacts needs, Func<ObserverContext, PoolObserver> create, Func<ObserverContext, bool>? appliesTo = null)
    {
        public readonly FindingKind On = on;
        public readonly CostlyFacts Needs = needs;
        public readonly Func<ObserverContext, PoolObserver> Create = create;
        public readonly Func<ObserverContext, bool>? AppliesTo = appliesTo;
    }
}

/// <summary>
/// Facts that cost something to record on every call (an object per flow, a clock comparison, a stack), recorded only
/// while an observer needs them.
/// </summary>
[Flags]
internal enum CostlyFacts
{
    /// <summary>None of them.</summary>
    None = 0,

    /// <summary>The caller's logical flow (<see cref="OpenStart.Flow"/>), created as a call enters.</summary>
    Flow = 1,

    /// <summary>Whether an open belongs to a first wave of connects (<see cref="OpenStart.FirstWave"/>).</summary>
    FirstWave = 2,

    /// <summary>How late the thread pool ran work during a slow open (<see cref="CompletedOpen.ThreadPoolDelay"/>).</summary>
    ThreadPoolDelay = 4,

    /// <summary>The stack of a caller that holds a connection across calls (<see cref="PoolTelemetry.CaptureAcquirer"/>).</summary>
    AcquirerStack = 8,

    /// <summary>Each statement's end, with its unit of work and a timestamp at its start (<see cref="StatementRun"/>).</summary>
    Statements = 16,
}

/// <summary>What an observer is made with: the pool's finding log and what the telemetry knows of the pool.</summary>
/// <param name="Log">Where findings go; its options and clock are the pool's.</param>
/// <param name="MaxPoolSize">The pool's Max Pool Size, when known.</param>
/// <param name="Holders">Who holds the pool's connections now.</param>
/// <param name="Connects">How the pool's physical connects are known.</param>
/// <param name="ProviderPool">The provider's own pool counts, when it publishes them.</param>
/// <param name="BlockingAsyncProvider">The provider's name when its async methods block (MySql.Data), else null.</param>
internal sealed record ObserverContext(
    FindingLog Log, int? MaxPoolSize, HolderTable Holders, ConnectCount Connects, ProviderPoolStats? ProviderPool,
    string? BlockingAsyncProvider)
{
    /// <summary>The detectors turned on.</summary>
    public FindingKind Detectors => Log.Options.Detectors;

    /// <summary>Whether <paramref name="kind"/>'s findings are reported (an observer may measure for others without).</summary>
    public bool Reports(FindingKind kind) => (Detectors & kind) != 0;
}
