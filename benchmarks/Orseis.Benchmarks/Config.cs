using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Exporters.Json;
using BenchmarkDotNet.Filters;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Running;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks;

/// <summary>
/// The config every run shares: allocations, GitHub markdown + CSV + JSON results (the chart command reads the
/// JSON), the Ratio column, and the filter that drops study cases that make no sense for the provider or size.
/// Jobs come from each benchmark class's own config.
/// </summary>
public sealed class Config : ManualConfig
{
    /// <summary>Builds the shared config, logging to <paramref name="logger"/> (default: everything to the console).</summary>
    public Config(ILogger? logger = null)
    {
        AddColumnProvider(DefaultColumnProviders.Instance);
        AddLogger(logger ?? ConsoleLogger.Default);
        AddDiagnoser(MemoryDiagnoser.Default);
        AddExporter(MarkdownExporter.GitHub, CsvExporter.Default, JsonExporter.Brief);
        AddColumn(BaselineRatioColumn.RatioMean);
        AddFilter(new SimpleFilter(StudyCases.IsWanted));
        WithOrderer(new BenchmarkDotNet.Order.DefaultOrderer(BenchmarkDotNet.Order.SummaryOrderPolicy.Declared));

        // A side-by-side run builds the benchmarks twice while other work shares the cores: 2 minutes (the default)
        // ran out at load 36.
        WithBuildTimeout(TimeSpan.FromMinutes(15));
    }
}

/// <summary>Which study cases run: unpooled opens only for small N, the no-reset variant only where it exists.</summary>
public static class StudyCases
{
    /// <summary>The largest N measured with <c>Pooling=false</c> (every open is a real open, so it is slow).</summary>
    public const int UnpooledMaxN = 128;

    /// <summary>The largest N measured without the provider's reset (a per-query cost; large N would only add time).</summary>
    public const int NoResetMaxN = 1024;

    /// <summary>
    /// True unless the case is an unpooled one above <see cref="UnpooledMaxN"/>, a no-reset one above
    /// <see cref="NoResetMaxN"/> or on a provider without that setting, or an adaptive-scope or session one through raw ADO.NET.
    /// </summary>
    public static bool IsWanted(BenchmarkCase benchmarkCase)
    {
        string method = benchmarkCase.Descriptor.WorkloadMethod.Name;
        if (method is "AdaptiveScope" or "SessionPerUnit" or "ScopeOverSession")
            return benchmarkCase.Parameters.Items.FirstOrDefault(p => p.Name == "Library")?.Value is not "ADO.NET";
        if (method.Contains("Unpooled", StringComparison.Ordinal) && N(benchmarkCase) > UnpooledMaxN)
            return false;
        if (!method.Contains("NoResetOnClose", StringComparison.Ordinal))
            return true;
        return N(benchmarkCase) <= NoResetMaxN && BenchProviders.Current is BenchProvider.Postgres or BenchProvider.MySql or BenchProvider.MySqlData;
    }

    /// <summary>The case's N parameter, or 1 when it has none.</summary>
    public static int N(BenchmarkCase benchmarkCase) =>
        benchmarkCase.Parameters.Items.FirstOrDefault(p => p.Name == "N")?.Value is int n ? n : 1;
}
