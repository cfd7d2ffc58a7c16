using System.CommandLine;
using Orseis.Scenarios;

// The detector scenario suite, the pool-size sweep and the detector overhead measurement; see docs/diagnostics.md.
// The server comes from ORSEIS_MYSQL; ORSEIS_MYSQL_ADMIN (default: the same with User ID=root and no password) sets
// init_connect; ORSEIS_MYSQL_PID (the mariadbd process) lets the server-not-answering scenario pause it.
var runs = new Option<int>("--runs") { Description = "runs of each scenario, each in its own process", DefaultValueFactory = _ => 5 };
var noHog = new Option<bool>("--no-hog") { Description = "skip the extra run of each scenario beside a CPU hog on every core" };
var only = new Option<string[]?>("--only") { Description = "run only these scenarios (comma-separated names)", CustomParser = r => [.. r.Tokens.SelectMany(t => t.Value.Split(','))] };
var suite = new Command("suite", "Run every scenario and print the confusion table with precision and recall") { runs, noHog, only };
AtLeast(runs, 1, "");
suite.SetAction((parse, _) => Guarded(() => SuiteRunner.RunAsync(parse.GetValue(runs), !parse.GetValue(noHog), parse.GetValue(only) is { Length: > 0 } names ? names : null)));

var name = new Argument<string>("name") { Description = "the scenario" };
var run = new Command("run", "Run one scenario in this process and print its result as one JSON line") { name };
run.SetAction((parse, _) => Guarded(() => ScenarioHost.RunAsync(parse.GetRequiredValue(name))));

var quick = new Option<bool>("--quick") { Description = "1 s per point instead of 2" };
var sweepProviders = new Option<string[]?>("--providers") { Description = "mysqlconnector (ORSEIS_MYSQL), npgsql (ORSEIS_POSTGRES); both by default", CustomParser = r => [.. r.Tokens.SelectMany(t => t.Value.Split(','))] };
var sweepLoads = new Option<string[]?>("--loads") { Description = "only the loads whose names start so (short-percall, short-session, long-percall, long-session)", CustomParser = r => [.. r.Tokens.SelectMany(t => t.Value.Split(','))] };
var sweepCurve = OptionalIntListOption("--curve", "instead of following the advice, the throughput and advice at each of these Max Pool Sizes", 1, 2000);
var sweepRepeats = new Option<int>("--repeats") { Description = "interleaved runs at the current, advised and 4x advised sizes", DefaultValueFactory = _ => 3 };
var sweepFresh = new Option<bool>("--fresh") { Description = "run each point in a process of its own (a process that ran other loads carries their thread pool)" };
var sweepCallers = new Option<int?>("--callers") { Description = "run each load with this many callers instead of its own (sizes it was not written for)" };
var sweepCurrents = OptionalIntListOption("--currents", "advise from these Max Pool Sizes instead of each load's own (not with --curve)", 1, 2000);
var sweep = new Command("sweep", "Follow the pool-size advice: per provider, load and current Max Pool Size, the throughput at the advised size and at 4x it") { quick, sweepProviders, sweepLoads, sweepCurve, sweepRepeats, sweepFresh, sweepCallers, sweepCurrents };
sweepCallers.Validators.Add(r => { if (r.GetValueOrDefault<int?>() is < 1) r.AddError("--callers must be at least 1"); });
sweep.Validators.Add(r =>
{
    if (r.GetResult(sweepCurve) is not null && r.GetResult(sweepCurrents) is not null)
        r.AddError("--currents is not used with --curve (a curve runs every size given, advising from each)");
});
sweep.SetAction((parse, _) => Guarded(() => PoolSweep.RunAsync(
    parse.GetValue(quick), parse.GetValue(sweepProviders), parse.GetValue(sweepLoads), parse.GetValue(sweepCurve), parse.GetValue(sweepRepeats), parse.GetValue(sweepFresh),
    parse.GetValue(sweepCallers), parse.GetValue(sweepCurrents))));
