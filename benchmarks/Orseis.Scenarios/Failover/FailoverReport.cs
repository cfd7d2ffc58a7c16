using System.Text;
using Orseis.Scenarios.ColdStart;
using static Orseis.Scenarios.ColdStart.StudyText;
using Run = Orseis.Scenarios.Failover.FailoverCommand.Run;

namespace Orseis.Scenarios.Failover;

/// <summary>The failover study's result in markdown: one table over the runs, a timeline of the first run, what the detectors said.</summary>
internal static class FailoverReport
{
    public static string Write(
        List<Run> runs, int concurrency, int rate, double sleep, TimeSpan duration, TimeSpan at, TimeSpan down, int maxPool, int runCount, TimeSpan took)
    {
        var text = new StringBuilder();
        text.AppendLine(Invariant(
            $"{concurrency} hey workers for {duration.TotalSeconds:0} s, each at most {rate} requests a second, each request `select sleep({sleep})` on a pooled connection (Max Pool Size {maxPool}); ") +
            Invariant($"the server stopped {at.TotalSeconds:0} s in and started again after {down.TotalSeconds:0} s down; {runCount} run(s), {took.TotalMinutes:0.0} min."));
        text.AppendLine("Over runs, the median and [range]. Times in seconds; \"errors for\" runs from the first failed answer to the last, " +
                        "\"after up\" from the server answering again to the last failed answer.");
        text.AppendLine();
        text.AppendLine("| app | ok/s before | p50 before | server down | failed requests | errors for | after up | slowest | p50 after | failures | Orseis findings |");
        text.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|");
        foreach (var group in runs.GroupBy(r => r.Config))
        {
            Run[] all = [.. group];
            string failures = string.Join("; ", all.SelectMany(r => r.NewErrors.Keys).Distinct().Select(e => e.Length > 70 ? e[..70] + "..." : e));
            string findings = string.Join(", ", all.SelectMany(r => r.NewFindings.Keys).Distinct().Order()
                .Select(k => Invariant($"{k} {all.Count(r => r.NewFindings.ContainsKey(k))}/{all.Length}")));
            text.Append(Invariant($"| {group.Key} | {S(all, r => r.OkPerSecondBefore, "0")} | {S(all, r => r.MedianBefore, "0.000")} "));
            text.Append(Invariant($"| {S(all, r => r.UpAt - r.DownAt)} | {S(all, r => r.Failed, "0")} | {S(all, r => r.ErrorSpan)} | {S(all, r => r.ErrorsAfterUp)} "));
            text.AppendLine(Invariant(
                $"| {S(all, r => r.Slowest)} | {S(all, r => r.MedianAfter, "0.000")} | {(failures.Length == 0 ? "none" : failures)} | {(findings.Length == 0 ? "none" : findings)} |"));
        }

        text.AppendLine();
        text.AppendLine("Run 1, second by second from 2 s before the server went down (requests answered in that second: ok / failed):");
        text.AppendLine();
        foreach (Run run in runs.Where(r => r.Number == 1))
            text.AppendLine(Invariant($"- {run.Config}: {Timeline(run)}"));

        text.AppendLine();
        text.AppendLine("What the detectors said (the first finding of each kind, in the first run that had one):");
        text.AppendLine();
        foreach (var group in runs.GroupBy(r => r.Config))
        {
            foreach (var kind in group.SelectMany(r => r.Examples.Select(f => (r.Number, Finding: f))).GroupBy(x => x.Finding.Kind))
            {
                (int number, SlowAppFinding finding) = kind.First();
                text.AppendLine(Invariant($"- {group.Key}, run {number}: **{finding.Kind}**: {finding.Message}"));
            }
        }

        return text.ToString();
    }

    /// <summary>Answers per second, ok/failed, from 2 s before the stop to 8 s after the server was back; the outage in brackets.</summary>
    private static string Timeline(Run run)
    {
        int first = Math.Max(0, (int)Math.Floor(run.DownAt) - 2), last = (int)Math.Ceiling(run.UpAt) + 8;
        var seconds = new List<string>();
        for (int s = first; s < last; s++)
        {
            HeyRequest[] answered = [.. run.Hey.Requests.Where(r => r.Offset + r.Seconds >= s && r.Offset + r.Seconds < s + 1)];
            int ok = answered.Count(r => r.Status == 200);
            string cell = Invariant($"{ok}/{answered.Length - ok}");
            bool down = s + 1 > run.DownAt && s < run.UpAt;
            seconds.Add(down ? $"[{cell}]" : cell);
        }

        return string.Join(" ", seconds);
    }

    /// <summary>Median [range] over the runs that have the value (a run whose server came back too late has no "after").</summary>
    private static string S(Run[] runs, Func<Run, double> value, string format = "0.00")
    {
        double[] values = [.. runs.Select(value).Where(v => !double.IsNaN(v))];
        return values.Length == 0 ? "-" : Spread(values, format);
    }
}
