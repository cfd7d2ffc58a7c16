using System.Collections.Concurrent;
using System.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Orseis.Scenarios;

/// <summary>
/// The logger a scenario's databases write their findings to (<see cref="Orseis.Diagnostics.DiagnosticsOptions.Logger"/>):
/// it notes the kind and the moment (<see cref="Stopwatch.GetTimestamp"/>) each finding is published, which is when a
/// user's log would show it. Findings made while a report is read (the PoolSize advice) arrive when the report is read.
/// </summary>
internal sealed class FindingArrivals : ILogger
{
    private readonly ConcurrentQueue<(string Kind, long At)> _arrivals = new();

    public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Warning;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        long at = Stopwatch.GetTimestamp();
        if (eventId.Id != 1 || state is not IReadOnlyList<KeyValuePair<string, object?>> fields)
            return;
        if (fields.FirstOrDefault(f => f.Key == "Kind").Value is string kind)
            _arrivals.Enqueue((kind, at));
    }

    /// <summary>Each kind's arrivals in seconds after <paramref name="onset"/> (a <see cref="Stopwatch"/> timestamp), in order.</summary>
    public Dictionary<string, double[]> Since(long onset) =>
        _arrivals.GroupBy(a => a.Kind).ToDictionary(g => g.Key, g => g.Select(a => Stopwatch.GetElapsedTime(onset, a.At).TotalSeconds).Order().ToArray());
}