var pointProvider = new Option<string>("--provider") { Required = true };
pointProvider.AcceptOnlyFromAmong(PoolSweep.Providers);
var pointLoad = new Option<string>("--load") { Required = true };
var pointSize = new Option<int>("--size") { Required = true };
var pointSeconds = new Option<double>("--seconds") { DefaultValueFactory = _ => 2 };
var pointCallers = new Option<int?>("--callers");
var sweepPoint = new Command("sweep-point", "One point of the sweep, as one JSON line (started by 'sweep --fresh')") { pointProvider, pointLoad, pointSize, pointSeconds, pointCallers };
sweepPoint.Hidden = true;
sweepPoint.SetAction((parse, _) => Guarded(() => PoolSweep.PointCommandAsync(parse.GetRequiredValue(pointProvider), parse.GetRequiredValue(pointLoad), parse.GetValue(pointSize), parse.GetValue(pointSeconds), parse.GetValue(pointCallers))));

var provider = new Option<string>("--provider") { Description = "mysql (MariaDB through MySqlConnector, ORSEIS_MYSQL) or sqlite (in memory)", DefaultValueFactory = _ => "mysql" };
provider.AcceptOnlyFromAmong("mysql", "sqlite");
var pairs = new Option<int>("--pairs") { Description = "fresh process pairs (None, All) per listener state", DefaultValueFactory = _ => 6 };
var blocks = new Option<int>("--blocks") { Description = "block pairs per mode and process pair", DefaultValueFactory = _ => 320 };
var calls = new Option<int>("--calls") { Description = "sequential calls per block", DefaultValueFactory = _ => 50 };
Option<string> overheadAgainst = DetectorsOption(allowNone: true);
Option<string> listening = ListenersOption();
var blockCsv = new Option<string?>("--csv") { Description = "write every block pair to this CSV file" };
var overheadBaseline = new Option<string>("--baseline") { Description = "the side --detectors is compared with: None, or e.g. All-RepeatedStatement (every detector but one)", DefaultValueFactory = _ => "None" };
overheadBaseline.Validators.Add(r => { if (OverheadCommand.ParseDetectors(r.GetValueOrDefault<string>()) is null) r.AddError($"--baseline: '{r.GetValueOrDefault<string>()}' is not a set of FindingKind names (e.g. None, All-RepeatedStatement)"); });
var overheadShape = new Option<string>("--shape") { Description = "select1 (Scalar(\"select 1\") on a session and per call) or web (requests of four statements, in a scope and per call)", DefaultValueFactory = _ => "select1" };
overheadShape.AcceptOnlyFromAmong("select1", "web");
var overhead = new Command("overhead", "Detectors=All (or --detectors) against None (or --baseline) on a sequential loop, in wall and client CPU time, with a 95 % interval")
{
    provider, pairs, blocks, calls, overheadAgainst, listening, blockCsv, overheadBaseline, overheadShape,
};
AtLeast(pairs, 2, " (the interval is taken over pairs)");
AtLeast(blocks, 1, "");
AtLeast(calls, 1, "");
overhead.SetAction((parse, _) => Guarded(() => OverheadCommand.RunAsync(
    parse.GetRequiredValue(provider), parse.GetValue(pairs), parse.GetValue(blocks), parse.GetValue(calls), parse.GetRequiredValue(overheadAgainst),
    ListenerStates(parse.GetRequiredValue(listening)), parse.GetValue(blockCsv), parse.GetRequiredValue(overheadBaseline), parse.GetRequiredValue(overheadShape))));

