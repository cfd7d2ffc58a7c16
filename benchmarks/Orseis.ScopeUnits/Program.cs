using System.Diagnostics;
using System.Globalization;
using Orseis.InstructionCount;
using Orseis.Scenarios;
using Orseis.ScopeUnits;

// count [--units K] [PATH...]          instructions per unit of each path, counted by callgrind (the calling thread only)
// time [--rounds R] [--units U] [PATH...]  thread CPU time per unit, the paths in turn round by round, and scope/session
// run --units K PATH...                 the process count starts under callgrind
// A PATH is scope/N or session/N: a unit of work of N `select 1` calls, in a ConnectionScope begun for them or on a
// Session opened for them, begin and end included. Default: N = 1, 2, 4 both ways.
string command = args.Length > 0 ? args[0] : "help";
int units = 0;
int rounds = 20;
var paths = new List<UnitPath>();
for (int i = 1; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--units":
            units = int.Parse(args[++i], CultureInfo.InvariantCulture);
            break;
        case "--rounds":
            rounds = int.Parse(args[++i], CultureInfo.InvariantCulture);
            break;
        default:
            paths.Add(UnitPath.Parse(args[i]));
            break;
    }
}

if (paths.Count == 0)
    paths.AddRange(UnitPath.Defaults);

switch (command)
{
    case "run":
        return Units.RunUnderCallgrind(paths, units);
    case "count":
    {
        units = units == 0 ? 200 : units;
        IReadOnlyDictionary<UnitPath, double> counted = Units.Count(paths, units);
        Console.WriteLine($"# instructions per unit (begin, N calls, end), {units} units per path, the calling thread");
        foreach (UnitPath path in paths)
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{path} {counted[path]:0}"));
        Units.WriteScopeOverSession(paths, counted, "instructions");
        return 0;
    }

    case "time":
    {
        units = units == 0 ? 2000 : units;
        IReadOnlyDictionary<UnitPath, double> timed = Units.Time(paths, units, rounds);
        Console.WriteLine($"# thread CPU ns per unit (begin, N calls, end), median of {rounds} rounds of {units} units per path");
        foreach (UnitPath path in paths)
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{path} {timed[path]:0}"));
        Units.WriteScopeOverSession(paths, timed, "ns");
        return 0;
    }

    default:
        Console.Error.WriteLine("usage: Orseis.ScopeUnits count|time [--units K] [--rounds R] [scope/N|session/N ...]");
        return command == "help" ? 0 : 2;
}

namespace Orseis.ScopeUnits
{
    /// <summary>A unit of work of <see cref="Calls"/> calls, in a scope (<see cref="Scope"/>) or on a session.</summary>
    internal sealed record UnitPath(bool Scope, int Calls)
    {
        public static readonly UnitPath[] Defaults =
            [new(false, 1), new(true, 1), new(false, 2), new(true, 2), new(false, 4), new(true, 4)];

        public static UnitPath Parse(string text)
        {
            string[] parts = text.Split('/');
            if (parts.Length != 2 || parts[0] is not ("scope" or "session") ||
                !int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out int calls))
            {
                throw new FormatException($"path '{text}' is not scope/N or session/N");
            }

            return new UnitPath(parts[0] == "scope", calls);
        }

