using System.Globalization;
using Orseis.InstructionCount;

// run PATH... [--calls K]           the measured process (started under callgrind by the other commands)
// measure [--ci|--all|PATH...] [--calls K] [--repeat R]   instructions per call of each path, R runs, with their spread
// check [--ci|--all|PATH...] [--calls K] [--budgets FILE]  measure and compare with the budget file; exit 1 over budget
// jit PATH [--calls K, default 5]   the methods the measured process compiles under valgrind, by tier (MinOpts listed)
string command = args.Length > 0 ? args[0] : "help";
int? callsGiven = null;
int repeat = 1;
string budgetFile = Budgets.DefaultFile;
var paths = new List<GatePath>();
for (int i = 1; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--calls":
            callsGiven = int.Parse(args[++i], CultureInfo.InvariantCulture);
            break;
        case "--repeat":
            repeat = int.Parse(args[++i], CultureInfo.InvariantCulture);
            break;
        case "--budgets":
            budgetFile = args[++i];
            break;
        case "--ci":
            paths.AddRange(GatePath.Ci());
            break;
        case "--all":
            paths.AddRange(GatePath.All());
            break;
        default:
            paths.Add(GatePath.Parse(args[i]));
            break;
    }
}

int calls = callsGiven ?? Gate.DefaultCalls;
switch (command)
{
    case "run":
        return Child.Run(paths, calls);
    case "measure":
    {
        var runs = new List<IReadOnlyDictionary<GatePath, double>>();
        for (int r = 0; r < repeat; r++)
            runs.Add(Gate.Measure(paths, calls, Environment.GetEnvironmentVariable("ORSEIS_GATE_INJECT"), Console.Error));
        Console.WriteLine($"# instructions per call, {calls} calls per path, {repeat} run(s): path, mean[, min, max, spread %]");
        foreach (GatePath path in paths.Distinct())
        {
            double[] values = [.. runs.Select(r => r[path])];
            double mean = values.Average();
            Console.WriteLine(repeat == 1
                ? string.Create(CultureInfo.InvariantCulture, $"{path} {Math.Ceiling(mean):0}")
                : string.Create(CultureInfo.InvariantCulture,
                    $"{path} {mean:0.0} {values.Min():0.0} {values.Max():0.0} {(values.Max() - values.Min()) / mean * 100:0.000}"));
        }

        return 0;
    }

    case "check":
    {
        Budgets budgets = Budgets.Read(budgetFile);
        if (paths.Count == 0)
            paths.AddRange(GatePath.Ci());
        IReadOnlyDictionary<GatePath, double> measured = Gate.Measure(paths, calls, null, Console.Error);
        foreach ((GatePath path, double perCall) in measured.OrderBy(m => m.Key.ToString(), StringComparer.Ordinal))
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{path}: {perCall:0} (budget {(budgets.PerPath.TryGetValue(path, out long b) ? b : 0)})"));
        IReadOnlyList<string> failures = budgets.Check(measured);
        if (failures.Count == 0)
        {
            Console.WriteLine($"instruction gate: {measured.Count} paths within their budgets (margin {budgets.MarginPercent} %)");
            return 0;
        }

        Console.WriteLine(Budgets.Explain(failures));
        return 1;
    }

    case "jit":
    {
        if (paths.Count != 1)
            throw new ArgumentException("jit takes one path, e.g. jit Scalar/per-call/All/off");
        IReadOnlyList<(string Method, string Tier)> compiled = JitSummary.Run(paths[0], callsGiven ?? 5, Gate.Environment);
        Console.WriteLine($"# methods the JIT compiled under valgrind --tool=none running {paths[0]}, by tier");
        foreach (IGrouping<string, (string Method, string Tier)> tier in compiled.GroupBy(c => c.Tier).OrderByDescending(g => g.Count()))
            Console.WriteLine($"{tier.Count(),5} {tier.Key}");
        Console.WriteLine($"{compiled.Count,5} compiled");
        foreach ((string method, _) in compiled.Where(c => c.Tier == JitSummary.MinOpts))
            Console.WriteLine($"MinOpts: {method}");
        return 0;
    }

    default:
        Console.Error.WriteLine("usage: Orseis.InstructionCount measure|check [--ci|--all|PATH...] [--calls K] [--repeat R] [--budgets FILE]");
        Console.Error.WriteLine("       Orseis.InstructionCount jit PATH [--calls K]");
        Console.Error.WriteLine("paths are Op/mode/Detectors/listeners, e.g. Scalar/per-call/All/on; see CONTRIBUTING.md");
        return command == "help" ? 0 : 2;
}
