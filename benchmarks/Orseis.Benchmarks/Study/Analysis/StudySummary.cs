using System.Globalization;
using System.Text;

namespace Orseis.Benchmarks.Study.Analysis;

/// <summary>The study's answer in a few lines: the closing console summary and the markdown table.</summary>
public static class StudySummary
{
    /// <summary>The original study's figures (SQL Server Express, an <c>.mdf</c> file, 2014), as its article reports them.</summary>
    public const string Original2014 =
        "2014 (SQL Server Express, .mdf file): 8.5x at N = 32 (4 -> 34 ms), 12x at N = 5000 (505 -> 6079 ms), \"up to ten\" over N = 2..2^17";

    /// <summary>The closing summary printed at the end of a study run.</summary>
    public static string Console(StudyResults results, IEnumerable<string> files)
    {
        var text = new StringBuilder();
        text.AppendLine();
        text.AppendLine(Invariant($"== Open-per-call / reuse on {results.Provider} ({results.Package}): {results.Rounds} rounds, {results.Clock}, {results.Seconds / 60:F1} min =="));
        text.AppendLine("ratio = median of the rounds' paired ratios [95 % CI]; per query = median us, reuse -> open per call");
        string overSession = results.Points.Any(p => p.Variant == nameof(RatioStudy.ScopeOverSession))
            ? "the scope's time over the session's, the two timed side by side [95 % CI]"
            : "the scope's ratio over the session's (this run did not time them side by side)";
        if (results.Points.Any(p => p.Variant is nameof(RatioStudy.AdaptiveScope) or nameof(RatioStudy.SessionPerUnit)))
            text.AppendLine("scope = open per call inside a ConnectionScope per N calls, session = a Session per N calls: ratio to reuse [95 % CI], us per query; scope/session = " + overSession);
        string[] libraries = [.. results.Libraries];
        text.Append("       N");
        foreach (string library in libraries)
            text.Append(Invariant($" | {library,-40}"));
        text.AppendLine();
        foreach (int n in results.Points.Select(p => p.N).Distinct().Order())
        {
            text.Append(Invariant($"{n,8}"));
            foreach (string library in libraries)
            {
                StudyPoint? p = results.Points.FirstOrDefault(x => x.Library == library && x.Variant == nameof(RatioStudy.OpenPerCall) && x.N == n);
                text.Append(p is null ? Invariant($" | {"",-40}") : Invariant($" | {Cell(p),-22} {p.ReuseUsPerQuery,7:F2} -> {p.VariantUsPerQuery,7:F2}"));
            }

            if (results.Points.FirstOrDefault(x => x.Variant == nameof(RatioStudy.AdaptiveScope) && x.N == n) is { } scoped)
                text.Append(Invariant($" | scope {Cell(scoped),-22} {scoped.VariantUsPerQuery,7:F2}"));
            if (results.Points.FirstOrDefault(x => x.Variant == nameof(RatioStudy.SessionPerUnit) && x.N == n) is { } session)
                text.Append(Invariant($" | session {Cell(session),-22} {session.VariantUsPerQuery,7:F2}"));
            if (ScopeOverSessionCell(results, n) is { Length: > 0 } over)
                text.Append(Invariant($" | scope/session {over}"));

            text.AppendLine();
        }

        foreach (string library in libraries)
            text.AppendLine(Invariant($"{library}: {Medians(results, library)}"));
        text.AppendLine(Original2014);
        foreach (string file in files)
            text.AppendLine("wrote " + file);
        return text.ToString();
    }

