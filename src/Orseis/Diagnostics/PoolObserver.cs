namespace Orseis.Diagnostics;

/// <summary>
/// A detector as <see cref="PoolTelemetry"/> sees it: the facts of each step of a call, recorded once by the telemetry and
/// handed to every observer that <see cref="PoolObservers"/> registered for the pool's
/// <see cref="DiagnosticsOptions.Detectors"/>, in the order registered. A method does nothing unless the observer
/// overrides it. A class, not an interface: a step's call site sees several detector types, and a virtual call there
/// costs a table lookup where an interface call went through the runtime's resolve stub (the largest part of the
/// detectors' cost per open-per-call call). They run on the caller's thread, on every open, release or failure while a
/// detector is on: none may allocate on its common path, and whatever one throws is caught (diagnostics never change
/// what a query does). A release of a timed hold is told whatever the detectors, and so is <see cref="Describe"/>.
/// </summary>
internal abstract class PoolObserver
{
    /// <summary>
    /// The facts this observer hears: each one whose method it overrides, declared rather than found by reflection (so a
    /// trimmed app dispatches the same). <see cref="PoolObservers"/> hands each fact only to those that declare it; a test
    /// proves every declaration equals the methods its type overrides.
    /// </summary>
    public abstract HeardFacts Hears { get; }

    /// <summary>A caller entered Open (on its own stack, before anything is awaited).</summary>
    public virtual void OnOpenStarting(in OpenStart start)
    {
    }

    /// <summary>An open completed with a connection.</summary>
    public virtual void OnOpenCompleted(in CompletedOpen open)
    {
    }

    /// <summary>An open failed, or was cancelled or abandoned.</summary>
    public virtual void OnOpenFailed(in FailedOpen open)
    {
    }

    /// <summary>A connection was handed to its holder.</summary>
    public virtual void OnAcquired(in Acquire acquire)
    {
    }

    /// <summary>A connection went back to the pool.</summary>
    public virtual void OnReleased(in Release release)
    {
    }

    /// <summary>A statement failed.</summary>
    public virtual void OnCommandFailed(in CommandFailure failure)
    {
    }

    /// <summary>A statement is about to start, on the caller's stack: heard only while a call site is wanted.</summary>
    public virtual void OnStatementStarting(in Detectors.StatementStart start)
    {
    }

    /// <summary>A statement ended, in a unit of work (heard only while an observer needs <see cref="CostlyFacts.Statements"/>).</summary>
    public virtual void OnStatementEnded(in Detectors.StatementRun run)
    {
    }

    /// <summary>A <see cref="ConnectionScope"/> whose statements were followed ended (in its own flow).</summary>
    public virtual void OnUnitEnded(Detectors.StatementRepeats unit)
    {
    }

    /// <summary>
    /// Whether this observer only writes for a trace (<see cref="FactRecorder"/>): it hears the steps only while the Orseis
    /// EventSource has a session, so a pool nobody traces never calls it.
    /// </summary>
    public virtual bool OnlyWhileTraced => false;

    /// <summary>A report is being made: write what this observer measured (once per report, never on a call's path).</summary>
    public virtual void Describe(ReportFigures figures)
    {
    }
}

/// <summary>The facts a <see cref="PoolObserver"/> hears (<see cref="PoolObserver.Hears"/>): one per method it may override.</summary>
[Flags]
internal enum HeardFacts
{
    /// <summary>None: the observer only describes itself in reports.</summary>
    None = 0,

    /// <summary><see cref="PoolObserver.OnOpenStarting"/>.</summary>
    OpenStarting = 1,

    /// <summary><see cref="PoolObserver.OnOpenCompleted"/>.</summary>
    OpenCompleted = 2,

    /// <summary><see cref="PoolObserver.OnOpenFailed"/>.</summary>
    OpenFailed = 4,

    /// <summary><see cref="PoolObserver.OnAcquired"/>.</summary>
    Acquired = 8,

    /// <summary><see cref="PoolObserver.OnReleased"/>.</summary>
    Released = 16,

    /// <summary><see cref="PoolObserver.OnCommandFailed"/>.</summary>
    CommandFailed = 32,

    /// <summary><see cref="PoolObserver.OnStatementStarting"/>.</summary>
    StatementStarting = 64,

    /// <summary><see cref="PoolObserver.OnStatementEnded"/>.</summary>
    StatementEnded = 128,

    /// <summary><see cref="PoolObserver.OnUnitEnded"/>.</summary>
    UnitEnded = 256,
}