var idleAgainst = DetectorsOption();
var idleRepeats = new Option<int>("--repeats") { Description = "fresh processes per side", DefaultValueFactory = _ => 3 };
var idleSeconds = new Option<int>("--seconds") { Description = "how long each process is watched", DefaultValueFactory = _ => 20 };
AtLeast(idleRepeats, 1, "");
AtLeast(idleSeconds, 1, "");
var idle = new Command("idle", "Detectors=All (or --detectors) against None in a process making no calls: CPU and context switches per second")
{
    provider, idleAgainst, idleRepeats, idleSeconds,
};
idle.SetAction((parse, _) => Guarded(() => IdleCommand.RunAsync(
    parse.GetRequiredValue(provider), parse.GetRequiredValue(idleAgainst), parse.GetValue(idleRepeats), parse.GetValue(idleSeconds))));

var repeats = new Option<int>("--repeats") { Description = "fresh processes per side and listener state", DefaultValueFactory = _ => 3 };
var countedCalls = new Option<int>("--calls") { Description = "sequential calls counted per mode and process", DefaultValueFactory = _ => 2000 };
Option<string> against = DetectorsOption();
Option<string> countedListening = ListenersOption();
var instructions = new Command("instructions", "Detectors=All (or --detectors) against None in instructions per call, counted by valgrind's callgrind over the client process")
{
    provider, repeats, countedCalls, against, countedListening,
};
AtLeast(repeats, 1, "");
AtLeast(countedCalls, 1, "");
instructions.SetAction((parse, _) => Guarded(() => InstructionsCommand.RunAsync(
    parse.GetRequiredValue(provider), parse.GetValue(repeats), parse.GetValue(countedCalls), parse.GetRequiredValue(against),
    ListenerStates(parse.GetRequiredValue(countedListening)))));

var childProvider = new Argument<string>("provider");
var childDetectors = new Argument<string>("detectors");
var childListening = new Argument<string>("listening");
var childShape = new Argument<string>("shape") { DefaultValueFactory = _ => "select1" };
var overheadChild = new Command("overhead-child", "One side of an overhead pair (started by 'overhead')") { childProvider, childDetectors, childListening, childShape };
overheadChild.Hidden = true;
overheadChild.SetAction(parse => OverheadChild.Run(
    parse.GetRequiredValue(childProvider), parse.GetRequiredValue(childDetectors), parse.GetRequiredValue(childListening) == "listeners",
    parse.GetRequiredValue(childShape)));

var seconds = new Argument<double>("seconds") { Description = "how long to spin" };
var hog = new Command("hog", "Spin on every core (the suite's CPU hog)") { seconds };
hog.SetAction(parse => CpuHog.Run(parse.GetValue(seconds)));

var coldRequests = new Option<int>("--requests") { Description = "requests per burst", DefaultValueFactory = _ => 130 };
var coldConcurrency = new Option<int>("--concurrency") { Description = "requests in flight at once", DefaultValueFactory = _ => 130 };
var coldSleep = SleepOption(5);
var coldMaxPool = MaxPoolOption();
var coldRuns = RunsOption();
var coldConfigs = ConfigsOption(Orseis.Scenarios.ColdStart.ColdStartCommand.DefaultConfigs);
var coldOut = OutOption();
var coldApp = AppOption();
var coldStart = new Command("coldstart", "Fire a burst of requests with hey at a freshly started web app (cold) and again (warm), per provider and call style")
{
    coldRequests, coldConcurrency, coldSleep, coldMaxPool, coldRuns, coldConfigs, coldOut, coldApp,
};
AtLeast(coldRequests, 1, "");
AtLeast(coldConcurrency, 1, "");
coldStart.SetAction((parse, _) => WithConfigs(parse, coldConfigs, configs => Orseis.Scenarios.ColdStart.ColdStartCommand.RunAsync(
    configs, parse.GetValue(coldRequests), parse.GetValue(coldConcurrency), parse.GetValue(coldSleep), parse.GetValue(coldMaxPool),
    parse.GetValue(coldRuns), parse.GetValue(coldOut), parse.GetValue(coldApp))));