    /// <summary>One line per library: the median ratio over N, its range and the widest interval; the extra variants.</summary>
    public static string Medians(StudyResults results, string library)
    {
        StudyPoint[] line = [.. results.Line(library, nameof(RatioStudy.OpenPerCall))];
        if (line.Length == 0)
            return ScopeMedians(results, library).TrimStart(';', ' ') is { Length: > 0 } scopeOnly ? scopeOnly : "no results";
        StudyPoint widest = line.MaxBy(p => double.IsNaN(p.HalfWidthPercent) ? 0 : p.HalfWidthPercent)!;
        string interval = double.IsNaN(widest.HalfWidthPercent)
            ? "no interval (it needs 6 rounds or more)"
            : Invariant($"widest interval +-{widest.HalfWidthPercent:F1} % (N = {widest.N})");
        var text = new StringBuilder(Invariant(
            $"median ratio over N {StudyPoint.Median(line.Select(p => p.Ratio)):F2}x (range {line.Min(p => p.Ratio):F2}-{line.Max(p => p.Ratio):F2}), per query {StudyPoint.Median(line.Select(p => p.ReuseUsPerQuery)):F2} -> {StudyPoint.Median(line.Select(p => p.VariantUsPerQuery)):F2} us, {interval}"));
        text.Append(ScopeMedians(results, library));

        foreach (string variant in new[] { nameof(RatioStudy.OpenPerCallUnpooled), nameof(RatioStudy.OpenPerCallNoResetOnClose) })
        {
            StudyPoint[] extra = [.. results.Line(library, variant)];
            if (extra.Length > 0)
                text.Append(Invariant($"; {Short(variant)} (N <= {extra.Max(p => p.N)}) median {StudyPoint.Median(extra.Select(p => p.Ratio)):F2}x"));
        }

        return text.ToString();
    }

    /// <summary>The markdown table of one or more runs: ratio, interval and per-query times per provider, library and N.</summary>
    public static string Markdown(IEnumerable<StudyResults> runs, string heading)
    {
        var text = new StringBuilder(Invariant($"# {heading}\n\n"));
        text.Append("Ratio = the time of N sequential `select 1` opening a pooled connection per call (open per call), or open per call ");
        text.Append("inside one ConnectionScope per N calls (Orseis in a ConnectionScope), or in one Session per N calls (a Session per N), ");
        text.Append("over their time on one kept connection (reuse): the median of the rounds' paired ratios, ");
        text.Append("with its 95 % confidence interval (order statistics of the paired ratios). Per query: median over the rounds.\n\n");
        foreach (StudyResults run in runs)
        {
            text.Append(Invariant($"## {run.Provider}: {run.Package}, {run.Rounds} rounds, {run.Clock}, {run.Seconds / 60:F1} min, {run.Started:yyyy-MM-dd HH:mm} UTC\n\n"));
            foreach (string library in run.Libraries)
                text.Append(Invariant($"- {library}: {Medians(run, library)}\n"));
            text.Append("\n| N | library | ratio | 95 % CI | ± % | reuse (us/query) | open per call, scope or session (us/query) | ratios of the rounds |\n");
            text.Append("|---:|---|---:|---|---:|---:|---:|---|\n");
            foreach (StudyPoint p in run.Points.Where(p => p.Variant is nameof(RatioStudy.OpenPerCall) or nameof(RatioStudy.AdaptiveScope) or nameof(RatioStudy.SessionPerUnit))
                         .OrderBy(p => p.N).ThenBy(p => p.Library == StudyParameters.Orseis ? 0 : 1).ThenBy(p => p.Variant, StringComparer.Ordinal))
            {
                string library = p.Variant switch
                {
                    nameof(RatioStudy.AdaptiveScope) => "Orseis in a ConnectionScope",
                    nameof(RatioStudy.SessionPerUnit) => "Orseis, a Session per N",
                    _ => p.Library,
                };
                text.Append(Invariant($"| {p.N} | {library} | {p.Ratio:F2} | {p.Interval.Low:F2}–{p.Interval.High:F2} | {p.HalfWidthPercent:F1} | "));
                text.Append(Invariant($"{p.ReuseUsPerQuery:F3} | {p.VariantUsPerQuery:F3} | {string.Join(" ", p.Ratios.Select(r => r.ToString("F2", CultureInfo.InvariantCulture)))} |\n"));
            }

            text.Append('\n');
            ScopeOverSessionTable(run, text);
        }

        text.Append(Original2014).Append('\n');
        return text.ToString();
    }

