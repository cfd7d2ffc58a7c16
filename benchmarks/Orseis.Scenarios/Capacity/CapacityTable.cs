using System.Text;
using static Orseis.Scenarios.ColdStart.StudyText;

namespace Orseis.Scenarios.Capacity;

/// <summary>The capacity study's report: per thread handling and load, what the clients got and what Orseis said.</summary>
internal static class CapacityTable
{
    public static string Write(List<CapacityPoint> points, CapacityLoad[] loads, int seconds, TimeSpan took, bool cut)
    {
        var text = new StringBuilder();
        text.AppendLine(Invariant($"hey -c CLIENTS -z {seconds}s against the SlowApp sample (MySqlConnector, async, each load's unit, every"));
        text.AppendLine("Orseis detector on), a fresh app process per point warmed up with 2 x CLIENTS requests (at least 20), against");
        text.AppendLine("a MariaDB of the study's own per thread handling; handling `postgresql`: the app on Npgsql against a PostgreSQL");
        text.AppendLine("15 of its own (a process per connection, `select pg_sleep(0.01)` for `wait`). Loads:");
        foreach (CapacityLoad load in loads)
            text.AppendLine(Invariant($"- `{load.Name}` (GET /{load.Path}): {load.Text}."));
        text.AppendLine(Invariant($"{points.Count} points, {took.TotalMinutes:0.0} min."));
        if (cut)
            text.AppendLine("**Cut short by --max-minutes: not every point was measured.**");
        Summary(text, points);
        FollowedTable(text, points);
        foreach (IGrouping<(string Handling, string Load), CapacityPoint> group in points.GroupBy(p => (p.Handling, p.Load.Name)))
        {
            CapacityPoint[] all = [.. group];
            int[] pools = [.. all.Select(p => p.Pool).Distinct().Order()];
            int[] clients = [.. all.Select(p => p.Clients).Distinct().Order()];
            text.AppendLine();
            text.AppendLine(Invariant($"### {group.Key.Handling}, load `{group.Key.Load}`"));
            text.AppendLine();
            text.AppendLine("What the clients got: requests answered 200 per second, p99 in ms, and requests that failed (when any).");
            text.AppendLine();
            Grid(text, all, pools, clients, Got);
            text.AppendLine();
            text.AppendLine("What Orseis said: opens that queued for a connection during the load; findings and the report's");
            text.AppendLine("RecommendedMaxPoolSize over the app's life (warm-up and load); then the server's connections and threads.");
            text.AppendLine();
            Grid(text, all, pools, clients, Said);
            text.AppendLine();
            text.AppendLine("At the advised size: the report's RecommendedMaxPoolSize, and the median ok/s at it over the median at this pool");
            text.AppendLine("(the advice holds when that is at least 0.90; \"kept\" where the advice was this pool: two medians of one size, not judged).");
            text.AppendLine();
            Grid(text, all, pools, clients, Followed);
        }

        return text.ToString();
    }

    /// <summary>Per load and client count, the best throughput under each thread handling and the smallest pool within 5 % of it.</summary>
    private static void Summary(StringBuilder text, List<CapacityPoint> points)
    {
        string[] handlings = [.. points.Select(p => p.Handling).Distinct()];
        text.AppendLine();
        text.AppendLine("### Best throughput per client count");
        text.AppendLine();
        text.AppendLine("Per thread handling: the highest ok/s over the pool sizes, and the smallest Max Pool Size within 5 % of it.");
        text.AppendLine();
        text.AppendLine("| load | clients | " + string.Join(" | ", handlings) + " |");
        text.AppendLine("|---|---:|" + string.Concat(handlings.Select(_ => "---:|")));
        foreach (IGrouping<(string Load, int Clients), CapacityPoint> row in points.GroupBy(p => (p.Load.Name, p.Clients)))
        {
            IEnumerable<string> cells = handlings.Select(h => row.Where(p => p.Handling == h).ToArray() switch
            {
                [] => "–",
                var at => Best(at),
            });
            text.AppendLine(Invariant($"| {row.Key.Load} | {row.Key.Clients} | ") + string.Join(" | ", cells) + " |");
        }
    }

    private static string Best(CapacityPoint[] at)
    {
        double best = at.Max(p => p.Hey.OkPerSecond);
        int knee = at.Where(p => p.Hey.OkPerSecond >= best * 0.95).Min(p => p.Pool);
        return Invariant($"{best:0}/s, pool {knee}");
    }

