using System.Globalization;

namespace Orseis.Trace.Cli;

/// <summary>Reads the durations of <c>--duration</c> and <c>--interval</c>: <c>2.5</c> (seconds), <c>500ms</c>, <c>30s</c>,
/// <c>2m</c>, <c>1h</c> or <c>hh:mm:ss</c>.</summary>
internal static class Durations
{
    public static TimeSpan Parse(string option, string text)
    {
        string t = text.Trim();
        (string number, double scale) = t switch
        {
            _ when t.EndsWith("ms", StringComparison.OrdinalIgnoreCase) => (t[..^2], 0.001),
            _ when t.EndsWith('s') || t.EndsWith('S') => (t[..^1], 1),
            _ when t.EndsWith('m') || t.EndsWith('M') => (t[..^1], 60),
            _ when t.EndsWith('h') || t.EndsWith('H') => (t[..^1], 3600),
            _ => (t, 1),
        };
        if (double.TryParse(number, NumberStyles.Float, CultureInfo.InvariantCulture, out double value) && double.IsFinite(value))
        {
            if (value <= 0)
                throw new ToolError(ExitCode.BadValue, $"{option} must be more than zero (got '{text}')");
            return TimeSpan.FromSeconds(value * scale);
        }

        if (t.Contains(':', StringComparison.Ordinal) && TimeSpan.TryParse(t, CultureInfo.InvariantCulture, out TimeSpan span))
        {
            if (span <= TimeSpan.Zero)
                throw new ToolError(ExitCode.BadValue, $"{option} must be more than zero (got '{text}')");
            return span;
        }

        throw new ToolError(ExitCode.BadValue, $"{option} '{text}' is not a duration: give seconds (2.5), 500ms, 30s, 2m or hh:mm:ss");
    }

    public static TimeSpan Interval(string text)
    {
        TimeSpan interval = Parse("--interval", text);
        if (interval < TimeSpan.FromSeconds(0.1) || interval > TimeSpan.FromHours(1))
            throw new ToolError(ExitCode.BadValue, $"--interval must be from 0.1 s to 3600 s (got '{text}')");
        return interval;
    }
}