var failConcurrency = new Option<int>("--concurrency") { Description = "hey workers sending at once", DefaultValueFactory = _ => 50 };
var failRate = new Option<int>("--rate") { Description = "requests a second each worker sends at most", DefaultValueFactory = _ => 10 };
var failSleep = SleepOption(0.01);
var failSeconds = new Option<int>("--seconds") { Description = "seconds of load per run", DefaultValueFactory = _ => 40 };
var failAt = new Option<int>("--at") { Description = "seconds into the load when the server stops", DefaultValueFactory = _ => 10 };
var failDown = new Option<int>("--down") { Description = "seconds the server stays down", DefaultValueFactory = _ => 5 };
var failMaxPool = MaxPoolOption();
var failRuns = RunsOption();
var failConfigs = ConfigsOption(Orseis.Scenarios.Failover.FailoverCommand.DefaultConfigs);
var failOut = OutOption();
var failApp = AppOption();
var failover = new Command("failover", "Keep a web app under load with hey while its MariaDB (one of this command's own) is stopped and started again")
{
    failConcurrency, failRate, failSleep, failSeconds, failAt, failDown, failMaxPool, failRuns, failConfigs, failOut, failApp,
};
AtLeast(failConcurrency, 1, "");
AtLeast(failRate, 1, "");
AtLeast(failSeconds, 1, "");
AtLeast(failAt, 1, "");
AtLeast(failDown, 0, "");
failover.SetAction((parse, _) => WithConfigs(parse, failConfigs, configs => Orseis.Scenarios.Failover.FailoverCommand.RunAsync(
    configs, parse.GetValue(failConcurrency), parse.GetValue(failRate), parse.GetValue(failSleep), TimeSpan.FromSeconds(parse.GetValue(failSeconds)),
    TimeSpan.FromSeconds(parse.GetValue(failAt)), TimeSpan.FromSeconds(parse.GetValue(failDown)), parse.GetValue(failMaxPool),
    parse.GetValue(failRuns), parse.GetValue(failOut), parse.GetValue(failApp))));

var warmRuns = RunsOption();
var warmCallers = new Option<int>("--callers") { Description = "async callers in the burst, and connections warmed up", DefaultValueFactory = _ => 60 };
var warmConnect = new Option<double>("--connect") { Description = "seconds every new connection sleeps on the server (init_connect)", DefaultValueFactory = _ => 0.3 };
var warmIdle = new Option<double>("--idle") { Description = "seconds idle before the pruned and kept bursts", DefaultValueFactory = _ => 4 };
var warmOut = OutOption();
var warmUp = new Command("warmup", "A burst on a cold, warmed-up, warm, pruned and Min-Pool-kept pool while new connections are slow")
{
    warmRuns, warmCallers, warmConnect, warmIdle, warmOut,
};
AtLeast(warmCallers, 1, "");
warmUp.SetAction((parse, _) => Guarded(() => WarmUpStudy.RunAsync(
    parse.GetValue(warmRuns), parse.GetValue(warmCallers), parse.GetValue(warmConnect), parse.GetValue(warmIdle), parse.GetValue(warmOut))));

