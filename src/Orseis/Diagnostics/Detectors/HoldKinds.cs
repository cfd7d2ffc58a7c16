namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// The kinds of hold the pool-size advice tells apart: a number per statement that began a hold (its SQL text, as the
/// call passed it), 1 to <see cref="Max"/>; 0 for holds no statement labelled and for statements past the first
/// <see cref="Max"/>. A load that mixes short lookups with long work holds connections for times that differ by
/// orders of magnitude; each kind's own percentile is its uncontended hold (see <see cref="PoolSizeAdvisor"/>). The
/// texts stay in memory only: facts and reports carry the number.
/// </summary>
internal sealed class HoldKinds
{
    /// <summary>How many statements get a number of their own.</summary>
    public const int Max = 16;

    private readonly string?[] _texts = new string?[Max + 1];
    private readonly Lock _adding = new();
    private int _count;

    // The kind found last by reference, tried first: a loop of one statement (a hold per call, opening per call) finds its
    // kind at once instead of searching the texts before it. Only a hint: a kind's text never changes once it is there.
    private int _last;

    /// <summary>The number of <paramref name="sql"/>: the same text gets the same number (a literal, at once by reference).</summary>
    public int Of(string sql)
    {
        int last = _last;
        if (ReferenceEquals(_texts[last], sql))
            return last; // _texts[0] is always null: no text is kind 0
        int count = Volatile.Read(ref _count);
        for (int kind = 1; kind <= count; kind++)
        {
            if (ReferenceEquals(_texts[kind], sql))
            {
                _last = kind;
                return kind;
            }
        }

        for (int kind = 1; kind <= count; kind++)
        {
            if (string.Equals(_texts[kind], sql, StringComparison.Ordinal))
                return kind;
        }

        return count >= Max ? 0 : Add(sql);
    }

    private int Add(string sql)
    {
        lock (_adding)
        {
            int count = _count;
            for (int kind = 1; kind <= count; kind++)
            {
                if (string.Equals(_texts[kind], sql, StringComparison.Ordinal))
                    return kind;
            }

            if (count >= Max)
                return 0;
            _texts[count + 1] = sql;
            Volatile.Write(ref _count, count + 1); // after the text: a reader that sees the count sees it
            return count + 1;
        }
    }
}
