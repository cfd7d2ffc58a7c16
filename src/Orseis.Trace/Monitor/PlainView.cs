using System.Globalization;
using Orseis.Diagnostics;

namespace Orseis.Trace.Monitor;

/// <summary><c>monitor</c> as lines: one per pool and interval, a finding as soon as it arrives (stdout not a terminal).</summary>
internal static class PlainView
{
    public static string Line(MonitorSnapshot s, PoolSnapshot p) => string.Create(CultureInfo.InvariantCulture,
        $"[{s.Time:HH:mm:ss}] {Name(p)}: opens/s {p.OpensPerSecond:0.##}, commands/s {p.CommandsPerSecond:0.##}, "
        + $"in use {Num(p.InUse)}/{Num(p.Max)} max, idle {Num(p.Idle)}, waiting {Num(p.Waiting)}, "
        + $"wait {Q(p.WaitMs)}, use {Q(p.UseMs)}, command {Q(p.CommandMs)}, timeouts/s {p.TimeoutsPerSecond:0.##}, "
        + $"retries/s {p.RetriesPerSecond:0.##}; "
        + $"thread pool queue {Num(s.ThreadPool.QueueLength)}, threads {Num(s.ThreadPool.Threads)}");

    /// <summary>A finding's line, ending with the page that explains its kind (when this version knows the kind).</summary>
    public static string Finding(string pool, FindingSnapshot f) =>
        string.Create(CultureInfo.InvariantCulture, $"[{f.Time:HH:mm:ss.fff}] FINDING {f.Kind} {pool}: {f.Message} ({f.Figures})")
        + (FindingLinks.For(f.Kind) is { } link ? $" See {link}" : "");

    /// <summary>The pool and its database system; the system is unknown until its first meter reading.</summary>
    internal static string Name(PoolSnapshot p) => p.System.Length > 0 ? $"{p.Pool} ({p.System})" : p.Pool;

    internal static string Num(double? value) => value is { } v ? v.ToString("0.##", CultureInfo.InvariantCulture) : "-";

    internal static string Q(Quantiles? q) => q?.ToString() ?? "-";
}
