using System.Data.Common;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Execution.Calls;

/// <summary>The end of a call: its telemetry stopped, its command and connection given back.</summary>
internal partial struct CallLifecycle
{
    /// <summary>The call succeeded: outputs are read back into their <see cref="ParameterBag"/> and the telemetry stops.</summary>
    /// <param name="readBack">False when the caller stopped reading early (the outputs did not arrive).</param>
    public void Complete(bool readBack = true)
    {
        if (_completed)
            return;
        _completed = true;
        if (readBack && Request.Args is ParameterBag bag)
            bag.ReadBack();

        // A command the telemetry did not time (no listener) has nothing to stop. A statement whose print the binder took
        // (with a value: a detector follows it) is read from this call's fields by the telemetry, not passed to it (issue 42).
        if (_started != 0)
        {
            if (_print.Count > 0)
            {
                Pool.Telemetry.StatementCompleted(in this);
            }
            else
            {
                Pool.Telemetry.CommandCompleted(
                    _started, true, null, Request.Sql, Request.Args, ArgsCommand, Lease.Scope?.Slot, Lease.Hold, _print);
            }
        }
    }

    /// <summary>
    /// What <see cref="Diagnostics.PoolTelemetry.CommandStarting"/> returned for the call's command: 0 when nothing times it.
    /// </summary>
    public readonly long CommandStarted => _started;

    /// <summary>The arguments' print the binder took (<see cref="ArgumentPrint.Unknown"/> when it did not).</summary>
    public readonly ArgumentPrint Print => _print;

    /// <summary>
    /// The command for the telemetry's statement facts: null for a call without arguments (it bound no parameter, and a
    /// provider may make its parameter collection when asked for it, then bind it on every execution).
    /// </summary>
    private readonly DbCommand? ArgsCommand => Request.Args is null ? null : Command;

    /// <summary>The call failed with <paramref name="error"/> (null when its cause is reported elsewhere): the telemetry stops.</summary>
    public void Fail(Exception? error)
    {
        if (_completed)
            return;
        _completed = _failed = true;
        if (_started != 0)
        {
            Pool.Telemetry.CommandCompleted(
                _started, succeeded: false, error, Request.Sql, Request.Args, ArgsCommand, Lease.Scope?.Slot, Lease.Hold, _print);
        }
    }

    /// <summary>
    /// Gives the command and the connection back; when the provider still runs an abandoned operation
    /// (<paramref name="abandoned"/>, or the call's watch's), both go with it once it is done. The telemetry stops as failed
    /// if the call neither completed nor failed.
    /// </summary>
    public ValueTask EndAsync(bool async, Task? abandoned = null)
    {
        if (Shape == CallShape.TransactionEnd)
        {
            // The session keeps (or has discarded) its connection: only the watch ends here.
            Watch?.Dispose();
            return default;
        }

        if (!_completed)
            Fail(null);
        CallWatch? watch = Watch;
        abandoned ??= watch?.Abandoned;
        ConnectionSource source = Runner.Source;
        DbCommand? command = Command;
        try
        {
            if (command is not null && abandoned is null)
            {
                command.Parameters.Clear();
                if (Shape == CallShape.Buffered)
                    source.ReturnCommand(Lease, command, _failed);
                else
                    command.Dispose();
            }
        }
        finally
        {
            if (_blocking)
                BlockingCalls.Exit();
            watch?.Dispose();
        }

        if (abandoned is null)
            return source.ReleaseAsync(Lease, async, _failed);
        source.Abandon(Lease, command!, abandoned);
        return default;
    }
}
