using System.CommandLine;
using Orseis.Scenarios;
using Orseis.WebStudy;

// The web-app study (docs/web-apps.md). Run as the command, it starts (or takes, ORSEIS_MYSQL) a MariaDB, starts this
// same program as the app (WEBSTUDY_ROLE=app) on a free loopback port and loads each endpoint with hey in interleaved
// rounds:
//
//   dotnet run -c Release --project benchmarks/Orseis.WebStudy -- --rounds 6 --seconds 10 --out docs/results/web/NAME
if (Environment.GetEnvironmentVariable("WEBSTUDY_ROLE") == "app")
{
    try
    {
        return await WebStudyApp.RunAsync(args);
    }
    catch (ArgumentException error)
    {
        await Console.Error.WriteLineAsync(error.Message);
        return 2;
    }
}

var rounds = new Option<int>("--rounds") { Description = "rounds; each loads every endpoint once, in an order that turns each round", DefaultValueFactory = _ => 6 };
var seconds = new Option<int>("--seconds") { Description = "seconds of hey per endpoint and round", DefaultValueFactory = _ => 10 };
var shapes = new Option<string[]>("--shapes")
{
    Description = "request shapes, comma-separated: burst (5 statements back to back) and await (statement, 20 ms await, statement)",
    CustomParser = r => [.. r.Tokens.SelectMany(t => t.Value.Split(','))],
    DefaultValueFactory = _ => ["burst", "await"],
};
var detectors = new Option<bool>("--detectors") { Description = "turn every Orseis detector on in the app (times parked connections)" };
var maxMinutes = new Option<int>("--max-minutes") { Description = "start no load after this many minutes", DefaultValueFactory = _ => 20 };
var output = new Option<string?>("--out") { Description = "write the results to this path plus .md and .json" };
var command = new RootCommand("Load an ASP.NET Core app on MariaDB with hey: open per call, a Session per request and a ConnectionScope per request, side by side")
{
    rounds, seconds, shapes, detectors, maxMinutes, output,
};
AtLeast(rounds, 1);
AtLeast(seconds, 1);
AtLeast(maxMinutes, 1);
command.SetAction(async (parse, _) =>
{
    Shape[] chosen;
    try
    {
        chosen = Shape.Parse(parse.GetRequiredValue(shapes));
    }
    catch (ArgumentException error)
    {
        await Console.Error.WriteLineAsync(error.Message);
        return 2;
    }

    try
    {
        return await WebStudyCommand.RunAsync(
            parse.GetValue(rounds), parse.GetValue(seconds), chosen, parse.GetValue(detectors), parse.GetValue(maxMinutes), parse.GetValue(output));
    }
    catch (ScenarioSetupException error)
    {
        await Console.Error.WriteLineAsync(error.Message);
        return 3;
    }
});
return await command.Parse(args).InvokeAsync();

static void AtLeast(Option<int> option, int least) => option.Validators.Add(result =>
{
    if (result.GetValueOrDefault<int>() < least)
        result.AddError($"{option.Name} must be at least {least}.");
});
