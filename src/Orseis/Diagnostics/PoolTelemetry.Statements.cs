using System.Diagnostics;
using System.Runtime.CompilerServices;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>The end of a statement whose arguments' print the binder took: the repeated-statement detector's steady path.</summary>
internal sealed partial class PoolTelemetry
{
    /// <summary>
    /// <paramref name="call"/>'s statement succeeded, with arguments whose print the binder took
    /// (<see cref="CallLifecycle.Print"/>, at least one value) and timed by <see cref="CommandStarting"/>: what
    /// <see cref="CommandCompleted"/> does for it, read from the call's own fields rather than passed through frames
    /// (<see cref="CallLifecycle.Complete"/>, <see cref="CommandCompleted"/>, <see cref="StatementEnded"/>,
    /// <see cref="RepeatedStatementDetector.Ended"/>: issue 42), the detector's update inlined here when it is the only
    /// observer of statements (<see cref="RepeatedStatementDetector.Ran"/>).
    /// </summary>
    /// <param name="call">The call, its statement completed.</param>
    public void StatementCompleted(in CallLifecycle call)
    {
        long started = call.CommandStarted;
        long now = Now();
        string sql = call.Request.Sql;
        ScopeSlot? scope = call.Lease.Scope?.Slot;
        FlowState? flow = scope is null ? FlowOf(call.Lease.Hold) : null;
        if (_statementObserver is { } only)
        {
            try
            {
                only.Ran(sql, scope, flow, started, now, succeeded: true, (int)call.Print.Hash);
            }
            catch (Exception)
            {
            }
        }
        else
        {
            Tell<StatementRun, StatementEndedStep>(
                _observers.StatementEnded, new StatementRun(sql, call.Command, scope, flow, started, now, true));
        }

        if (_duration.Enabled || EventsOn)
            CommandTimed(Elapsed(started, now), true, null, sql, call.Request.Args);
    }

    /// <summary>
    /// The pool's clock now: <see cref="Stopwatch.GetTimestamp"/> itself for <see cref="TimeProvider.System"/> (what its
    /// <see cref="TimeProvider.GetTimestamp"/> returns, without the virtual call), else the options' provider.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private long Now() => ReferenceEquals(_time, TimeProvider.System) ? Stopwatch.GetTimestamp() : _time.GetTimestamp();
}
