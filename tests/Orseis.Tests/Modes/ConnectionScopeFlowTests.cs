using Microsoft.Extensions.Time.Testing;
using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>
/// Which calls find a <see cref="ConnectionScope"/>: a call looks for its flow's scope in a thread-static mirror of the
/// scope's <see cref="AsyncLocal{T}"/>, kept by the AsyncLocal's change callback. These check that the mirror follows the
/// flow, not the thread: code run on the same thread under another execution context (one captured outside the scope, or
/// the default one) does not see the scope, code run under a context captured inside it does, and a flow that moves to
/// other threads across awaits keeps it.
/// </summary>
public sealed class ConnectionScopeFlowTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly Database _db;

    public ConnectionScopeFlowTests()
    {
        // A fake clock: the scope's idle window never passes between two calls here, however loaded the machine.
        _db = _file.Open(configure: options => options.Diagnostics.TimeProvider = new FakeTimeProvider());
        _db.Execute("create table items (id integer primary key, name text not null)");
        _db.Execute("insert into items (id, name) values (1, 'one')");
    }

    public void Dispose()
    {
        _db.Dispose();
        _file.Dispose();
    }

    private string Name() => _db.Scalar<string>("select name from items where id = 1") ?? "";

    [Fact]
    public void Code_run_on_the_same_thread_under_a_context_from_outside_the_scope_opens_its_own()
    {
        ExecutionContext outside = ExecutionContext.Capture()!;
        using ConnectionScope scope = _db.BeginScope();
        Name(); // opens, parks
        Name(); // takes the parked connection
        Assert.Equal(1, scope.ReusedCalls);
        long opens = _db.GetPoolReport().Opens;

        int thread = Environment.CurrentManagedThreadId;
        int ranOn = -1;
        ExecutionContext.Run(outside, _ =>
        {
            ranOn = Environment.CurrentManagedThreadId;
            Assert.Equal("one", Name());
        }, null);

        Assert.Equal(thread, ranOn);
        Assert.Equal(1, scope.ReusedCalls); // the call outside the scope did not take the parked connection
        Assert.Equal(opens + 1, _db.GetPoolReport().Opens);

        Name(); // back in the scope's own context on the same thread: the scope again
        Assert.Equal(2, scope.ReusedCalls);
    }

    [Fact]
    public void Code_run_under_the_default_context_on_the_scope_s_thread_opens_its_own()
    {
        using ConnectionScope scope = _db.BeginScope();
        Name();
        long opens = _db.GetPoolReport().Opens;
        // ExecutionContext.Run with a context captured before any scope began: the default values.
        ExecutionContext before = CapturedWithoutScope();
        ExecutionContext.Run(before, _ => Name(), null);
        Assert.Equal(0, scope.ReusedCalls);
        Assert.Equal(opens + 1, _db.GetPoolReport().Opens);
    }

    private static ExecutionContext CapturedWithoutScope()
    {
        ExecutionContext? captured = null;
        var thread = new Thread(() => captured = ExecutionContext.Capture());
        using (ExecutionContext.SuppressFlow())
            thread.Start();
        thread.Join();
        return captured!;
    }

    [Fact]
    public void Code_run_elsewhere_under_a_context_captured_inside_the_scope_finds_it()
    {
        using ConnectionScope scope = _db.BeginScope();
        Name(); // parks
        ExecutionContext inside = ExecutionContext.Capture()!;

        // Another thread, which never began a scope, runs under the scope's context: its call takes the parked connection.
        var thread = new Thread(() => ExecutionContext.Run(inside, _ => Name(), null));
        thread.Start();
        thread.Join();
        Assert.Equal(1, scope.ReusedCalls);
    }

    [Fact]
    public async Task A_flow_keeps_its_scope_across_awaits_that_resume_on_other_threads_and_leaves_nothing_behind()
    {
        var threads = new HashSet<int>();
        await using (ConnectionScope scope = _db.BeginScope())
        {
            for (int n = 0; n < 20; n++)
            {
                await Task.Yield(); // resumes on a pool thread
                threads.Add(Environment.CurrentManagedThreadId);
                Assert.Equal("one", await _db.ScalarAsync<string>("select name from items where id = 1"));
            }

            Assert.Equal(19, scope.ReusedCalls);
        }

        // The pool threads the scoped flow ran on see no scope once it left them: calls queued there open per call.
        long opens = _db.GetPoolReport().Opens;
        Task[] others = Enumerable.Range(0, 8).Select(_ => Task.Run(Name)).ToArray();
        await Task.WhenAll(others);
        PoolReport report = _db.GetPoolReport();
        Assert.Equal(opens + 8, report.Opens);
        Assert.Equal(19, report.ScopeReuses);
        Assert.Equal(0, report.ParkedConnections);
    }
}