var scopeRuns = new Option<int>("--runs")
{
    Description = "runs of the whole matrix, each unit in a fresh app process", DefaultValueFactory = _ => 3,
};
var scopePauses = new Option<int[]>("--pauses")
{
    Description = "milliseconds of await Task.Delay between two calls of a request, comma-separated",
    CustomParser = r =>
    {
        string[] texts = [.. r.Tokens.SelectMany(t => t.Value.Split(','))];
        int[] values = [.. texts.Select(v => int.TryParse(v, System.Globalization.CultureInfo.InvariantCulture, out int ms) ? ms : -1)];
        if (values.Any(v => v is < 0 or > 1000))
            r.AddError($"--pauses must be whole milliseconds from 0 to 1000, comma-separated, not '{string.Join(',', texts)}'");
        return values;
    },
    DefaultValueFactory = _ => [0, 5],
};
var scopeSeconds = new Option<int>("--seconds") { Description = "seconds of load per unit and run", DefaultValueFactory = _ => 10 };
var scopeConcurrency = new Option<int>("--concurrency") { Description = "hey workers (async callers)", DefaultValueFactory = _ => 1000 };
var scopeMaxPool = MaxPoolOption();
var scopeDetectors = new Option<bool[]>("--detectors")
{
    Description = "the app's detectors, all or none or both (all,none): each setting is measured in the same runs",
    CustomParser = r =>
    {
        string[] texts = [.. r.Tokens.SelectMany(t => t.Value.Split(','))];
        if (texts.Length == 0 || texts.Any(t => t is not ("all" or "none")) || texts.Distinct().Count() != texts.Length)
            r.AddError($"--detectors must be all, none or all,none, not '{string.Join(',', texts)}'");
        return [.. texts.Select(t => t == "all")];
    },
    DefaultValueFactory = _ => [true, false],
};
var scopeMaxMinutes = new Option<int>("--max-minutes")
{
    Description = "start no new measurement after this many minutes", DefaultValueFactory = _ => 15,
};
var scopeOut = OutOption();
var scopeApp = AppOption();
var scopes = new Command("scopes", "1..20 calls a request from 1000 callers (hey): open per call, a scope or a session per request")
{
    scopeRuns, scopePauses, scopeSeconds, scopeConcurrency, scopeMaxPool, scopeDetectors, scopeMaxMinutes, scopeOut, scopeApp,
};
AtLeast(scopeRuns, 1, "");
AtLeast(scopeSeconds, 1, "");
AtLeast(scopeConcurrency, 1, "");
AtLeast(scopeMaxMinutes, 1, "");
scopes.SetAction((parse, _) => Guarded(() => Orseis.Scenarios.Scopes.ScopesCommand.RunAsync(
    parse.GetValue(scopeRuns), parse.GetRequiredValue(scopePauses), parse.GetValue(scopeSeconds), parse.GetValue(scopeConcurrency),
    parse.GetValue(scopeMaxPool), parse.GetRequiredValue(scopeDetectors), parse.GetValue(scopeMaxMinutes),
    parse.GetValue(scopeOut), parse.GetValue(scopeApp))));

