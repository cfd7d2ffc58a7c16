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
        for (int i = 0; i < connections.Length; i++)
        {
            starts[i] = fake.Now;
            table.Add(connections[i], $"owner {i}", heldByDesign: false, acquirer: null, starts[i]);
            fake.Time.Advance(TimeSpan.FromMilliseconds(1));
        }

        Assert.Equal(TimeSpan.FromMilliseconds(500), table.Longest().Held);
        Assert.Equal(500, table.TakeOverdue(TimeSpan.Zero, fake.Now).Count);
        Assert.Empty(table.TakeOverdue(TimeSpan.Zero, fake.Now));

        for (int i = connections.Length - 1; i >= 0; i--)
        {
            Assert.True(table.TryRemove(connections[i], out HolderTable.Holder holder));
            Assert.Equal($"owner {i}", holder.Owner);
            Assert.Equal(starts[i], holder.Started);
            Assert.True(holder.Reported);
            Assert.False(table.TryRemove(connections[i], out _));
        }

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
            table.Add(connection, "session", heldByDesign: false, acquirer: null, fake.Now);
            fake.Time.Advance(TimeSpan.FromSeconds(10));
            Assert.Empty(table.TakeOverdue(TimeSpan.FromSeconds(30), fake.Now));
            fake.Time.Advance(TimeSpan.FromSeconds(30));
            (HolderTable.Holder holder, TimeSpan held) = Assert.Single(table.TakeOverdue(TimeSpan.FromSeconds(30), fake.Now));
            Assert.Equal(TimeSpan.FromSeconds(40), held);
            Assert.True(holder.Reported);
            Assert.True(table.TryRemove(connection, out HolderTable.Holder removed));
            Assert.True(removed.Reported);
        }
    }

    [Fact]
    public void A_connection_held_by_design_is_timed_but_never_overdue()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time);
        using var shared = new SqliteConnection();
        table.Add(shared, "the shared connection", heldByDesign: true, acquirer: null, fake.Now);
        fake.Time.Advance(TimeSpan.FromHours(1));
        Assert.Empty(table.TakeOverdue(TimeSpan.FromSeconds(1), fake.Now));
        Assert.Equal(TimeSpan.FromHours(1), table.Longest().Held);
    }

    [Fact]
    public void Holders_added_and_removed_from_many_threads_while_scans_run_are_each_found_once_and_the_table_ends_empty()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time, expectedHolders: 8);
        const int Threads = 8, Rounds = 6 * 3_000;
        int mismatches = 0;
        using var stop = new CancellationTokenSource();
        var scanner = Task.Run(() =>
        {
            int scans = 0;
            while (!stop.IsCancellationRequested)
            {
                foreach ((HolderTable.Holder holder, _) in table.TakeOverdue(TimeSpan.Zero, fake.Now + 1))
                {
                    if (holder.Owner is null || holder.Started == 0)
                        Interlocked.Increment(ref mismatches);
                }

                _ = table.Longest();
                scans++;
            }

            return scans;
        });
        Parallel.For(0, Threads, new ParallelOptions { MaxDegreeOfParallelism = Threads }, t =>
        {
            // Several connections per thread, so neighbourhoods fill and some go to the overflow dictionary.
            var mine = Enumerable.Range(0, 6).Select(_ => new SqliteConnection()).ToArray();
            for (int r = 0; r < Rounds; r++)
            {
                SqliteConnection c = mine[r % mine.Length];
                long started = 1_000_000L * (t + 1) + r + 1;
                string owner = $"thread {t}";
                table.Add(c, owner, heldByDesign: false, acquirer: null, started);
                if (r % mine.Length != mine.Length - 1)
                    continue;
                for (int k = 0; k < mine.Length; k++)
                {
                    if (!table.TryRemove(mine[k], out HolderTable.Holder holder) || holder.Owner != owner || holder.Started / 1_000_000L != t + 1)
                        Interlocked.Increment(ref mismatches);
                }
            }

            foreach (SqliteConnection c in mine)
                c.Dispose();
        });
        stop.Cancel();
        Assert.True(scanner.Result > 0);
        Assert.Equal(0, mismatches);
        Assert.Null(table.Longest().Held);
        Assert.Empty(table.TakeOverdue(TimeSpan.Zero, fake.Now));
    }
}
