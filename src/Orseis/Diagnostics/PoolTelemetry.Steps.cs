using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>
/// The observer steps, one struct per fact: <see cref="Tell{TFact, TStep}"/> is compiled once per step, so each call in
/// its loop is a plain virtual call on <see cref="PoolObserver"/>, with no delegate between.
/// </summary>
internal sealed partial class PoolTelemetry
{
    /// <summary>Hands one fact to one observer.</summary>
    private interface IStep<TFact>
        where TFact : struct
    {
        void Tell(PoolObserver observer, in TFact fact);
    }

    private readonly struct OpenStartingStep : IStep<OpenStart>
    {
        public void Tell(PoolObserver observer, in OpenStart fact) => observer.OnOpenStarting(fact);
    }

    private readonly struct OpenCompletedStep : IStep<CompletedOpen>
    {
        public void Tell(PoolObserver observer, in CompletedOpen fact) => observer.OnOpenCompleted(fact);
    }

    private readonly struct OpenFailedStep : IStep<FailedOpen>
    {
        public void Tell(PoolObserver observer, in FailedOpen fact) => observer.OnOpenFailed(fact);
    }

    private readonly struct AcquiredStep : IStep<Acquire>
    {
        public void Tell(PoolObserver observer, in Acquire fact) => observer.OnAcquired(fact);
    }

    private readonly struct ReleasedStep : IStep<Release>
    {
        public void Tell(PoolObserver observer, in Release fact) => observer.OnReleased(fact);
    }

    private readonly struct StatementStartingStep : IStep<StatementStart>
    {
        public void Tell(PoolObserver observer, in StatementStart fact) => observer.OnStatementStarting(fact);
    }

    private readonly struct StatementEndedStep : IStep<StatementRun>
    {
        public void Tell(PoolObserver observer, in StatementRun fact) => observer.OnStatementEnded(fact);
    }

    private readonly struct CommandFailedStep : IStep<CommandFailure>
    {
        public void Tell(PoolObserver observer, in CommandFailure fact) => observer.OnCommandFailed(fact);
    }
}