    private static void Grid(StringBuilder text, CapacityPoint[] all, int[] pools, int[] clients, Func<CapacityPoint, string> cell)
    {
        text.AppendLine("| clients | " + string.Join(" | ", pools.Select(p => Invariant($"pool {p}"))) + " |");
        text.AppendLine("|---:|" + string.Concat(pools.Select(_ => "---|")));
        foreach (int count in clients)
        {
            IEnumerable<string> cells = pools.Select(pool => all.FirstOrDefault(p => p.Pool == pool && p.Clients == count) is { } point
                ? cell(point)
                : "–");
            text.AppendLine(Invariant($"| {count} | ") + string.Join(" | ", cells) + " |");
        }
    }

    private static string Got(CapacityPoint p) =>
        Invariant($"{p.Hey.OkPerSecond:0}/s, p99 {p.Hey.P99Seconds * 1000:0.#}") + (p.Hey.Failed > 0 ? Invariant($", failed {p.Hey.Failed}") : "");

    private static string Followed(CapacityPoint p) => (p.After.RecommendedMaxPoolSize, p.Followed) switch
    {
        (null, _) => "no advice",
        ({ } advised, null) => Invariant($"{advised}: not followed"),
        (_, { } f) => Invariant($"{f.Advised}: {f.Kept:0.00}") + (f.Advised == p.Pool ? " (kept)" : "") + (f.Kept < AdviceFollowed.Kept && f.Advised != p.Pool ? " (lost)" : ""),
    };

    /// <summary>
    /// Every followed point as a row: the load's unit and statements, the current and advised sizes, the medians' ratios
    /// and each size's spread, and whether the advice held (kept at least 90 % and, where it named another size, the
    /// larger one passed it by at most 5 %).
    /// </summary>
    private static void FollowedTable(StringBuilder text, List<CapacityPoint> points)
    {
        CapacityPoint[] followed = [.. points.Where(p => p.Followed is not null)];
        if (followed.Length == 0)
            return;
        text.AppendLine();
        text.AppendLine("### Following the advice");
        text.AppendLine();
        text.AppendLine("Each point's advice (the first run's; the advice of every run at the current size in brackets), followed: fresh");
        text.AppendLine("app processes at the current size, the advised size and the larger one (4x the advised, at most one per client),");
        text.AppendLine("in rounds whose order turns. Ratios of medians; spread: (max - min) / median of one size's runs. Held: advised / current");
        text.AppendLine(Invariant($"at least {AdviceFollowed.Kept:0.00} and larger / advised at most {AdviceFollowed.Enough:0.00}; a kept size by the larger one alone (keeping a size says it is enough, and its advised / current is two runs of one size)."));
        text.AppendLine();
        text.AppendLine("| handling | load | unit | statements | clients | current | advised (runs) | advised / current | larger / advised | spread current, advised, larger | held |");
        text.AppendLine("|---|---|---|---|---:|---:|---|---:|---:|---|---|");
        foreach (CapacityPoint p in followed)
        {
            CapacityFollowed f = p.Followed!;
            string runs = string.Join(", ", f.Advices.Select(a => a?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "none"));
            string beyond = f.Beyond is { } b ? Invariant($"{b:0.00} (at {f.Larger})") : "–";
            string spread = Invariant($"{CapacityFollowed.Spread(f.AtCurrent):0.00}, {CapacityFollowed.Spread(f.AtAdvised):0.00}") +
                            (f.AtLarger.Count > 0 ? Invariant($", {CapacityFollowed.Spread(f.AtLarger):0.00}") : "");
            bool kept = f.Advised == p.Pool;
            bool held = AdviceFollowed.Holds(f.Kept, f.Beyond, kept);
            text.AppendLine(
                Invariant($"| {p.Handling} | {p.Load.Name} | {p.Load.Unit} | {(p.Load.Long ? "long" : "short")} | {p.Clients} | {p.Pool} | ") +
                Invariant($"{f.Advised} ({runs}) | {f.Kept:0.00} | {beyond} | {spread} | {(held ? "yes" : "no")}{(kept ? " (kept)" : "")} |"));
        }
    }

    private static string Said(CapacityPoint p)
    {
        var parts = new List<string>();
        if (p.QueuedOpens > 0)
            parts.Add(Invariant($"queued {p.QueuedOpens}"));
        parts.AddRange(p.Findings.OrderBy(f => f.Key, StringComparer.Ordinal).Select(f => Invariant($"{f.Key} x{f.Value}")));
        parts.Add(p.After.RecommendedMaxPoolSize is { } advice ? Invariant($"advice {advice}") : "no advice");
        parts.Add(p.Threads.PoolThreads > 0
            ? Invariant($"server {p.Threads.Connected} conn., {p.Threads.PoolThreads} threads")
            : Invariant($"server {p.Threads.Connected} threads"));
        return string.Join("; ", parts);
    }
}
