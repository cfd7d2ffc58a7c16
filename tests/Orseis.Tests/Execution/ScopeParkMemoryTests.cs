using Microsoft.Extensions.Time.Testing;
using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// The pool's memory of which statements' parks went unused (<see cref="ParkMemory"/>), on SQLite with a fake clock:
/// per-request scopes stop parking after a statement that a pause longer than the idle window follows, keep parking after
/// one followed by back-to-back calls, notice a change through a probe, and do not count a park their own end gave back.
/// </summary>
public sealed class ScopeParkMemoryTests : IDisposable
{
    private const string First = "select 1 as first_statement";
    private const string Second = "select 2 as the_second_statement_of_a_request";
    private const string Burst = "select 3 as burst";

    private readonly SqliteFile _file = new();
    private readonly FakeTimeProvider _time = new();
    private readonly Database _db;

    public ScopeParkMemoryTests()
    {
        _db = _file.Open(configure: o =>
        {
            o.Diagnostics.Detectors = FindingKind.All;
            o.Diagnostics.TimeProvider = _time;
        });

        // The statements each have a cell of their own: what one records is not another's.
        int[] cells = [.. new[] { First, Second, Burst }.Select(s => ParkMemory.KeyOf(s) & (ParkMemory.Cells - 1))];
        Assert.Equal(cells.Length, cells.Distinct().Count());
    }

    public void Dispose()
    {
        _db.Dispose();
        _file.Dispose();
    }

    // A pause longer than the window: two sweeps pass, and a connection parked before it goes back unused.
    private void Pause() => _time.Advance(TimeSpan.FromMilliseconds(4));

    /// <summary>
    /// One request's scope: <paramref name="first"/>, a pause longer than the idle window, <paramref name="second"/>. Returns
    /// the connections parked after the first statement and after the second (before the scope ends).
    /// </summary>
    private async Task<(int AfterFirst, int AfterSecond)> PausedRequestAsync(string first = First, string second = Second)
    {
        await using ConnectionScope scope = _db.BeginScope();
        await _db.ScalarAsync<long>(first);
        int afterFirst = _db.GetPoolReport().ParkedConnections;
        Pause();
        await _db.ScalarAsync<long>(second);
        return (afterFirst, _db.GetPoolReport().ParkedConnections);
    }

    /// <summary>One request's scope: <paramref name="statement"/> then <paramref name="more"/> calls back to back. Returns its reuses.</summary>
    private async Task<long> BackToBackRequestAsync(string statement, int more)
    {
        await using ConnectionScope scope = _db.BeginScope();
        await _db.ScalarAsync<long>(statement);
        for (int i = 0; i < more; i++)
            await _db.ScalarAsync<long>(statement);
        return scope.ReusedCalls;
    }

    [Fact]
    public async Task Per_request_scopes_stop_parking_after_a_statement_a_pause_follows()
    {
        var afterFirst = new List<int>();
        var afterSecond = new List<int>();
        for (int request = 0; request < 12; request++)
        {
            (int first, int second) = await PausedRequestAsync();
            afterFirst.Add(first);
            afterSecond.Add(second);
        }

        // Six parks after the first statement went back unused; from then on its connection goes back at once. While the
        // first park went unused, the scope's own rule kept the second call from parking (one in four); since, the second
        // statement parks until the scope's end gives it back, right after: that holds nothing idle.
        Assert.Equal([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], afterFirst);
        Assert.Equal([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], afterSecond);

        PoolReport report = _db.GetPoolReport();
        Assert.Equal(24, report.Opens); // two per request, as before: nothing was reused either way
        Assert.Equal(0, report.ScopeReuses);
        Assert.Equal(0, report.ParkedConnections);

        // Parked time: the first six requests' parks after the first statement (4 ms each on this clock), none since.
        TimeSpan learned = report.ParkedTime ?? TimeSpan.Zero;
        await PausedRequestAsync();
        Assert.Equal(learned, _db.GetPoolReport().ParkedTime ?? TimeSpan.Zero);
    }

