namespace Orseis.WebStudy;

/// <summary>One endpoint loaded once by hey: what hey saw, what the app counted, what the machine was doing.</summary>
/// <param name="Shape">The request shape's name.</param>
/// <param name="Strategy">percall, session or scope.</param>
/// <param name="Round">The round, from 1.</param>
/// <param name="Order">Its place in the round (1: first of the shape).</param>
/// <param name="RequestsPerSecond">Requests answered 200 per second of hey's wall time.</param>
/// <param name="Answered">Requests answered 200.</param>
/// <param name="Failed">Requests answered with another status or not at all, as hey counted them (the app answers 503 to a
/// request whose statement failed), or the app's own count of failed requests if that is larger.</param>
/// <param name="P50Ms">hey's median latency, ms.</param>
/// <param name="P99Ms">hey's 99th percentile latency, ms.</param>
/// <param name="OpensPerRequest">Connections the endpoint's Orseis database opened, per request answered.</param>
/// <param name="ReusesPerRequest">Calls that took a scope's parked connection, per request answered.</param>
/// <param name="ParkedMsPerRequest">Milliseconds connections sat parked in the endpoint's scopes, per request answered
/// (timed only with --detectors; NaN otherwise).</param>
/// <param name="LoadAverage">The machine's 1-minute load average as the load began.</param>
/// <param name="MachineBusy">The share of all cores' time busy while hey ran (0..1).</param>
/// <param name="OthersBusy">The share of all cores' time busy with anything but the app, MariaDB and hey (other work on the machine).</param>
internal sealed record LoadResult(
    string Shape, string Strategy, int Round, int Order, double RequestsPerSecond, long Answered, long Failed, double P50Ms, double P99Ms,
    double OpensPerRequest, double ReusesPerRequest, double ParkedMsPerRequest, double? LoadAverage, double? MachineBusy, double? OthersBusy);

/// <summary>A value over rounds: its median and range.</summary>
internal sealed record Spread(double Median, double Min, double Max, int Count)
{
    public static Spread? Of(IEnumerable<double> values)
    {
        double[] v = [.. values.Where(double.IsFinite).Order()];
        if (v.Length == 0)
            return null;
        double median = v.Length % 2 == 1 ? v[v.Length / 2] : (v[(v.Length / 2) - 1] + v[v.Length / 2]) / 2;
        return new Spread(median, v[0], v[^1], v.Length);
    }
}

/// <summary>One strategy of one shape over the rounds.</summary>
internal sealed record StrategySummary(
    string Strategy, Spread? RequestsPerSecond, Spread? P99Ms, long Failed, Spread? OpensPerRequest, Spread? ReusesPerRequest, Spread? ParkedMsPerRequest);

/// <summary>A ratio of two strategies' requests/s, taken within each round (the two loads side by side in time).</summary>
internal sealed record RatioSummary(string Name, Spread? Ratio);

/// <summary>One shape over the rounds.</summary>
internal sealed record ShapeSummary(
    string Shape, string Description, int MaxPoolSize, int Clients, StrategySummary[] Strategies, RatioSummary[] Ratios);

/// <summary>Everything the command writes to its .json file.</summary>
internal sealed record WebStudyResult(
    DateTimeOffset StartedUtc, double Minutes, string? Commit, int Cores, string? Cpu, string Runtime, string Server, bool ServerCpuCounted,
    int Rounds, int Seconds, bool Detectors, bool CutShort, double? LoadAverageBefore, double? LoadAverageAfter, ShapeSummary[] Shapes, LoadResult[] Loads);
