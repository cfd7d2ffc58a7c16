namespace Orseis.Diagnostics;

/// <summary>Peaks kept by many threads at once without a lock.</summary>
internal static class Peaks
{
    /// <summary>Raises <paramref name="peak"/> to <paramref name="value"/> if that is higher.</summary>
    public static void Raise(ref long peak, long value)
    {
        long current = Volatile.Read(ref peak);
        while (value > current)
        {
            long seen = Interlocked.CompareExchange(ref peak, value, current);
            if (seen == current)
                return;
            current = seen;
        }
    }
}