        public override string ToString() => $"{(Scope ? "scope" : "session")}/{Calls}";
    }

    /// <summary>The units, measured.</summary>
    internal static class Units
    {
        private const string Discarded = "discarded";
        private const int Warmup = 200;

        private static long _sink;

        /// <summary>One unit of <paramref name="path"/>.</summary>
        public static void Unit(UnitPath path, Database db)
        {
            long sum = 0;
            if (path.Scope)
            {
                using (db.BeginScope())
                {
                    for (int i = 0; i < path.Calls; i++)
                        sum += db.Scalar<long>("select 1");
                }
            }
            else
            {
                using Session session = db.OpenSession();
                for (int i = 0; i < path.Calls; i++)
                    sum += session.Scalar<long>("select 1");
            }

            _sink += sum;
        }

        /// <summary>The measured process: warms up, then counts each path's units into a dump named after it.</summary>
        public static int RunUnderCallgrind(IReadOnlyList<UnitPath> paths, int units)
        {
            // Valgrind runs the calls ~50 times slower: an idle window of seconds keeps the scope's behaviour that of full
            // speed (as the gate's workload does).
            using var store = new Store(TimeSpan.FromSeconds(5));
            foreach (UnitPath path in paths)
            {
                for (int i = 0; i < Warmup; i++)
                    Unit(path, store.Db);
            }

            Callgrind.StartInstrumenting();
            Measure(paths[0], store.Db, units, Discarded); // the first window pays one-time work (see the gate's Child)
            foreach (UnitPath path in paths)
                Measure(path, store.Db, units, path.ToString());
            return 0;
        }

        private static void Measure(UnitPath path, Database db, int units, string dump)
        {
            for (int i = 0; i < 5; i++)
                Unit(path, db);
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            Callgrind.Toggle();
            for (int i = 0; i < units; i++)
                Unit(path, db);
            Callgrind.Toggle();
            Callgrind.Dump(dump);
        }

        /// <summary>Runs this program's <c>run</c> under callgrind and reads instructions per unit from its dumps.</summary>
        public static IReadOnlyDictionary<UnitPath, double> Count(IReadOnlyList<UnitPath> paths, int units)
        {
            string dumps = Directory.CreateTempSubdirectory("orseis-scope-units-").FullName;
            try
            {
                var start = new ProcessStartInfo("valgrind") { UseShellExecute = false, RedirectStandardError = true };
                foreach (string arg in (string[])["--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no", "--dump-instr=no",
                             "--dump-line=no", $"--callgrind-out-file={dumps}/cg.out", CallgrindDumps.Dotnet(), "exec",
                             typeof(Units).Assembly.Location, "run", "--units", units.ToString(CultureInfo.InvariantCulture)])
                {
                    start.ArgumentList.Add(arg);
                }

                foreach (UnitPath path in paths)
                    start.ArgumentList.Add(path.ToString());
                // As the instruction gate runs its measured process: optimised code, the same GC settings.
                foreach ((string name, string value) in CountingEnvironment.All)
                    start.Environment[name] = value;
                using Process process = Process.Start(start)!;
                string stderr = process.StandardError.ReadToEnd();
                process.WaitForExit();
                if (process.ExitCode != 0)
                    throw new InvalidOperationException($"the measured process failed (exit {process.ExitCode}):\n{stderr}");
                var result = new Dictionary<UnitPath, double>();
                foreach ((string name, long instructions) in CallgrindDumps.Read(dumps))
                {
                    if (name != Discarded)
                        result[UnitPath.Parse(name)] = instructions / (double)units;
                }

                return result;
            }
            finally
            {
                Directory.Delete(dumps, recursive: true);
            }
        }

        /// <summary>
        /// Thread CPU time per unit: <paramref name="rounds"/> rounds, each running every path's <paramref name="units"/> units in
        /// turn (the order rotating round by round); the median over rounds per path, and per N the median of the rounds'
        /// scope/session ratios. On the study's settings (default options, a pooled SQLite file).
        /// </summary>
        public static IReadOnlyDictionary<UnitPath, double> Time(IReadOnlyList<UnitPath> paths, int units, int rounds)
        {
            using var store = new Store(null);
            foreach (UnitPath path in paths)
            {
                for (int i = 0; i < Warmup * 10; i++)
                    Unit(path, store.Db);
            }

            var perRound = paths.ToDictionary(p => p, _ => new List<double>());
            var collections = paths.ToDictionary(p => p, _ => new int[3]);
            var bytes = paths.ToDictionary(p => p, _ => 0L);
            for (int round = 0; round < rounds; round++)
            {
                for (int k = 0; k < paths.Count; k++)
                {
                    UnitPath path = paths[(k + round) % paths.Count];
                    int[] before = [GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2)];
                    long allocated = GC.GetAllocatedBytesForCurrentThread();
                    long started = ThreadCpu.Nanoseconds();
                    for (int i = 0; i < units; i++)
                        Unit(path, store.Db);
                    perRound[path].Add((ThreadCpu.Nanoseconds() - started) / (double)units);
                    bytes[path] += GC.GetAllocatedBytesForCurrentThread() - allocated;
                    for (int g = 0; g < 3; g++)
                        collections[path][g] += GC.CollectionCount(g) - before[g];
                }
            }

            foreach (UnitPath path in paths)
            {
                int[] c = collections[path];
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"# {path}: {bytes[path] / ((double)units * rounds):0} B a unit; collections gen0 {c[0]}, gen1 {c[1]}, gen2 {c[2]} over {units * rounds} units"));
            }

            foreach (int calls in paths.Select(p => p.Calls).Distinct())
            {
                if (perRound.TryGetValue(new UnitPath(true, calls), out List<double>? scope) &&
                    perRound.TryGetValue(new UnitPath(false, calls), out List<double>? session))
                {
                    double[] ratios = [.. scope.Zip(session, (a, b) => a / b)];
                    Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                        $"# N={calls}: scope/session per round, median {Median(ratios):0.000} (min {ratios.Min():0.000}, max {ratios.Max():0.000})"));
                }
            }

            return perRound.ToDictionary(p => p.Key, p => Median([.. p.Value]));
        }

        public static void WriteScopeOverSession(IReadOnlyList<UnitPath> paths, IReadOnlyDictionary<UnitPath, double> values, string unit)
        {
            foreach (int calls in paths.Select(p => p.Calls).Distinct())
            {
                if (values.TryGetValue(new UnitPath(true, calls), out double scope) && values.TryGetValue(new UnitPath(false, calls), out double session))
                {
                    Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                        $"N={calls}: scope - session {scope - session:0} {unit} a unit, scope/session {scope / session:0.000}"));
                }
            }
        }

        private static double Median(double[] values)
        {
            Array.Sort(values);
            int n = values.Length;
            return n % 2 == 1 ? values[n / 2] : (values[(n / 2) - 1] + values[n / 2]) / 2;
        }
    }

    /// <summary>An open-per-call database over a pooled SQLite file, as the study's (deleted at the end).</summary>
    internal sealed class Store : IDisposable
    {
        private readonly string _file = Path.Combine(Path.GetTempPath(), $"orseis-scope-units-{Environment.ProcessId}.db");

        public Store(TimeSpan? idleWindow)
        {
            var builder = new Microsoft.Data.Sqlite.SqliteConnectionStringBuilder { DataSource = _file, Pooling = true };
            var options = new OrseisOptions();
            if (idleWindow is { } window)
                options.ScopeIdleWindow = window;
            Db = new Database(Microsoft.Data.Sqlite.SqliteFactory.Instance, builder.ConnectionString, options);
        }

        public Database Db { get; }

        public void Dispose()
        {
            Db.Dispose();
            Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
            File.Delete(_file);
        }
    }
}
