using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Orseis.Benchmarks.Study;

/// <summary>(Mean − baseline mean) / queries per call: what getting a connection per call adds to each query.</summary>
public sealed class OpenOverheadColumn : IColumn
{
    /// <inheritdoc/>
    public string Id => nameof(OpenOverheadColumn);

    /// <inheritdoc/>
    public string ColumnName => "Open overhead/query [us]";

    /// <inheritdoc/>
    public bool AlwaysShow => true;

    /// <inheritdoc/>
    public ColumnCategory Category => ColumnCategory.Custom;

    /// <inheritdoc/>
    public int PriorityInCategory => 1;

    /// <inheritdoc/>
    public bool IsNumeric => true;

    /// <inheritdoc/>
    public UnitType UnitType => UnitType.Dimensionless;

    /// <inheritdoc/>
    public string Legend => "Per query minus the baseline's per query: microseconds each per-call open/close adds to a query";

    /// <inheritdoc/>
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    /// <inheritdoc/>
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        if (summary.IsBaseline(benchmarkCase))
            return "-";
        BenchmarkCase? baseline = summary.GetBaseline(summary.GetLogicalGroupKey(benchmarkCase));
        if (baseline is null || summary[benchmarkCase]?.ResultStatistics is not { } stats || summary[baseline]?.ResultStatistics is not { } baseStats)
            return "NA";
        return (((stats.Mean / StudyCases.QueriesPerCall(benchmarkCase)) - (baseStats.Mean / StudyCases.QueriesPerCall(baseline))) / 1000).ToString("N3", style.CultureInfo);
    }

    /// <inheritdoc/>
    public bool IsAvailable(Summary summary) => true;

    /// <inheritdoc/>
    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    /// <inheritdoc/>
    public override string ToString() => ColumnName;
}
