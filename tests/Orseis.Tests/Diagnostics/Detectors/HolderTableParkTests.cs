using Microsoft.Data.Sqlite;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// A scope's parked connection keeps its slot in the holder table between its holds (<see cref="HolderTable.TryEndKeeping"/>):
/// while parked, no scan, no report and no other acquire sees it or takes its slot; the next hold of the connection is that
/// slot again; once it leaves its parking (given back, or a park refused) the slot is free as after a release.
/// </summary>
public sealed class HolderTableParkTests
{
    [Fact]
    public void A_kept_slot_is_seen_by_no_scan_taken_by_no_other_hold_and_restarted_as_a_new_hold()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time);
        using var parked = new SqliteConnection();
        using var other = new SqliteConnection();
        long started = fake.Now;
        int hold = table.Add(parked, "a call", heldByDesign: false, where: null, started);
        table.Label(hold, 3);
        fake.Time.Advance(TimeSpan.FromSeconds(40));

        // The hold ends as a release ends it: the same holder, its kind.
        Assert.True(table.TryEndKeeping(parked, hold, out HolderTable.Holder holder, out bool kept));
        Assert.True(kept);
        Assert.Equal(new HolderTable.Holder(started, "a call", null, false, null, 3), holder);
        Assert.False(table.TryEndKeeping(parked, hold, out _, out _)); // ended once
        Assert.False(table.TryRemove(parked, hold, out _));

        // Parked: nothing held, nothing overdue, and another connection's acquire on this thread finds another slot.
        Assert.Null(table.Longest().Held);
        Assert.Empty(table.TakeOverdue(TimeSpan.FromSeconds(30), fake.Now));
        int otherHold = table.Add(other, "another call", heldByDesign: false, where: null, fake.Now);
        Assert.NotEqual(hold, otherHold);
        Assert.True(table.TryRemove(other, otherHold, out _));

        // The scope's next call: a new hold in the same slot, unlabelled, timed from its own start, and a release as any.
        fake.Time.Advance(TimeSpan.FromSeconds(40));
        long again = fake.Now;
        Assert.Equal(hold, table.Restart(hold, "a call", where: null, again));
        Assert.True(table.Unlabelled(hold));
        Assert.Empty(table.TakeOverdue(TimeSpan.FromSeconds(30), fake.Now));
        fake.Time.Advance(TimeSpan.FromSeconds(31));
        (HolderTable.Holder overdue, TimeSpan held) = Assert.Single(table.TakeOverdue(TimeSpan.FromSeconds(30), fake.Now));
        Assert.Equal(again, overdue.Started);
        Assert.Equal(TimeSpan.FromSeconds(31), held);
        Assert.True(table.TryRemove(parked, hold, out HolderTable.Holder released));
        Assert.Equal(again, released.Started);
        Assert.True(released.Reported);

        // Released, the slot is free: this thread's next acquire takes it.
        Assert.Equal(hold, table.Add(other, "another call", heldByDesign: false, where: null, fake.Now));
    }

    [Fact]
    public void A_kept_slot_freed_is_taken_again_and_the_parked_connection_no_longer_releases_it()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time);
        using var parked = new SqliteConnection();
        using var next = new SqliteConnection();
        int hold = table.Add(parked, "a call", heldByDesign: false, where: null, fake.Now);
        Assert.True(table.TryEndKeeping(parked, hold, out _, out bool kept));
        Assert.True(kept);

        table.Free(hold);
        int taken = table.Add(next, "another call", heldByDesign: false, where: null, fake.Now);
        Assert.Equal(hold, taken);
        Assert.False(table.TryRemove(parked, hold, out _)); // the slot is the next connection's now
        Assert.True(table.TryRemove(next, taken, out _));
    }

    [Fact]
    public void A_hold_in_the_overflow_is_removed_there_and_keeps_no_slot()
    {
        var fake = new Fake();
        var table = new HolderTable(fake.Time, expectedHolders: 1); // 64 slots
        SqliteConnection[] connections = [.. Enumerable.Range(0, 65).Select(_ => new SqliteConnection())];
        int[] holds = [.. connections.Select(c => table.Add(c, "a call", heldByDesign: false, where: null, fake.Now))];
        Assert.True(holds[^1] < HolderTable.NoHold);

        Assert.True(table.TryEndKeeping(connections[^1], holds[^1], out HolderTable.Holder holder, out bool kept));
        Assert.False(kept);
        Assert.Equal("a call", holder.Owner);
        Assert.False(table.TryRemove(connections[^1], holds[^1], out _));
        foreach (SqliteConnection connection in connections)
            connection.Dispose();
    }

    [Fact]
    public void A_parked_connection_keeps_its_slot_for_its_next_hold_and_frees_it_when_given_back_or_refused()
    {
        var fake = new Fake(o => o.Detectors = FindingKind.All);
        using var telemetry = new PoolTelemetry("pool", "sqlite", null, fake.Options);
        using var parked = new SqliteConnection();
        using var other = new SqliteConnection();
        telemetry.EnterFlow();
        OpenStart start = telemetry.OpenStarting(async: false);
        int hold = telemetry.Acquired(parked, "a call", openedAt: telemetry.OpenCompleted(start, parked), flow: start.Flow);
        Assert.NotEqual(HolderTable.NoHold, hold);

        // Parked: the hold ended, the slot kept; no longer in use.
        fake.Time.Advance(Fake.Ms(1));
        int kept = hold;
        long parkedAt = telemetry.Parked(parked, ref kept);
        Assert.Equal(hold, kept);
        Assert.Equal(fake.Now, parkedAt);
        Assert.Equal(0, telemetry.InUse);
        Assert.Equal(1, telemetry.ParkedNow);
        int otherHold = telemetry.Acquired(other, "another call", openedAt: fake.Now);
        Assert.NotEqual(hold, otherHold);
        telemetry.Released(other, otherHold);

        // Taken by the scope's next call: its hold is the kept slot.
        fake.Time.Advance(Fake.Ms(1));
        int again = telemetry.Unparked(parked, "a call", acquirer: null, parkedAt, kept);
        Assert.Equal(hold, again);
        Assert.Equal(1, telemetry.InUse);
        Assert.Equal(0, telemetry.ParkedNow);

        // Parked again and given back (the sweep, the scope's end): the slot is free for this thread's next acquire.
        kept = again;
        parkedAt = telemetry.Parked(parked, ref kept);
        telemetry.ParkGivenBack(parkedAt, kept);
        Assert.Equal(0, telemetry.ParkedNow);
        Assert.Equal(0, telemetry.InUse);
        int afterGivenBack = telemetry.Acquired(other, "another call", openedAt: fake.Now);
        Assert.Equal(hold, afterGivenBack);

        // A park refused (another connection parked first) frees the slot too; the release that follows finds no hold.
        kept = afterGivenBack;
        telemetry.Parked(other, ref kept);
        Assert.Equal(afterGivenBack, kept);
        telemetry.ParkRefused(kept);
        Assert.Equal(0, telemetry.Released(other, afterGivenBack));
        Assert.Equal(hold, telemetry.Acquired(parked, "a call", openedAt: fake.Now));
    }
}