var capClients = IntListOption("--clients", "concurrent hey workers, comma-separated", Orseis.Scenarios.Capacity.CapacityCommand.DefaultClients, 1, 4096);
var capPools = IntListOption("--pools", "Max Pool Size values of the app, comma-separated", Orseis.Scenarios.Capacity.CapacityCommand.DefaultPools, 1, 2000);
var capHandlings = new Option<string[]>("--handlings")
{
    Description = "MariaDB's --thread-handling values, or postgresql (the app on Npgsql), comma-separated",
    CustomParser = r =>
    {
        string[] texts = [.. r.Tokens.SelectMany(t => t.Value.Split(','))];
        if (texts.Length == 0 || texts.Any(t => !Orseis.Scenarios.Capacity.CapacityCommand.Handlings.Contains(t)))
            r.AddError($"--handlings must be one or more of {string.Join(", ", Orseis.Scenarios.Capacity.CapacityCommand.Handlings)}, not '{string.Join(',', texts)}'");
        return texts;
    },
    DefaultValueFactory = _ => Orseis.Scenarios.Capacity.CapacityCommand.DefaultHandlings,
};
var capLoads = new Option<Orseis.Scenarios.Capacity.CapacityLoad[]>("--loads")
{
    Description = "the requests sent, comma-separated: wait (select sleep(0.01)), work (four small queries), and their Session forms",
    CustomParser = r =>
    {
        string[] texts = [.. r.Tokens.SelectMany(t => t.Value.Split(','))];
        Orseis.Scenarios.Capacity.CapacityLoad[] loads =
            [.. Orseis.Scenarios.Capacity.CapacityLoad.All.Where(l => texts.Contains(l.Name))];
        if (texts.Length == 0 || loads.Length != texts.Distinct().Count())
            r.AddError($"--loads must be some of {string.Join(", ", Orseis.Scenarios.Capacity.CapacityLoad.All.Select(l => l.Name))}, not '{string.Join(',', texts)}'");
        return loads;
    },
    DefaultValueFactory = _ => Orseis.Scenarios.Capacity.CapacityLoad.All,
};
var capSeconds = new Option<int>("--seconds") { Description = "seconds of load per point", DefaultValueFactory = _ => 2 };
var capMaxMinutes = new Option<int>("--max-minutes") { Description = "start no new point after this many minutes", DefaultValueFactory = _ => 30 };
var capOut = OutOption();
var capApp = AppOption();
var capFindings = new Option<string[]>("--findings")
{
    Description = "print the messages of these finding kinds (comma-separated, e.g. SlowOpen,PoolSize) for every point on standard error",
    CustomParser = r => [.. r.Tokens.SelectMany(t => t.Value.Split(',', StringSplitOptions.RemoveEmptyEntries))],
};
var capacity = new Command("capacity", "Throughput and latency at 1..1024 clients for several Max Pool Sizes, on a MariaDB with one thread per connection and with its thread pool")
{
    capClients, capPools, capHandlings, capLoads, capSeconds, capMaxMinutes, capOut, capApp, capFindings,
};
AtLeast(capSeconds, 1, "");
AtLeast(capMaxMinutes, 1, "");
capacity.SetAction((parse, _) => Guarded(() => Orseis.Scenarios.Capacity.CapacityCommand.RunAsync(
    parse.GetRequiredValue(capClients), parse.GetRequiredValue(capPools), parse.GetRequiredValue(capHandlings),
    parse.GetRequiredValue(capLoads), parse.GetValue(capSeconds), parse.GetValue(capMaxMinutes), parse.GetValue(capOut),
    parse.GetValue(capApp), parse.GetValue(capFindings) ?? [])));

var root = new RootCommand(
    "Orseis detector scenarios and studies: suite, run, sweep, overhead, idle, instructions, coldstart, failover, warmup, scopes, capacity, hog")
{
    suite, run, sweep, sweepPoint, overhead, idle, instructions, overheadChild, coldStart, failover, warmUp, scopes, capacity, hog,
};
return await root.Parse(args).InvokeAsync();

// --detectors of 'overhead', 'idle' and 'instructions': the side compared with None.
// 'overhead' also takes None: None against None is an A/A run, the method's own noise.
static Option<string> DetectorsOption(bool allowNone = false)
{
    var option = new Option<string>("--detectors")
    {
        Description = "the detectors compared with None: All, or some of them (e.g. Churn,HeldTooLong)" + (allowNone ? "; None for an A/A run" : ""),
        DefaultValueFactory = _ => "All",
    };
    option.Validators.Add(r =>
    {
        if (OverheadCommand.ParseDetectors(r.GetValueOrDefault<string>()) is not { } kind || (kind == Orseis.Diagnostics.FindingKind.None && !allowNone))
            r.AddError($"--detectors: '{r.GetValueOrDefault<string>()}' is not a set of FindingKind names{(allowNone ? "" : " other than None")}");
    });
    return option;
}

// --listeners of 'overhead' and 'instructions': measure with nobody listening, with an in-process MeterListener and EventListener, or both.
static Option<string> ListenersOption()
{
    var option = new Option<string>("--listeners") { Description = "run with nobody listening (none), with listeners attached, or both", DefaultValueFactory = _ => "both" };
    option.AcceptOnlyFromAmong("both", "none", "attached");
    return option;
}

static bool[] ListenerStates(string choice) => choice switch { "none" => [false], "attached" => [true], _ => [false, true] };

