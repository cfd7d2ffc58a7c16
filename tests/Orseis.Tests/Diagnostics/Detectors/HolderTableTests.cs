using System.Collections.Concurrent;
using Microsoft.Data.Sqlite;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class HolderTableTests
{
    [Fact]
    public void More_holders_than_slots_are_all_kept_and_each_is_found_again_with_its_own_owner_and_start()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time, expectedHolders: 1); // 64 slots: most of the 500 go to the overflow dictionary
        var connections = Enumerable.Range(0, 500).Select(_ => new SqliteConnection()).ToArray();
        var starts = new long[connections.Length];
        var holds = new int[connections.Length];
        for (int i = 0; i < connections.Length; i++)
        {
            starts[i] = fake.Now;
            holds[i] = table.Add(connections[i], $"owner {i}", heldByDesign: false, where: null, starts[i]);
            fake.Time.Advance(TimeSpan.FromMilliseconds(1));
        }

        Assert.Equal(500, holds.Distinct().Count());
        Assert.Contains(holds, h => h < HolderTable.NoHold); // some in the overflow dictionary
        Assert.Equal(TimeSpan.FromMilliseconds(500), table.Longest().Held);
        Assert.Equal(500, table.TakeOverdue(TimeSpan.Zero, fake.Now).Count);
        Assert.Empty(table.TakeOverdue(TimeSpan.Zero, fake.Now));

        for (int i = connections.Length - 1; i >= 0; i--)
        {
            Assert.False(table.TryRemove(connections[(i + 1) % connections.Length], holds[i], out _)); // another connection's hold
            Assert.True(table.TryRemove(connections[i], holds[i], out HolderTable.Holder holder));
            Assert.Equal($"owner {i}", holder.Owner);
            Assert.Equal(starts[i], holder.Started);
            Assert.True(holder.Reported);
            Assert.False(table.TryRemove(connections[i], holds[i], out _));
        }

        Assert.Null(table.Longest().Held);
        foreach (SqliteConnection c in connections)
            c.Dispose();
    }

    [Fact]
    public void Holds_fill_every_slot_before_any_goes_to_the_overflow_dictionary_whatever_thread_takes_them()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time, expectedHolders: 100); // 256 slots
        var connections = Enumerable.Range(0, 300).Select(_ => new SqliteConnection()).ToArray();
        var holds = new int[connections.Length];

        // 4 threads take 64 holds each at once: every one finds a slot.
        Thread[] threads = [.. Enumerable.Range(0, 4).Select(t => new Thread(() =>
        {
            for (int i = t * 64; i < (t + 1) * 64; i++)
                holds[i] = table.Add(connections[i], "worker", heldByDesign: false, where: null, fake.Now);
        }))];
        foreach (Thread thread in threads)
            thread.Start();
        foreach (Thread thread in threads)
            thread.Join();
        Assert.DoesNotContain(holds.Take(256), h => h < 0);
        Assert.Equal(256, holds.Take(256).Distinct().Count());

        // The table is full: the next ones go to the overflow dictionary, and every hold comes back.
        for (int i = 256; i < connections.Length; i++)
            holds[i] = table.Add(connections[i], "worker", heldByDesign: false, where: null, fake.Now);
        Assert.All(holds.Skip(256), h => Assert.True(h < HolderTable.NoHold));
        for (int i = 0; i < connections.Length; i++)
            Assert.True(table.TryRemove(connections[i], holds[i], out _));
        Assert.Null(table.Longest().Held);
        foreach (SqliteConnection c in connections)
            c.Dispose();
    }

    [Fact]
    public void A_connection_held_again_after_its_hold_was_reported_is_reported_again_when_overdue()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time);
        using var connection = new SqliteConnection();
        for (int hold = 0; hold < 3; hold++)
        {
            int held0 = table.Add(connection, "session", heldByDesign: false, where: null, fake.Now);
            fake.Time.Advance(TimeSpan.FromSeconds(10));
            Assert.Empty(table.TakeOverdue(TimeSpan.FromSeconds(30), fake.Now));
            fake.Time.Advance(TimeSpan.FromSeconds(30));
            (HolderTable.Holder holder, TimeSpan held) = Assert.Single(table.TakeOverdue(TimeSpan.FromSeconds(30), fake.Now));
            Assert.Equal(TimeSpan.FromSeconds(40), held);
            Assert.True(holder.Reported);
            Assert.True(table.TryRemove(connection, held0, out HolderTable.Holder removed));
            Assert.True(removed.Reported);
        }
    }

    [Fact]
    public void A_connection_held_by_design_is_timed_but_never_overdue()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time);
        using var shared = new SqliteConnection();
        table.Add(shared, "the shared connection", heldByDesign: true, where: null, fake.Now);
        fake.Time.Advance(TimeSpan.FromHours(1));
        Assert.Empty(table.TakeOverdue(TimeSpan.FromSeconds(1), fake.Now));
        Assert.Equal(TimeSpan.FromHours(1), table.Longest().Held);
    }

    [Fact]
    public void Holders_added_and_removed_from_many_threads_while_scans_run_are_each_reported_exactly_once()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time, expectedHolders: 8);
        const int Threads = 6, Rounds = 6 * 2_000;
        long now = fake.Now + 1; // every hold below started long before: overdue at once
        var scanned = new ConcurrentDictionary<long, int>();
        var released = new ConcurrentDictionary<long, bool>();
        int mismatches = 0, scans = 0;
        using var firstScan = new ManualResetEventSlim();
        using var stop = new CancellationTokenSource();

        // Two scanners on threads of their own, so they run beside the workers even on a machine with few cores.
        Thread[] scanners = [.. Enumerable.Range(0, 2).Select(i => new Thread(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                foreach ((HolderTable.Holder holder, _) in table.TakeOverdue(TimeSpan.Zero, now))
                {
                    if (holder.Owner is null)
                        Interlocked.Increment(ref mismatches);
                    scanned.AddOrUpdate(holder.Started, 1, (_, n) => n + 1);
                }

                _ = table.Longest();
                Interlocked.Increment(ref scans);
                firstScan.Set();
            }
        }))];
        foreach (Thread scanner in scanners)
            scanner.Start();
        Assert.True(firstScan.Wait(TimeSpan.FromSeconds(30)));

        Parallel.For(0, Threads, new ParallelOptions { MaxDegreeOfParallelism = Threads }, t =>
        {
            // Several connections per thread, so neighbourhoods fill and some go to the overflow dictionary.
            var mine = Enumerable.Range(0, 6).Select(_ => new SqliteConnection()).ToArray();
            var startedOf = new long[mine.Length];
            var holdOf = new int[mine.Length];
            string owner = $"thread {t}";
            for (int r = 0; r < Rounds; r++)
            {
                int k = r % mine.Length;
                startedOf[k] = (1_000_000L * (t + 1)) + r + 1;
                holdOf[k] = table.Add(mine[k], owner, heldByDesign: false, where: null, startedOf[k]);
                if (k != mine.Length - 1)
                    continue;
                for (int j = 0; j < mine.Length; j++)
                {
                    if (!table.TryRemove(mine[j], holdOf[j], out HolderTable.Holder holder) || holder.Owner != owner || holder.Started != startedOf[j])
                        Interlocked.Increment(ref mismatches);
                    released[holder.Started] = holder.Reported;
                }
            }

            foreach (SqliteConnection c in mine)
                c.Dispose();
        });
        stop.Cancel();
        foreach (Thread scanner in scanners)
            scanner.Join();

        Assert.Equal(0, mismatches);
        Assert.Equal(Threads * Rounds, released.Count);
        Assert.True(scans > 1);
        Assert.True(scanned.Count > 0, "no scan ever saw a hold");

        // A scan reported a hold exactly when its release was told it had been reported, and no hold twice.
        Assert.DoesNotContain(scanned, s => s.Value != 1);
        Assert.DoesNotContain(released, r => r.Value != scanned.ContainsKey(r.Key));
        Assert.Null(table.Longest().Held);
        Assert.Empty(table.TakeOverdue(TimeSpan.Zero, now));
    }

    [Fact]
    public void A_hold_serving_several_calls_is_of_its_first_statement()
    {
        var table = new HolderTable(TimeProvider.System);
        object connection = new();
        int hold = table.Add(connection, "a session", heldByDesign: false, where: null, started: 1);
        table.Label(hold, 3);
        table.Label(hold, 5);
        Assert.True(table.TryRemove(connection, hold, out HolderTable.Holder holder));
        Assert.Equal(3, holder.Kind);

        int next = table.Add(connection, "a call", heldByDesign: false, where: null, started: 2);
        Assert.True(table.TryRemove(connection, next, out HolderTable.Holder unlabelled));
        Assert.Equal(0, unlabelled.Kind);
    }

    [Fact]
    public void A_slot_taken_again_holds_its_new_owner_flow_and_stack_not_its_last_holds()
    {
        // A release leaves the owner and the flow in the freed slot, for the next hold to skip writing them when they are
        // the same: one thread's holds come back to its slot, so each hold here lands where the last one was.
        var fake = new Fake();
        var table = new HolderTable(fake.Time);
        object connection = new();
        var flow = new FlowState();
        var where = new HolderTable.Acquirer("at Here()");

        int first = table.Add(connection, "a call", heldByDesign: false, where, started: 10, flow);
        Assert.True(table.TryFlowOf(first, out FlowState? flowOfFirst));
        Assert.Same(flow, flowOfFirst);
        Assert.True(table.TryRemove(connection, first, out HolderTable.Holder firstHolder));
        Assert.Equal(("a call", 10L), (firstHolder.Owner, firstHolder.Started));
        Assert.Equal("at Here()", firstHolder.Stack);
        Assert.Same(flow, firstHolder.Flow);

        // Another owner, no flow, no stack: none of the last hold's.
        int second = table.Add(connection, "a session", heldByDesign: false, where: null, started: 20);
        Assert.Equal(first, second);
        Assert.True(table.TryFlowOf(second, out FlowState? flowOfSecond));
        Assert.Null(flowOfSecond);
        Assert.True(table.TryRemove(connection, second, out HolderTable.Holder secondHolder));
        Assert.Equal(("a session", 20L), (secondHolder.Owner, secondHolder.Started));
        Assert.Null(secondHolder.Flow);
        Assert.Null(secondHolder.Stack);

        // The first owner and flow again, after a hold without them.
        int third = table.Add(connection, "a call", heldByDesign: false, where: null, started: 30, flow);
        Assert.Equal(first, third);
        Assert.True(table.TryRemove(connection, third, out HolderTable.Holder thirdHolder));
        Assert.Equal(("a call", 30L), (thirdHolder.Owner, thirdHolder.Started));
        Assert.Same(flow, thirdHolder.Flow);
        Assert.Null(thirdHolder.Stack);

        // A free slot names no holder, whatever it kept.
        Assert.Null(table.Longest().Held);
        Assert.Empty(table.TakeOverdue(TimeSpan.Zero, fake.Now));
    }
}
