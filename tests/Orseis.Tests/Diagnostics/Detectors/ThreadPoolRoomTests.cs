using System.Diagnostics;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// Starvation told from a busy CPU on the process's real thread pool (issue 45): pool threads blocked on a gate, as
/// synchronous calls block on I/O, with the pool's minimum raised past them (idle threads to spare: a late probe waited
/// for a CPU) or its maximum capped at them (none: queued work waits for a thread). Runs alone: it raises the pool's
/// minimum, and caps its maximum, for a moment.
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class ThreadPoolRoomTests
{
    [Fact]
    public Task Threads_blocked_under_a_minimum_raised_past_them_leave_room_and_a_late_probe_is_not_starvation() => OffThePool(() =>
    {
        ThreadPool.GetMinThreads(out int min, out int io);
        int blocked = ThreadPool.ThreadCount + 8; // more than the idle threads the process has: most of the pool, once blocked
        // Not disposed, here and below: a work item may still be leaving Wait, or not yet have run, when the test ends.
        var gate = new ManualResetEventSlim();
        var entered = new CountdownEvent(blocked);
        try
        {
            // As a worker designed for its blocking callers does: SetMinThreads past them.
            Assert.True(ThreadPool.SetMinThreads(ThreadPool.ThreadCount + blocked + 4, io));
            for (int i = 0; i < blocked; i++)
                ThreadPool.UnsafeQueueUserWorkItem(_ => Block(entered, gate), null);
            Assert.True(entered.Wait(TimeSpan.FromSeconds(30)), "the blocking work items did not all start");

            // Work queued now runs while every one of them stays blocked: the pool had a thread for it.
            var ran = new ManualResetEventSlim();
            ThreadPool.UnsafeQueueUserWorkItem(_ => ran.Set(), null);
            Assert.True(ran.Wait(TimeSpan.FromSeconds(30)), "a work item found no thread beside the blocked ones");
            Assert.False(gate.IsSet);

            PoolThreads pool = PoolThreads.Now(goal: 0, blocked, TimeSpan.Zero);
            Assert.True(BlockingCalls.HoldMostOf(pool.Threads, pool.BlockedInOrseis), pool.ToString());
            Assert.False(BlockingCalls.LeaveNoRoom(pool.AllowedOrRunning, pool.BlockedInOrseis), pool.ToString());

            // Had the probe run late beside them (a CPU hog on every core), it waited for a CPU: not starvation.
            var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
            var detector = new ThreadPoolStarvationDetector(fake.Log);
            detector.OnProbe(Fake.Ms(900), stillWaiting: true, runtimeSaysStarved: false, pool: pool);
            detector.OnProbe(Fake.Ms(950), stillWaiting: false, runtimeSaysStarved: false, justRan: true, pool: pool with { Backlog = Fake.Ms(2000) });
            Assert.False(detector.WantsCallSite);
            Assert.Empty(fake.Log.Kept);
        }
        finally
        {
            gate.Set();
            ThreadPool.SetMinThreads(min, io);
        }
    });

    [Fact]
    public Task Threads_blocked_up_to_the_pools_maximum_leave_no_room_and_a_late_probe_is_starvation() => OffThePool(() =>
    {
        ThreadPool.GetMinThreads(out int min, out _);
        ThreadPool.GetMaxThreads(out int max, out int maxIo);
        // Four more than the least it may be capped at: a test host holds two pool threads blocked for good (vstest's
        // message loop, xunit's runner), which take their share of the cap and must not be most of it.
        int cap = Math.Max(min, Environment.ProcessorCount) + 4;
        var gate = new ManualResetEventSlim();
        int entered = 0;
        try
        {
            Assert.True(ThreadPool.SetMaxThreads(cap, maxIo));
            for (int i = 0; i < cap; i++)
            {
                ThreadPool.UnsafeQueueUserWorkItem(_ =>
                {
                    Interlocked.Increment(ref entered);
                    gate.Wait();
                }, null);
            }

            // Those the host holds leave fewer of them entered; no more than that is still no room.
            SpinWait.SpinUntil(() => Volatile.Read(ref entered) == cap, TimeSpan.FromSeconds(5));
            var waited = Stopwatch.StartNew();
            var ran = new ManualResetEventSlim();
            ThreadPool.UnsafeQueueUserWorkItem(_ => ran.Set(), null);
            Assert.False(ran.Wait(TimeSpan.FromMilliseconds(600)), "a work item found a thread: the pool was not starved");

            PoolThreads pool = PoolThreads.Now(goal: 0, Volatile.Read(ref entered), TimeSpan.Zero);
            Assert.True(BlockingCalls.LeaveNoRoom(pool.AllowedOrRunning, pool.BlockedInOrseis), pool.ToString());
            var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
            var detector = new ThreadPoolStarvationDetector(fake.Log);
            detector.OnProbe(waited.Elapsed, stillWaiting: true, runtimeSaysStarved: false, pool: pool);
            Assert.True(detector.WantsCallSite, pool.ToString());
            detector.OnCallWhileStarving(async: false);
            PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
            Assert.Contains("blocked inside synchronous Orseis calls", finding.Message, StringComparison.Ordinal);
        }
        finally
        {
            gate.Set();
            ThreadPool.SetMaxThreads(max, maxIo);
        }
    });

    private static void Block(CountdownEvent entered, ManualResetEventSlim gate)
    {
        entered.Signal();
        gate.Wait();
    }

    /// <summary>Runs <paramref name="body"/> on a thread of its own, so the test's own thread holds no pool thread meanwhile.</summary>
    private static Task OffThePool(Action body) =>
        Task.Factory.StartNew(body, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
}
