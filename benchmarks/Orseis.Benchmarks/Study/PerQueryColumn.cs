using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Orseis.Benchmarks.Study;

/// <summary>Mean / queries per call (N times the batches): the time of one query, whatever N.</summary>
public sealed class PerQueryColumn : IColumn
{
    /// <inheritdoc/>
    public string Id => nameof(PerQueryColumn);

    /// <inheritdoc/>
    public string ColumnName => "Per query [us]";

    /// <inheritdoc/>
    public bool AlwaysShow => true;

    /// <inheritdoc/>
    public ColumnCategory Category => ColumnCategory.Custom;

    /// <inheritdoc/>
    public int PriorityInCategory => 0;

    /// <inheritdoc/>
    public bool IsNumeric => true;

    /// <inheritdoc/>
    public UnitType UnitType => UnitType.Dimensionless;

    /// <inheritdoc/>
    public string Legend => "Mean divided by the queries of one call (N x batches): microseconds per query";

    /// <inheritdoc/>
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    /// <inheritdoc/>
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) =>
        summary[benchmarkCase]?.ResultStatistics is { } stats
            ? (stats.Mean / StudyCases.QueriesPerCall(benchmarkCase) / 1000).ToString("N3", style.CultureInfo)
            : "NA";

    /// <inheritdoc/>
    public bool IsAvailable(Summary summary) => true;

    /// <inheritdoc/>
    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    /// <inheritdoc/>
    public override string ToString() => ColumnName;
}
