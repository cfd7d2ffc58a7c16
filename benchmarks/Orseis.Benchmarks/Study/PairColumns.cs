using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Orseis.Benchmarks.Study.Analysis;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// The columns of a study case, which times two modes in turn (BenchmarkDotNet's own Mean would mix them): each mode's
/// time per query and their ratio.
/// </summary>
public sealed class PairColumn : IColumn
{
    private readonly string _name;
    private readonly Func<(double ReuseNs, double VariantNs), int, double> _value;
    private readonly string _format;

    private PairColumn(string name, string legend, string format, Func<(double ReuseNs, double VariantNs), int, double> value)
    {
        _name = name;
        Legend = legend;
        _format = format;
        _value = value;
    }

    /// <summary>Reuse's time per query.</summary>
    public static readonly PairColumn Reuse = new("Reuse [us/query]", "Fastest reuse call of the case, per query (microseconds)", "N3", (p, n) => p.ReuseNs / n / 1000);

    /// <summary>The variant's time per query.</summary>
    public static readonly PairColumn Variant = new("Variant [us/query]", "Fastest call of the method's variant, per query (microseconds)", "N3", (p, n) => p.VariantNs / n / 1000);

    /// <summary>Their ratio.</summary>
    public static readonly PairColumn Ratio = new("Variant/Reuse", "The case's paired ratio: variant / reuse", "N2", (p, _) => p.VariantNs / p.ReuseNs);

    /// <inheritdoc/>
    public string Id => nameof(PairColumn) + _name;

    /// <inheritdoc/>
    public string ColumnName => _name;

    /// <inheritdoc/>
    public bool AlwaysShow => true;

    /// <inheritdoc/>
    public ColumnCategory Category => ColumnCategory.Custom;

    /// <inheritdoc/>
    public int PriorityInCategory => _name.Length;

    /// <inheritdoc/>
    public bool IsNumeric => true;

    /// <inheritdoc/>
    public UnitType UnitType => UnitType.Dimensionless;

    /// <inheritdoc/>
    public string Legend { get; }

    /// <inheritdoc/>
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    /// <inheritdoc/>
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) =>
        summary[benchmarkCase] is { } report && PairedTimings.Of(report) is { } pair
            ? _value(pair, (int)benchmarkCase.Parameters[nameof(StudyParameters.N)]).ToString(_format, style.CultureInfo)
            : "NA";

    /// <inheritdoc/>
    public bool IsAvailable(Summary summary) => true;

    /// <inheritdoc/>
    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    /// <inheritdoc/>
    public override string ToString() => ColumnName;
}
