using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// The caller's flow as an entry point reads it (<see cref="PoolTelemetry.EnterFlow"/>) is handed to the open, which does
/// not read the <see cref="AsyncLocal{T}"/> again: the open must be told the flow it would have read, whether the call is
/// sync or async, made from a child context or another thread, in a scope or not
/// (docs/results/overhead/2026-12-01b-flow-and-facts.md).
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class HandedFlowTests : DiagTest
{
    [Fact]
    public void The_flow_entered_is_the_one_an_open_reads_by_itself()
    {
        var fake = new Fake(o => o.Detectors = FindingKind.Churn);
        using var telemetry = new PoolTelemetry("pool", "sqlite", null, fake.Options);

        FlowState entered = Assert.IsType<FlowState>(telemetry.EnterFlow());
        Assert.Same(entered, telemetry.EnterFlow());
        OpenStart start = telemetry.OpenStarting(async: false);
        Assert.Same(entered, start.Flow);
        telemetry.OpenFailed(start, new OpenFailure(new OperationCanceledException(), OpenTimeout.None, Cancelled: true, BrokeWhileOpening: false));
    }

    [Fact]
    public void No_flow_is_entered_while_no_detector_follows_flows()
    {
        var fake = new Fake(o => o.Detectors = FindingKind.HeldTooLong);
        using var telemetry = new PoolTelemetry("pool", "sqlite", null, fake.Options);

        Assert.Null(telemetry.EnterFlow());
        OpenStart start = telemetry.OpenStarting(async: false, new FlowState());
        Assert.Null(start.Flow);
        telemetry.OpenFailed(start, new OpenFailure(new OperationCanceledException(), OpenTimeout.None, Cancelled: true, BrokeWhileOpening: false));
    }

    [Fact]
    public async Task Every_open_per_call_is_counted_to_the_callers_flow_sync_async_in_a_child_and_on_another_thread()
    {
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.Churn;
            d.ChurnGap = TimeSpan.FromMinutes(10); // every open back to back: each one adds to the flow's streak
        });
        FlowState mine = Assert.IsType<FlowState>(db.Pool.Telemetry.EnterFlow());

        Assert.Equal(1, db.Scalar<long>("select 1"));
        Assert.Equal(1, mine.Streak);
        Assert.Equal(1, await db.ScalarAsync<long>("select 1"));
        Assert.Equal(2, mine.Streak);
        Assert.Equal(1, await InChild(db));
        Assert.Equal(3, mine.Streak);
        Assert.Equal(1, await Task.Run(() => db.ScalarAsync<long>("select 1")));
        Assert.Equal(4, mine.Streak);
        await using (db.BeginScope())
        {
            Assert.Equal(1, await db.ScalarAsync<long>("select 1")); // the scope's first call opens
            Assert.Equal(1, await db.ScalarAsync<long>("select 1")); // the next takes the parked connection
        }

        Assert.Equal(5, mine.Streak);
        Assert.Equal(0, mine.Active);
        Assert.Same(mine, db.Pool.Telemetry.EnterFlow());

        static async Task<long> InChild(Database db)
        {
            await Task.Yield();
            return await db.ScalarAsync<long>("select 1");
        }
    }
}
