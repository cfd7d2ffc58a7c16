using System.Collections.Concurrent;
using System.Diagnostics;

namespace Orseis.IntegrationTests.Faults;

/// <summary>What a bounded load saw: calls, wrong results, the slowest call, and every failure by type and message.</summary>
public sealed class LoadResult
{
    private readonly ConcurrentDictionary<string, int> _failures = new();
    private readonly ConcurrentDictionary<string, string> _examples = new();
    private readonly ConcurrentQueue<long> _successTimes = new();
    private long _calls;
    private long _wrong;
    private long _slowestTicks;

    public Stopwatch Clock { get; } = Stopwatch.StartNew();

    public long Calls => Interlocked.Read(ref _calls);

    public long Wrong => Interlocked.Read(ref _wrong);

    public TimeSpan Slowest => TimeSpan.FromTicks(Interlocked.Read(ref _slowestTicks));

    public IReadOnlyDictionary<string, int> Failures => _failures;

    public int FailureCount => _failures.Values.Sum();

    /// <summary>Runs <paramref name="call"/> (which returns the value it got back) and records the outcome.</summary>
    public async Task RunAsync(int expected, Func<Task<int>> call)
    {
        long started = Clock.Elapsed.Ticks;
        try
        {
            int got = await call();
            if (got != expected)
                Interlocked.Increment(ref _wrong);
            _successTimes.Enqueue(Clock.Elapsed.Ticks);
        }
#pragma warning disable CA1031 // every failure is recorded and judged by the test
        catch (Exception error)
#pragma warning restore CA1031
        {
            string message = error.Message.Split('.')[0];
            string kind = $"{error.GetType().Name}: {message[..Math.Min(message.Length, 100)]}";
            _failures.AddOrUpdate(kind, 1, (_, n) => n + 1);
            _examples.TryAdd(kind, error.ToString());
        }
        finally
        {
            Interlocked.Increment(ref _calls);
            long took = Clock.Elapsed.Ticks - started;
            long seen;
            while (took > (seen = Interlocked.Read(ref _slowestTicks)) && Interlocked.CompareExchange(ref _slowestTicks, took, seen) != seen)
            {
            }
        }
    }

    /// <summary>The first success at or after <paramref name="since"/> on <see cref="Clock"/>; null when none.</summary>
    public TimeSpan? FirstSuccessAfter(TimeSpan since) =>
        _successTimes.Where(t => t >= since.Ticks).Select(t => (long?)t).Min() is { } first ? TimeSpan.FromTicks(first) : null;

    /// <summary>One full exception (with inner ones and stacks) per kind of failure.</summary>
    public string Examples() => string.Join(Environment.NewLine + Environment.NewLine, _examples.Values.Select(e => e.Length > 3000 ? e[..3000] : e));

    public override string ToString() =>
        $"{Calls} calls, {Wrong} wrong results, slowest {Slowest.TotalSeconds:0.00} s, {FailureCount} failures" +
        string.Concat(_failures.OrderByDescending(f => f.Value).Select(f => $"{Environment.NewLine}  {f.Value} x {f.Key}"));
}