    [Fact]
    public async Task Back_to_back_calls_keep_parking_and_reusing_beside_a_statement_that_stopped()
    {
        var reused = new List<long>();
        var afterFirst = new List<int>();
        for (int request = 0; request < 12; request++)
        {
            reused.Add(await BackToBackRequestAsync(Burst, more: 4));
            afterFirst.Add((await PausedRequestAsync()).AfterFirst);
        }

        Assert.All(reused, r => Assert.Equal(4, r)); // one open per burst, then four reuses, every time
        Assert.Equal([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], afterFirst);
        Assert.Equal(12 * 1 + 12 * 2, _db.GetPoolReport().Opens);
    }

    [Fact]
    public async Task A_statement_used_both_ways_keeps_parking()
    {
        // The same statement is followed by back-to-back calls in one request and by a pause in the next: its reuses keep
        // resetting what its unused parks taught, so it parks every time.
        var afterFirst = new List<int>();
        for (int request = 0; request < 12; request++)
        {
            Assert.Equal(1, await BackToBackRequestAsync(First, more: 1));
            afterFirst.Add((await PausedRequestAsync()).AfterFirst);
        }

        Assert.All(afterFirst, parked => Assert.Equal(1, parked));
    }

    [Fact]
    public async Task A_change_to_back_to_back_is_noticed_through_a_probe()
    {
        for (int request = 0; request < ParkMemory.Threshold; request++)
            await PausedRequestAsync();
        Assert.Equal(0, (await PausedRequestAsync()).AfterFirst); // learned: no park after the first statement

        // Now the second statement follows the first at once. The first call parks only as a probe, one in ProbeEvery; the
        // probe's connection is taken by the second call, and from then on every request reuses it.
        var reused = new List<long>();
        for (int request = 0; request < 3 * ParkMemory.ProbeEvery; request++)
        {
            await using ConnectionScope scope = _db.BeginScope();
            await _db.ScalarAsync<long>(First);
            await _db.ScalarAsync<long>(Second);
            reused.Add(scope.ReusedCalls);
        }

        int probe = reused.IndexOf(1);
        Assert.Equal(0, reused[0]);
        Assert.InRange(probe, 1, ParkMemory.ProbeEvery);
        Assert.All(reused.Skip(probe), r => Assert.Equal(1, r));
        Assert.All(reused.Take(probe), r => Assert.Equal(0, r));
    }

    [Fact]
    public async Task A_park_the_scope_end_gives_back_is_not_counted_unused()
    {
        // Requests whose one statement parks its connection until the scope ends, right after: never idle in the pool's eyes.
        for (int request = 0; request < 20; request++)
        {
            await using ConnectionScope scope = _db.BeginScope();
            await _db.ScalarAsync<long>(First);
            Assert.Equal(1, _db.GetPoolReport().ParkedConnections);
        }

        // So the statement starts from nothing when a pause follows it: six unused parks before it stops, as for a new one.
        var afterFirst = new List<int>();
        for (int request = 0; request < 8; request++)
            afterFirst.Add((await PausedRequestAsync()).AfterFirst);
        Assert.Equal([1, 1, 1, 1, 1, 1, 0, 0], afterFirst);
        Assert.Equal(6 * TimeSpan.FromMilliseconds(4), _db.GetPoolReport().ParkedTime);
    }

    [Fact]
    public async Task A_long_lived_scope_keeps_its_own_rule()
    {
        for (int request = 0; request < ParkMemory.Threshold; request++)
            await PausedRequestAsync();

        // A scope that has not yet had a park go back unused asks the memory: no park after the first statement. Once its
        // own park went unused, its own rule (one call in four parks) decides, whatever the statement.
        await using ConnectionScope scope = _db.BeginScope();
        await _db.ScalarAsync<long>(Burst);
        Pause(); // the burst statement's park goes back unused: the scope's own rule from here
        var parked = new List<int>();
        for (int call = 0; call < 8; call++)
        {
            await _db.ScalarAsync<long>(First);
            parked.Add(_db.GetPoolReport().ParkedConnections);
            Pause();
        }

        Assert.Equal([0, 0, 0, 1, 0, 0, 0, 1], parked);
    }
}
