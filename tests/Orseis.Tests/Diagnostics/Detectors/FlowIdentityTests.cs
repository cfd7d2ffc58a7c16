using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// The caller's flow, as an open is told it: each pool's own, the same across the calls of one context, gone with a child
/// context that made it, and a thread's own where the caller's context does not come along. What any faster read of the
/// flow (a cache, a mirror of its <see cref="AsyncLocal{T}"/>) must give, whatever other pools, child contexts and threads
/// did on the thread before (docs/results/overhead/2026-12-01-scope-and-session.md).
/// </summary>
public sealed class FlowIdentityTests
{
    private static PoolTelemetry Pool(Fake fake) => new("pool", "sqlite", null, fake.Options);

    /// <summary>The flow an open of <paramref name="telemetry"/> is told, as a call makes it (enter, then open).</summary>
    private static FlowState Flow(PoolTelemetry telemetry)
    {
        telemetry.EnterFlow();
        OpenStart start = telemetry.OpenStarting(async: false);
        telemetry.OpenFailed(start, new OpenFailure(new OperationCanceledException(), OpenTimeout.None, Cancelled: true, BrokeWhileOpening: false));
        return Assert.IsType<FlowState>(start.Flow);
    }

    [Fact]
    public void Two_pools_in_one_flow_each_keep_their_own_flow_across_calls_of_the_other()
    {
        var fake = new Fake(o => o.Detectors = FindingKind.Churn);
        using PoolTelemetry first = Pool(fake);
        using PoolTelemetry second = Pool(fake);

        FlowState a = Flow(first);
        FlowState b = Flow(second);
        Assert.NotSame(a, b);
        for (int i = 0; i < 3; i++)
        {
            Assert.Same(a, Flow(first));
            Assert.Same(b, Flow(second));
        }
    }

    [Fact]
    public async Task A_flow_set_in_a_child_context_is_gone_when_the_child_returns()
    {
        var fake = new Fake(o => o.Detectors = FindingKind.Churn);
        using PoolTelemetry telemetry = Pool(fake);

        // Made inside an async method (its context is the child's): the caller's context never had it.
        FlowState child = await InChild(telemetry);
        FlowState parent = Flow(telemetry);
        Assert.NotSame(child, parent);
        Assert.Same(parent, Flow(telemetry));

        // A child that inherits the caller's flow sees it, and one that yields first too.
        Assert.Same(parent, await InChild(telemetry));
        Assert.Same(parent, await Task.Run(() => Flow(telemetry)));
        Assert.Same(parent, Flow(telemetry));

        static async Task<FlowState> InChild(PoolTelemetry telemetry)
        {
            FlowState flow = Flow(telemetry);
            await Task.Yield();
            Assert.Same(flow, Flow(telemetry)); // after the switch of thread and context
            return flow;
        }
    }

    [Fact]
    public void A_thread_without_the_callers_context_has_a_flow_of_its_own_and_the_caller_keeps_its()
    {
        var fake = new Fake(o => o.Detectors = FindingKind.Churn);
        using PoolTelemetry telemetry = Pool(fake);
        FlowState caller = Flow(telemetry);

        FlowState? other = null;
        FlowState? otherAgain = null;
        var thread = new Thread(() =>
        {
            other = Flow(telemetry);
            otherAgain = Flow(telemetry);
        });
        thread.UnsafeStart(); // the caller's context does not come along
        thread.Join();

        Assert.NotNull(other);
        Assert.NotSame(caller, other);
        Assert.Same(other, otherAgain);
        Assert.Same(caller, Flow(telemetry));

        // The same on a pool thread that ran another context's work just before.
        FlowState? pooled = null;
        using var done = new ManualResetEventSlim();
        ThreadPool.UnsafeQueueUserWorkItem(_ =>
        {
            pooled = Flow(telemetry);
            done.Set();
        }, null);
        done.Wait();
        Assert.NotSame(caller, pooled);
    }
}