// A comma-separated list of whole numbers, each from least to most, none repeated.
static Option<int[]> IntListOption(string name, string description, int[] byDefault, int least, int most) => new(name)
{
    Description = description,
    CustomParser = r => IntList(r, name, least, most),
    DefaultValueFactory = _ => byDefault,
};

// The same list as an option with no default (null when not given).
static Option<int[]?> OptionalIntListOption(string name, string description, int least, int most) => new(name)
{
    Description = description,
    CustomParser = r => IntList(r, name, least, most),
};

static int[] IntList(System.CommandLine.Parsing.ArgumentResult r, string name, int least, int most)
{
    string[] texts = [.. r.Tokens.SelectMany(t => t.Value.Split(','))];
    int[] values = [.. texts.Select(v => int.TryParse(v, System.Globalization.CultureInfo.InvariantCulture, out int n) ? n : -1)];
    if (values.Length == 0 || values.Any(v => v < least || v > most) || values.Distinct().Count() != values.Length)
        r.AddError($"{name} must be distinct whole numbers from {least} to {most}, comma-separated, not '{string.Join(',', texts)}'");
    return values;
}

static void AtLeast(Option<int> option, int least, string why) =>
    option.Validators.Add(r =>
    {
        if (r.GetValueOrDefault<int>() < least)
            r.AddError($"{option.Name} must be at least {least}{why}");
    });

static async Task<int> Guarded(Func<Task<int>> command)
{
    try
    {
        return await command();
    }
    catch (ScenarioSetupException error)
    {
        await Console.Error.WriteLineAsync(error.Message);
        return 2;
    }
}

// Options of the studies that drive the SlowApp sample (coldstart, failover).
static Option<double> SleepOption(double byDefault)
{
    var option = new Option<double>("--sleep") { Description = "seconds each request holds its connection (select sleep)", DefaultValueFactory = _ => byDefault };
    option.Validators.Add(r =>
    {
        if (r.GetValueOrDefault<double>() is < 0 or > 60)
            r.AddError("--sleep must be between 0 and 60 seconds");
    });
    return option;
}

static Option<int> MaxPoolOption()
{
    var option = new Option<int>("--max-pool") { Description = "Maximum Pool Size of the app's pool", DefaultValueFactory = _ => 100 };
    AtLeast(option, 1, "");
    return option;
}

static Option<int> RunsOption()
{
    var option = new Option<int>("--runs") { Description = "runs of the whole matrix, each configuration in a fresh app process", DefaultValueFactory = _ => 1 };
    AtLeast(option, 1, "");
    return option;
}

static Option<string[]> ConfigsOption(string[] byDefault) => new("--configs")
{
    Description = "app configurations, provider:calls[:minThreads], comma-separated",
    CustomParser = r => [.. r.Tokens.SelectMany(t => t.Value.Split(','))],
    DefaultValueFactory = _ => byDefault,
};

static Option<string?> OutOption() => new("--out") { Description = "also write the result (markdown) to this file" };

static Option<string?> AppOption() =>
    new("--app") { Description = "a built Orseis.Samples.SlowApp.dll to run (default: build samples/Orseis.Samples.SlowApp)" };

// Parses --configs (exit code 2 with the reason when one is wrong) and runs the study with them.
static Task<int> WithConfigs(ParseResult parse, Option<string[]> option, Func<Orseis.Scenarios.ColdStart.SlowAppConfig[], Task<int>> study) => Guarded(async () =>
{
    Orseis.Scenarios.ColdStart.SlowAppConfig[] configs;
    try
    {
        configs = [.. parse.GetRequiredValue(option).Select(Orseis.Scenarios.ColdStart.SlowAppConfig.Parse)];
    }
    catch (ArgumentException error)
    {
        await Console.Error.WriteLineAsync(error.Message);
        return 2;
    }

    return await study(configs);
});