    /// <summary>
    /// The scope's time over the session's per N, where the run timed them side by side (<see cref="RatioStudy.ScopeOverSession"/>).
    /// </summary>
    private static void ScopeOverSessionTable(StudyResults run, StringBuilder text)
    {
        StudyPoint[] paired = [.. run.Points.Where(p => p.Variant == nameof(RatioStudy.ScopeOverSession)).OrderBy(p => p.N)];
        if (paired.Length == 0)
            return;
        text.Append("The adaptive scope over a session, timed side by side (each call of one alternating with a call of the other):\n\n");
        text.Append("| N | scope/session | 95 % CI | ± % | session (us/query) | scope (us/query) | ratios of the rounds |\n");
        text.Append("|---:|---:|---|---:|---:|---:|---|\n");
        foreach (StudyPoint p in paired)
        {
            text.Append(Invariant($"| {p.N} | {p.Ratio:F2} | {p.Interval.Low:F2}–{p.Interval.High:F2} | {p.HalfWidthPercent:F1} | "));
            text.Append(Invariant($"{p.ReuseUsPerQuery:F3} | {p.VariantUsPerQuery:F3} | {string.Join(" ", p.Ratios.Select(r => r.ToString("F2", CultureInfo.InvariantCulture)))} |\n"));
        }

        text.Append('\n');
    }

    /// <summary>The adaptive scope's median ratio and range, and its time over a session's; empty without scope points.</summary>
    private static string ScopeMedians(StudyResults results, string library)
    {
        StudyPoint[] scoped = [.. results.Line(library, nameof(RatioStudy.AdaptiveScope))];
        if (scoped.Length == 0)
            return "";
        string text = Invariant(
            $"; adaptive scope median {StudyPoint.Median(scoped.Select(p => p.Ratio)):F2}x (range {scoped.Min(p => p.Ratio):F2}-{scoped.Max(p => p.Ratio):F2})");
        StudyPoint[] sessions = [.. results.Line(library, nameof(RatioStudy.SessionPerUnit))];
        if (sessions.Length > 0)
            text += Invariant($", session per N median {StudyPoint.Median(sessions.Select(p => p.Ratio)):F2}x (range {sessions.Min(p => p.Ratio):F2}-{sessions.Max(p => p.Ratio):F2})");
        double[] overSession = [.. scoped.Select(p => ScopeOverSession(results, p.N)).OfType<double>()];
        return overSession.Length == 0 ? text : text + Invariant($", scope/session {overSession.Min():F2}-{overSession.Max():F2} over N");
    }

    /// <summary>
    /// The adaptive scope's time over a session's for <paramref name="n"/> queries: the paired ratio of the
    /// <see cref="RatioStudy.ScopeOverSession"/> case, which times the two side by side; in results without that case,
    /// the ratio of their two ratios to reuse, measured in the same rounds. Null where neither can be had.
    /// </summary>
    public static double? ScopeOverSession(StudyResults results, int n) =>
        Paired(results, n) is { } paired ? paired.Ratio
        : results.Points.FirstOrDefault(x => x.Variant == nameof(RatioStudy.AdaptiveScope) && x.N == n) is { } scoped &&
          results.Points.FirstOrDefault(x => x.Variant == nameof(RatioStudy.SessionPerUnit) && x.N == n) is { } session
            ? scoped.Ratio / session.Ratio
            : null;

    /// <summary>The <see cref="RatioStudy.ScopeOverSession"/> point at <paramref name="n"/>, if the run measured one.</summary>
    private static StudyPoint? Paired(StudyResults results, int n) =>
        results.Points.FirstOrDefault(x => x.Variant == nameof(RatioStudy.ScopeOverSession) && x.N == n);

    /// <summary>The scope/session cell of a console line: with its interval where the two were timed side by side.</summary>
    private static string ScopeOverSessionCell(StudyResults results, int n) =>
        Paired(results, n) is { } paired ? Cell(paired)
        : ScopeOverSession(results, n) is { } over ? Invariant($"{over:F2}") : "";

    private static string Cell(StudyPoint p) =>
        double.IsNaN(p.Interval.Low) ? Invariant($"{p.Ratio:F2}") : Invariant($"{p.Ratio:F2} [{p.Interval.Low:F2}-{p.Interval.High:F2}]");

    private static string Short(string variant) => variant == nameof(RatioStudy.OpenPerCallUnpooled) ? "Pooling=false" : "no reset";

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
