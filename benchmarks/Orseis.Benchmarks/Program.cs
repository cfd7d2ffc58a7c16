using BenchmarkDotNet.Running;
using Orseis.Benchmarks;
using Orseis.Benchmarks.Charts;
using Orseis.Benchmarks.Costs;
using Orseis.Benchmarks.Infrastructure;

// `chart [results-dir ...] [--out dir]` draws the charts; `probe-sqlite` shows what closing does to prepared
// statements; `probe-mysql [mysql|mysql-data]` counts what a pooled MySQL open sends the server; anything else goes to BenchmarkDotNet, after
// `--provider sqlite|postgres|sqlserver|mysql|mysql-data` is taken out and passed on to the benchmark processes in the environment.
if (args is ["chart", .. var chartArgs])
    return ChartCommand.Run(chartArgs);
if (args is ["probe-sqlite"])
    return SqliteStatementProbe.Run();
if (args is ["probe-mysql", .. var probeArgs])
{
    try
    {
        return MySqlResetProbe.Run(probeArgs is [var name] ? BenchProviders.Parse(name) : BenchProvider.MySql);
    }
    catch (ArgumentException error)
    {
        Console.Error.WriteLine(error.Message);
        return 2;
    }
}
if (!ProviderOption.Apply(ref args))
    return ProviderOption.ExitCode;
BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, new Config());
return 0;
