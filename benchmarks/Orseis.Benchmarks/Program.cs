using System.CommandLine;
using Orseis.Benchmarks.Charts;
using Orseis.Benchmarks.Costs;
using Orseis.Benchmarks.Infrastructure;
using Orseis.Benchmarks.Study;
using Orseis.Benchmarks.Study.Analysis;

// The benchmark program: BenchmarkDotNet's switcher with a provider option, and the study's own commands.
// Arguments this parser does not know (--filter, --list, --job, ...) go to BenchmarkDotNet unchanged.
var provider = new Option<string?>("--provider")
{
    Description = "sqlite (default), postgres (ORSEIS_POSTGRES), mysql (ORSEIS_MYSQL, MySqlConnector), mysql-data (ORSEIS_MYSQL, MySql.Data) or sqlserver (ORSEIS_SQLSERVER)",
};
var rounds = new Option<int?>("--rounds") { Description = "study rounds (default: 12)" };
var maxN = new Option<int?>("--max-n") { Description = "caps the study's N (for a quick look)" };
var clock = new Option<string?>("--clock") { Description = "what the study times: cpu (the benchmark thread's CPU time; default on SQLite) or wall (default on servers)" };
clock.AcceptOnlyFromAmong("cpu", "wall");
var studyRound = new Option<int?>(StudyProcesses.RoundOption) { Description = "measure only this round of the study (a round's own process)", Hidden = true };
var baselineFeed = new Option<string?>("--baseline-feed")
{
    Description = "side by side: a folder holding an older Orseis packed as Orseis.<version>.nupkg; each job runs against it (baseline) and src/Orseis",
};
var baselineVersion = new Option<string?>("--baseline-version") { Description = $"the older package's version (default {BaselineJobs.DefaultVersion})" };
var verbose = new Option<bool>("--verbose") { Description = "print BenchmarkDotNet's full console log (it always goes to its log file)" };
var root = new RootCommand(
    "Orseis benchmarks. The study: --filter '*RatioStudy*'. Other arguments go to BenchmarkDotNet (--filter, --list flat, ...).")
{
    provider, rounds, maxN, clock, verbose, studyRound, baselineFeed, baselineVersion,
};
root.TreatUnmatchedTokensAsErrors = false;
root.SetAction(parse =>
    BaselineJobs.Apply(parse.GetValue(baselineFeed), parse.GetValue(baselineVersion)) ??
    BenchmarkCommand.Run(
    [.. parse.UnmatchedTokens], parse.GetValue(provider), parse.GetValue(rounds), parse.GetValue(maxN), parse.GetValue(clock), parse.GetValue(verbose), parse.GetValue(studyRound)));

var inputs = new Argument<string[]>("folders") { Description = "results folders holding study-*.json, or study-*.json files, each optionally label=folder", Arity = ArgumentArity.ZeroOrMore };
var output = new Option<string>("--out") { Description = "where to write the charts", DefaultValueFactory = _ => "docs/results" };
var chart = new Command("chart", "Draw the study's charts and ratio table from the study-*.json files of one or more runs") { inputs, output };
chart.SetAction(parse => ChartCommand.Run(parse.GetValue(inputs) ?? [], parse.GetRequiredValue(output)));
root.Subcommands.Add(chart);

var first = new Argument<string>("first") { Description = "study-<provider>.json of the first run" };
var second = new Argument<string>("second") { Description = "study-<provider>.json of the rerun" };
var compare = new Command("compare", "Say N by N whether a rerun's ratios fall inside the first run's 95 % intervals") { first, second };
compare.SetAction(parse => StudyComparison.Run(parse.GetRequiredValue(first), parse.GetRequiredValue(second)));
root.Subcommands.Add(compare);

var probeSqlite = new Command("probe-sqlite", "Show what closing a pooled SQLite connection does to a command's prepared statements");
probeSqlite.SetAction(_ => SqliteStatementProbe.Run());
root.Subcommands.Add(probeSqlite);

var probeProvider = new Argument<string>("provider") { Description = "mysql or mysql-data", DefaultValueFactory = _ => "mysql" };
var probeMySql = new Command("probe-mysql", "Count what one pooled MySQL open plus 'select 1' sends the server") { probeProvider };
probeMySql.SetAction(parse =>
{
    try
    {
        return MySqlResetProbe.Run(BenchProviders.Parse(parse.GetRequiredValue(probeProvider)));
    }
    catch (ArgumentException error)
    {
        Console.Error.WriteLine(error.Message);
        return 2;
    }
});
root.Subcommands.Add(probeMySql);

return root.Parse(args).Invoke();
