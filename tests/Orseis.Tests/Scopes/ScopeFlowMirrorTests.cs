using System.Collections.Concurrent;
using Microsoft.Extensions.Time.Testing;
using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Scopes;

/// <summary>
/// A <see cref="ConnectionScope"/>'s begin, calls and end read the flow's scope from a thread-static mirror of its
/// <see cref="AsyncLocal{T}"/> (issue 42). These try the ways a mirror of a flow value goes wrong: a flow that hops threads,
/// two flows taking turns on one thread, work started with the flow suppressed, sync code with nested scopes, a scope begun
/// inside <see cref="ExecutionContext.Run"/>, a scope ended on another thread or while its call runs, and many flows at once.
/// Each call reports the connection object it ran on (<c>conn_id()</c>, <see cref="ScopeProbeSource"/>); the pool's report
/// counts opens, reuses and parked connections. The idle sweep runs on a fake clock never advanced: nothing is given back
/// behind a test's back.
/// </summary>
public sealed class ScopeFlowMirrorTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly ScopeProbeSource _source;
    private readonly ScopeProbeSource _otherSource;
    private readonly Database _db;
    private readonly Database _other;

    public ScopeFlowMirrorTests()
    {
        using (Database setup = _file.Open())
            setup.Execute("create table items (id integer primary key, name text not null)");
        _source = new ScopeProbeSource(_file.ConnectionString);
        _otherSource = new ScopeProbeSource(_file.ConnectionString);
        _db = new Database(_source, Options());
        _other = new Database(_otherSource, Options());
    }

    public void Dispose()
    {
        _db.Dispose();
        _other.Dispose();
        _source.Dispose();
        _otherSource.Dispose();
        _file.Dispose();
    }

    private static OrseisOptions Options()
    {
        var options = new OrseisOptions();
        options.Diagnostics.TimeProvider = new FakeTimeProvider();
        return options;
    }

    /// <summary>The connection the call ran on.</summary>
    private static long ConnId(Database db) => db.Scalar<long>("select conn_id()");

    private static async Task<long> ConnIdAsync(Database db) => await db.ScalarAsync<long>("select conn_id()");

    private static void AssertNothingHeld(Database db, ScopeProbeSource source)
    {
        PoolReport report = db.GetPoolReport();
        Assert.Equal(0, report.ParkedConnections);
        Assert.Equal(0, report.InUse);
        Assert.Equal(0, source.OpenConnections);
    }

    [Fact]
    public async Task A_flow_that_resumes_on_other_threads_keeps_its_one_connection_until_it_ends()
    {
        var ids = new List<long>();
        long after;
        await using (ConnectionScope scope = _db.BeginScope())
        {
            await HopAsync(ids);
            await Task.Yield();
            ids.Add(ConnId(_db));
            Assert.Equal(ids.Count - 1, scope.ReusedCalls);
            Assert.Equal(1, _db.GetPoolReport().ParkedConnections);
        }

        after = ConnId(_db);
        Assert.Single(ids.Distinct());
        Assert.NotEqual(ids[0], after);
        PoolReport report = _db.GetPoolReport();
        Assert.Equal(2, report.Opens);
        Assert.Equal(ids.Count - 1, report.ScopeReuses);
        AssertNothingHeld(_db, _source);
    }

    /// <summary>Calls between awaits that resume elsewhere: a yield, a real timer, ConfigureAwait(false), a child flow.</summary>
    private async Task HopAsync(List<long> ids)
    {
        ids.Add(await ConnIdAsync(_db));
        await Task.Yield();
        ids.Add(await ConnIdAsync(_db));
        await Task.Delay(30).ConfigureAwait(false); // a real timer: resumes on whichever pool thread
        ids.Add(ConnId(_db)); // sync, after the hop
        await Task.Run(() => Task.Delay(5)).ConfigureAwait(false);
        ids.Add(await ConnIdAsync(_db).ConfigureAwait(false));
        ids.Add(await Task.Run(() => ConnId(_db)).ConfigureAwait(false)); // a child flow inherits the scope
    }

    [Fact]
    public async Task Two_flows_taking_turns_on_one_thread_each_see_only_their_own_scope()
    {
        using var thread = new OneThreadScheduler();
        var aParked = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var bDone = new TaskCompletionSource();
        var threads = new ConcurrentBag<int>();
        long a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, c0 = 0;
        long aReused = -1, bReused = -1;

        Task flowA = thread.Run(async () =>
        {
            ConnectionScope scope = _db.BeginScope();
            threads.Add(Environment.CurrentManagedThreadId);
            a1 = ConnId(_db); // parks
            aParked.SetResult();
            await bDone.Task; // resumes on the one thread, after flow B ran there
            threads.Add(Environment.CurrentManagedThreadId);
            a2 = ConnId(_db);
            aReused = scope.ReusedCalls;
            scope.Dispose();
            a3 = ConnId(_db);
        });
        await aParked.Task.WaitAsync(TimeSpan.FromSeconds(10));

        Task flowB = thread.Run(() =>
        {
            threads.Add(Environment.CurrentManagedThreadId);
            b0 = ConnId(_db); // no scope in this flow: its own connection, not A's parked one
            using (ConnectionScope scope = _db.BeginScope())
            {
                b1 = ConnId(_db);
                b2 = ConnId(_db);
                bReused = scope.ReusedCalls;
            }

            bDone.SetResult();
            return Task.CompletedTask;
        });
        await Task.WhenAll(flowA, flowB).WaitAsync(TimeSpan.FromSeconds(10));
        await thread.Run(() =>
        {
            c0 = ConnId(_db); // a third flow on the thread, after both scopes ended
            return Task.CompletedTask;
        }).WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Single(threads.Distinct());
        Assert.Equal(a1, a2);
        Assert.Equal(1, aReused);
        Assert.NotEqual(a1, b0);
        Assert.NotEqual(a1, b1);
        Assert.Equal(b1, b2);
        Assert.Equal(1, bReused);
        Assert.NotEqual(a1, a3);
        Assert.NotEqual(b1, c0);
        Assert.NotEqual(a1, c0);
        PoolReport report = _db.GetPoolReport();
        Assert.Equal(5, report.Opens); // a1, b0, b1, a3, c0
        Assert.Equal(2, report.ScopeReuses);
        AssertNothingHeld(_db, _source);
    }

    [Fact]
    public async Task Work_started_with_the_flow_suppressed_inside_a_scope_opens_its_own()
    {
        using ConnectionScope scope = _db.BeginScope();
        long mine = ConnId(_db); // parks
        Task<long[]> run;
        var queued = new TaskCompletionSource<long[]>(TaskCreationOptions.RunContinuationsAsynchronously);
        long threadId = 0;
        Thread thread;
        Task<(long First, long Second, long Reused)> ownScope;
        using (ExecutionContext.SuppressFlow())
        {
            run = Task.Run(() => new[] { ConnId(_db), ConnId(_db) });
            ThreadPool.UnsafeQueueUserWorkItem(_ => queued.SetResult([ConnId(_db), ConnId(_db)]), null);
            thread = new Thread(() => threadId = ConnId(_db));
            thread.Start();
            ownScope = Task.Run(() =>
            {
                using ConnectionScope inner = _db.BeginScope(); // a scope of its own, not nested in the outer one
                return (ConnId(_db), ConnId(_db), inner.ReusedCalls);
            });
        }

        long[] fromRun = await run.WaitAsync(TimeSpan.FromSeconds(10));
        long[] fromQueue = await queued.Task.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(thread.Join(TimeSpan.FromSeconds(10)));
        (long first, long second, long innerReused) = await ownScope.WaitAsync(TimeSpan.FromSeconds(10));

        long[] outside = [.. fromRun, .. fromQueue, threadId];
        Assert.DoesNotContain(mine, outside);
        Assert.Equal(outside.Length, outside.Distinct().Count()); // no scope: each call opened its own
        Assert.NotEqual(mine, first);
        Assert.Equal(first, second);
        Assert.Equal(1, innerReused);
        Assert.Equal(0, scope.ReusedCalls);

        Assert.Equal(mine, ConnId(_db)); // the outer scope, untouched by the inner one's begin and end
        Assert.Equal(1, scope.ReusedCalls);
        Assert.Equal(1, _db.GetPoolReport().ParkedConnections);
        Assert.Equal(1 + outside.Length + 1, _db.GetPoolReport().Opens);
    }

    [Fact]
    public async Task Sync_code_on_pool_threads_with_nested_scopes_unwinds_to_each_outer_scope()
    {
        const int Flows = 6;
        Task[] flows = [.. Enumerable.Range(0, Flows).Select(_ => Task.Run(() =>
        {
            long a, b;
            using (ConnectionScope outer = _db.BeginScope())
            {
                a = ConnId(_db);
                using (ConnectionScope inner = _db.BeginScope())
                {
                    Assert.Equal(a, ConnId(_db)); // the same database's inner scope shares the outer one's connection
                    using (ConnectionScope onOther = _other.BeginScope())
                    {
                        b = ConnId(_other);
                        Assert.Equal(b, ConnId(_other));
                        Assert.Equal(a, ConnId(_db));
                        // Sync over async, in the scope's flow: the same connections.
                        Assert.Equal(a, ConnIdAsync(_db).GetAwaiter().GetResult());
                        Assert.Equal(b, Task.Run(() => ConnIdAsync(_other)).GetAwaiter().GetResult());
                        Assert.Equal(2, onOther.ReusedCalls);
                    }

                    Assert.Equal(0, inner.ReusedCalls); // its calls were the outer scope's
                    Assert.NotEqual(b, ConnId(_other)); // the other database's scope ended: a call opens its own
                }

                Assert.Equal(a, ConnId(_db));
                Assert.Equal(4, outer.ReusedCalls);
            }

            Assert.NotEqual(a, ConnId(_db));
        }))];
        await Task.WhenAll(flows).WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal(Flows * 2, _db.GetPoolReport().Opens);
        Assert.Equal(Flows * 4, _db.GetPoolReport().ScopeReuses);
        Assert.Equal(Flows * 2, _other.GetPoolReport().Opens);
        AssertNothingHeld(_db, _source);
        AssertNothingHeld(_other, _otherSource);
    }

    [Fact]
    public void A_scope_ended_out_of_order_leaves_no_scope_and_nothing_parked()
    {
        ConnectionScope outer = _db.BeginScope();
        long a = ConnId(_db);
        ConnectionScope onOther = _other.BeginScope();
        long b = ConnId(_other);
        outer.Dispose(); // before the inner one
        Assert.Equal(0, _db.GetPoolReport().ParkedConnections);
        Assert.NotEqual(a, ConnId(_db)); // the outer scope ended: no call takes its connection
        Assert.Equal(0, _db.GetPoolReport().ParkedConnections);
        Assert.Equal(b, ConnId(_other)); // the inner one still works
        onOther.Dispose();
        Assert.NotEqual(b, ConnId(_other));

        // A new scope in the same flow works as a first one.
        using (ConnectionScope again = _db.BeginScope())
        {
            long c = ConnId(_db);
            Assert.Equal(c, ConnId(_db));
            Assert.Equal(1, again.ReusedCalls);
        }

        AssertNothingHeld(_db, _source);
        AssertNothingHeld(_other, _otherSource);
    }

    [Fact]
    public void A_scope_begun_inside_ExecutionContext_Run_is_not_the_callers_once_Run_returns()
    {
        ExecutionContext context = ExecutionContext.Capture()!;
        ConnectionScope? begun = null;
        long inside = 0;
        ExecutionContext.Run(context, _ =>
        {
            begun = _db.BeginScope();
            inside = ConnId(_db);
            Assert.Equal(inside, ConnId(_db));
        }, null);

        // The same thread, back in the caller's context: the scope stayed in the context Run ran in.
        long outside = ConnId(_db);
        Assert.NotEqual(inside, outside);
        Assert.Equal(1, begun!.ReusedCalls);
        Assert.Equal(1, _db.GetPoolReport().ParkedConnections); // still the scope's, until it ends
        begun.Dispose(); // from the caller's context, which never had it
        AssertNothingHeld(_db, _source);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_scope_ended_from_a_continuation_on_another_thread_gives_its_connection_back_and_its_flow_opens_per_call(
        bool endAsync)
    {
        ConnectionScope scope = _db.BeginScope();
        long mine = ConnId(_db);
        await Task.Run(async () =>
        {
            await Task.Delay(10).ConfigureAwait(false); // a timer's pool thread, in a copy of the scope's context
            if (endAsync)
                await scope.DisposeAsync();
            else
                scope.Dispose();
        });
        Assert.Equal(0, _db.GetPoolReport().ParkedConnections);

        // The scope's own flow still holds the ended scope: its calls open per call, none parks, none takes the old one.
        long opens = _db.GetPoolReport().Opens;
        long x = ConnId(_db);
        long y = await ConnIdAsync(_db);
        Assert.NotEqual(mine, x);
        Assert.NotEqual(x, y);
        Assert.Equal(opens + 2, _db.GetPoolReport().Opens);
        Assert.Equal(0, _db.GetPoolReport().ParkedConnections);
        Assert.Equal(0, scope.ReusedCalls);
        scope.Dispose(); // a second end, in its own flow: nothing
        await scope.DisposeAsync();

        await using (ConnectionScope next = _db.BeginScope())
        {
            long n = await ConnIdAsync(_db);
            Assert.Equal(n, ConnId(_db));
            Assert.Equal(1, next.ReusedCalls);
        }

        AssertNothingHeld(_db, _source);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_scope_ended_while_its_call_runs_gives_that_connection_back_when_the_call_ends(bool endAsync)
    {
        ConnectionScope scope = _db.BeginScope();
        long mine = ConnId(_db); // parks
        ScopeProbeSource.Gate gate = _source.HoldNextCall();
        Task<long> running;
        try
        {
            running = Task.Run(() => _db.Scalar<long>("select gate() + conn_id()")); // takes the parked connection
            Assert.True(gate.Reached(), "the call never reached the gate");
            Assert.Equal(0, _db.GetPoolReport().ParkedConnections);
            Assert.Equal(1, _db.GetPoolReport().InUse);
            if (endAsync)
                await scope.DisposeAsync();
            else
                scope.Dispose();
            Assert.Equal(1, _db.GetPoolReport().InUse);
            Assert.Equal(1, _source.OpenConnections);
        }
        finally
        {
            gate.Release();
        }

        Assert.Equal(mine, await running.WaitAsync(TimeSpan.FromSeconds(10))); // the call ends well, on the scope's connection
        Assert.Equal(1, scope.ReusedCalls);
        AssertNothingHeld(_db, _source); // back to the pool, not parked in the ended scope

        long opens = _db.GetPoolReport().Opens;
        Assert.NotEqual(mine, ConnId(_db));
        Assert.Equal(opens + 1, _db.GetPoolReport().Opens);
        AssertNothingHeld(_db, _source);
    }

    [Fact]
    public async Task Many_flows_each_in_its_own_scope_keep_to_their_own_connection()
    {
        const int Flows = 24;
        const int Calls = 20;
        var allIn = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        int started = 0;
        Task<long>[] flows = [.. Enumerable.Range(0, Flows).Select(f => Task.Run(async () =>
        {
            await using ConnectionScope scope = _db.BeginScope();
            long first = await ConnIdAsync(_db);
            if (Interlocked.Increment(ref started) == Flows)
                allIn.SetResult();
            await allIn.Task; // every flow holds its parked connection from here on: all live at once
            for (int call = 0; call < Calls; call++)
            {
                long id;
                switch ((call + f) % 4)
                {
                    case 0:
                        await Task.Yield();
                        id = await ConnIdAsync(_db);
                        break;
                    case 1:
                        id = await ConnIdAsync(_db).ConfigureAwait(false);
                        break;
                    case 2:
                        await Task.Delay(1).ConfigureAwait(false);
                        id = ConnId(_db);
                        break;
                    default:
                        id = ConnId(_db);
                        break;
                }

                Assert.Equal(first, id);
            }

            Assert.Equal(Calls, scope.ReusedCalls);
            return first;
        }))];
        long[] connections = await Task.WhenAll(flows).WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(Flows, connections.Distinct().Count());
        PoolReport report = _db.GetPoolReport();
        Assert.Equal(Flows, report.Opens);
        Assert.Equal(Flows * Calls, report.ScopeReuses);
        AssertNothingHeld(_db, _source);
    }

    /// <summary>Runs tasks, and their continuations, on one thread of its own, under each task's own execution context.</summary>
    private sealed class OneThreadScheduler : TaskScheduler, IDisposable
    {
        private readonly BlockingCollection<Task> _tasks = [];
        private readonly Thread _thread;

        public OneThreadScheduler()
        {
            _thread = new Thread(() =>
            {
                foreach (Task task in _tasks.GetConsumingEnumerable())
                    TryExecuteTask(task);
            }) { IsBackground = true, Name = "one-thread scheduler" };
            _thread.UnsafeStart();
        }

        public Task Run(Func<Task> work) =>
            Task.Factory.StartNew(work, CancellationToken.None, TaskCreationOptions.None, this).Unwrap();

        protected override void QueueTask(Task task) => _tasks.Add(task);

        protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

        protected override IEnumerable<Task> GetScheduledTasks() => [.. _tasks];

        public void Dispose()
        {
            _tasks.CompleteAdding();
            _thread.Join(TimeSpan.FromSeconds(10));
            _tasks.Dispose();
        }
    }
}
