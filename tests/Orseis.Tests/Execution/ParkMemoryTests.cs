namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="ParkMemory"/> on its own: statement keys, the unused streak that stops parking, the probe's cadence, a reuse
/// that resets it, and two statements sharing a cell.
/// </summary>
public sealed class ParkMemoryTests
{
    [Fact]
    public void A_key_depends_on_the_text_not_the_string_instance_and_is_never_zero()
    {
        const string Text = "select name from webstudy_items where id = @id";
        string copy = new(Text.AsSpan());
        Assert.NotSame(Text, copy);
        Assert.Equal(ParkMemory.KeyOf(Text), ParkMemory.KeyOf(copy));
        Assert.Equal(0, ParkMemory.KeyOf(null));
        string[] texts = ["", "x", "abc", "abcd", "select 1", "select 2", "select name from items where id = @id",
            "select name from items where id = @ix", "select id from items where name = @name"];
        int[] keys = [.. texts.Select(ParkMemory.KeyOf)];
        Assert.DoesNotContain(0, keys);
        Assert.Equal(keys.Length, keys.Distinct().Count());
    }

    [Fact]
    public void Unused_parks_in_a_row_stop_parking_but_for_one_probe_in_sixteen()
    {
        var memory = new ParkMemory();
        int key = ParkMemory.KeyOf("select 1");
        for (int i = 1; i < ParkMemory.Threshold; i++)
        {
            memory.Unused(key);
            Assert.False(memory.Skips(key));
        }

        memory.Unused(key);
        bool[] skips = [.. Enumerable.Range(0, 2 * ParkMemory.ProbeEvery).Select(_ => memory.Skips(key))];
        Assert.Equal(2, skips.Count(s => !s));
        Assert.False(skips[ParkMemory.ProbeEvery - 1]);
        Assert.False(skips[(2 * ParkMemory.ProbeEvery) - 1]);

        memory.Reused(key); // a probe was taken: the statement parks again
        Assert.Equal(0, memory.StreakOf(key));
        Assert.False(memory.Skips(key));
    }

    [Fact]
    public void Two_statements_sharing_a_cell_park_as_before_while_one_is_reused()
    {
        // Two statements whose keys fall in one cell but name different owners.
        var byCell = new Dictionary<int, int>();
        int reusedKey = 0, unusedKey = 0;
        for (int i = 0; reusedKey == 0; i++)
        {
            int key = ParkMemory.KeyOf($"select {i} as v");
            if (byCell.TryGetValue(key & (ParkMemory.Cells - 1), out int other) && other != key)
                (reusedKey, unusedKey) = (other, key);
            byCell[key & (ParkMemory.Cells - 1)] = key;
        }

        var memory = new ParkMemory();
        for (int i = 0; i < 40; i++)
        {
            Assert.False(memory.Skips(unusedKey));
            memory.Unused(unusedKey);
            Assert.False(memory.Skips(reusedKey));
            memory.Reused(reusedKey);
        }

        // Alone, the unused one stops after Threshold parks.
        for (int i = 0; i < ParkMemory.Threshold; i++)
            memory.Unused(unusedKey);
        Assert.True(memory.Skips(unusedKey));
        Assert.False(memory.Skips(reusedKey)); // the other one reads a cell that is not its own: it parks as before
    }
}
