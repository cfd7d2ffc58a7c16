namespace Orseis.Scenarios;

/// <summary>Keeps every core busy for a while: the scheduling noise the suite's extra run is made beside.</summary>
internal static class CpuHog
{
    public static int Run(double seconds)
    {
        DateTime end = DateTime.UtcNow.AddSeconds(seconds);
        var threads = Enumerable.Range(0, Environment.ProcessorCount).Select(_ => new Thread(() =>
        {
            double x = 1;
            while (DateTime.UtcNow < end)
            {
                for (int i = 0; i < 100_000; i++)
                    x = Math.Sqrt(x + i);
            }

            GC.KeepAlive(x);
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
        return 0;
    }
}
