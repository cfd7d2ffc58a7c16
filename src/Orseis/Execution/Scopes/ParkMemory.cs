using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Orseis.Execution.Scopes;

/// <summary>
/// What one pool's scopes learned about parking after each statement: whether the connection parked at the end of a call
/// running it was taken by the scope's next call (reused) or given back by the sweep unused. A scope that lives for one
/// request (<c>app.UseOrseisScopes()</c>) never learns this itself; the statements do, across scopes. After
/// <see cref="Threshold"/> unused parks in a row and no reuse, a scope no longer parks after that statement but for one call
/// in <see cref="ProbeEvery"/>, a probe that notices the statement's next call coming back to back again (a reuse resets it).
/// </summary>
/// <remarks>
/// <para>
/// A fixed table of <see cref="Cells"/> cells, one int each, found by a hash of the statement's text that reads six
/// stretches of four characters spread over it, and its length (<see cref="KeyOf"/>): a few dozen instructions whatever the
/// text's length. A cell holds the hash's upper 24 bits (the statement that owns it), the unused streak (4 bits) and the
/// probe count (4 bits). A statement that finds its cell owned by another one (two statements, one cell) parks as before and
/// takes the cell over when it records; so two statements sharing a cell evict each other, and one that is reused keeps
/// resetting the cell: a shared cell parks as before rather than stopping a statement whose parks are reused. Only two
/// statements whose hashes are equal (same length, same sampled characters) share one record and its verdict.
/// </para>
/// <para>
/// No lock: cells are read and written whole, and two calls recording at once may lose one record (a streak one shorter,
/// a probe one later), which the next record mends.
/// </para>
/// </remarks>
internal sealed class ParkMemory
{
    /// <summary>The cells in the table: a power of two.</summary>
    public const int Cells = 256;

    /// <summary>Unused parks in a row, with no reuse between, after which a statement no longer parks (but probes).</summary>
    public const int Threshold = 6;

    /// <summary>One call in this many of a statement that no longer parks parks all the same: a probe.</summary>
    public const int ProbeEvery = 16;

    private const int OwnerMask = ~0xFF;
    private const int StreakMask = 0x0F;
    private const int ProbeShift = 4;

    private readonly int[] _cells = new int[Cells];

    /// <summary>
    /// The key of a statement's <paramref name="text"/> for this table, never 0; 0 for no text (a call whose statement is not
    /// known: it parks as before and records nothing).
    /// </summary>
    public static int KeyOf(string? text)
    {
        if (text is null)
            return 0;
        int n = text.Length;
        ulong h = (ulong)n * 0x9E3779B97F4A7C15UL;
        if (n >= 4)
        {
            // Six stretches of four characters, read as one ulong each: the start and end, and four between.
            ref byte first = ref Unsafe.As<char, byte>(ref MemoryMarshal.GetReference(text.AsSpan()));
            int last = n - 4;
            int step = last / 5;
            h = Mix(h, Unsafe.ReadUnaligned<ulong>(ref first));
            h = Mix(h, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref first, step * 2)));
            h = Mix(h, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref first, step * 4)));
            h = Mix(h, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref first, step * 6)));
            h = Mix(h, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref first, step * 8)));
            h = Mix(h, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref first, last * 2)));
        }
        else
        {
            for (int i = 0; i < n; i++)
                h = Mix(h, text[i]);
        }

        // The owner bits are never all zero, so a key is never 0 and an empty cell (0) is nobody's.
        return (int)(h >> 32) | 0x100;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Mix(ulong h, ulong value) => ((h ^ value) * 0xFF51AFD7ED558CCDUL) ^ (h >> 29);

    /// <summary>
    /// Whether a call that ran the statement of <paramref name="key"/> should give its connection back at once instead of
    /// parking: its last <see cref="Threshold"/> parks went back unused, and this call is not a probe.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Skips(int key)
    {
        if (key == 0)
            return false;
        ref int cell = ref _cells[key & (Cells - 1)];
        int value = Volatile.Read(ref cell);
        if (((value ^ key) & OwnerMask) != 0 || (value & StreakMask) < Threshold)
            return false;
        int probe = ((value >> ProbeShift) + 1) & (ProbeEvery - 1);
        Volatile.Write(ref cell, (value & ~(0xF << ProbeShift)) | (probe << ProbeShift));
        return probe != 0;
    }

    /// <summary>The connection parked after the statement of <paramref name="key"/> was taken by the scope's next call.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Reused(int key)
    {
        if (key == 0)
            return;
        ref int cell = ref _cells[key & (Cells - 1)];
        int owner = key & OwnerMask;
        if (Volatile.Read(ref cell) != owner)
            Volatile.Write(ref cell, owner);
    }

    /// <summary>The connection parked after the statement of <paramref name="key"/> went back to the pool unused.</summary>
    public void Unused(int key)
    {
        if (key == 0)
            return;
        ref int cell = ref _cells[key & (Cells - 1)];
        int value = Volatile.Read(ref cell);
        int owner = key & OwnerMask;
        if ((value & OwnerMask) != owner)
            Volatile.Write(ref cell, owner | 1); // another statement's cell, or an empty one: this one's now
        else if ((value & StreakMask) != StreakMask)
            Volatile.Write(ref cell, value + 1);
    }

    /// <summary>The unused streak recorded for <paramref name="key"/> (0 when its cell is another statement's): for tests.</summary>
    internal int StreakOf(int key)
    {
        int value = Volatile.Read(ref _cells[key & (Cells - 1)]);
        return ((value ^ key) & OwnerMask) == 0 ? value & StreakMask : 0;
    }
}
