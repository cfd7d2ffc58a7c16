// The cold-start figure: process start to the first and the last answer of the same probe, Orseis and Dapper, under the
// JIT and Native AOT. Rounds run every variant once, in turn; medians over the rounds. orseis-jit and orseis-aot restore
// Orseis from the package `dotnet pack` makes (precompiled for linux-x64 and four other RIDs), orseis-jit-il from the same
// package packed with its IL alone (Variant.cs); the other Orseis variants reference the repository's project.
//
//   dotnet run -c Release --project benchmarks/Orseis.ColdStart -- [--runs 21] [--work /tmp/orseis-coldstart]
//       [--only orseis-jit,dapper-jit] [--no-publish]
using Orseis.ColdStart;

int runs = 21;
string work = Path.Combine(Path.GetTempPath(), "orseis-coldstart");
bool publish = true;
IReadOnlyList<Variant> variants = Variant.All;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--runs": runs = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--work": work = Path.GetFullPath(args[++i]); break;
        case "--no-publish": publish = false; break;
        case "--only":
            string[] names = args[++i].Split(',');
            variants = [.. Variant.All.Where(v => names.Contains(v.Name))];
            if (variants.Count != names.Length)
                throw new ArgumentException($"--only: unknown variant; the variants are {string.Join(", ", Variant.All.Select(v => v.Name))}");
            break;
        default: throw new ArgumentException($"unknown argument '{args[i]}'; see the comment at the top of Program.cs");
    }
}

string root = FindRoot();
if (publish)
{
    foreach (Variant variant in variants)
        ProbeRun.Publish(variant, root, work);
}

string load = File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Trim() : "?";
var timings = variants.ToDictionary(v => v, _ => new List<Timing>());
string? expected = null;
var failed = new Dictionary<Variant, string>();
for (int round = 0; round < runs + 1; round++)
{
    foreach (Variant variant in variants.Where(v => !failed.ContainsKey(v)))
    {
        Timing timing;
        string output;
        try
        {
            (timing, output) = ProbeRun.Run(variant, work);
        }
        catch (InvalidOperationException e)
        {
            failed[variant] = e.Message; // reported below, and not run again
            continue;
        }
        expected ??= output;
        if (output != expected)
            throw new InvalidOperationException($"{variant.Name} printed\n{output}\nwhere the first probe printed\n{expected}");
        if (round > 0) // round 0 warms the disk cache; it is not counted
            timings[variant].Add(timing);
    }
}

string loadAfter = File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Trim() : "?";
Console.WriteLine($"{runs} rounds (one uncounted round first); load average before: {load}; after: {loadAfter}");
Console.WriteLine();
Console.WriteLine("| probe | first answer, median ms | last answer, median ms | exit, median ms | last answer, min-max ms | CPU, median ms |");
Console.WriteLine("|---|---:|---:|---:|---:|---:|");
foreach (Variant variant in variants.Where(v => !failed.ContainsKey(v)))
{
    List<Timing> t = timings[variant];
    Console.WriteLine(FormattableString.Invariant(
        $"| {variant.Name} | {Median(t.Select(x => x.FirstMs)):F1} | {Median(t.Select(x => x.LastMs)):F1} | {Median(t.Select(x => x.ExitMs)):F1} | {t.Min(x => x.LastMs):F1}-{t.Max(x => x.LastMs):F1} | {Median(t.Select(x => x.CpuMs)):F1} |"));
}
foreach ((Variant variant, string why) in failed)
    Console.WriteLine($"| {variant.Name} | failed: {why.ReplaceLineEndings(" ")} |");
Console.WriteLine();
Console.WriteLine("Every probe printed:");
Console.WriteLine(expected);

static double Median(IEnumerable<double> values)
{
    double[] sorted = [.. values.Order()];
    return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
}

static string FindRoot()
{
    for (string? dir = Environment.CurrentDirectory; dir != null; dir = Path.GetDirectoryName(dir))
    {
        if (File.Exists(Path.Combine(dir, "Orseis.sln")))
            return dir;
    }
    throw new InvalidOperationException("run from inside the Orseis repository (no Orseis.sln above the current folder)");
}
