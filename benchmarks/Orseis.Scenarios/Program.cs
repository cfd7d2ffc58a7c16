using Orseis.Scenarios;

// suite [--runs N] [--no-hog] [--only a,b]  runs every scenario N times (each in its own process) and once beside a CPU hog;
// run NAME                                    one scenario in this process, its result as one JSON line;
// sweep                                       the pool-size sweep (knee against the report's advice);
// overhead [--provider mysql|sqlite] [--pairs P] [--blocks B] [--calls K] detector overhead, Detectors=All vs None, in wall and client CPU time;
// hog SECONDS                                 spins on every core (the suite's CPU hog).
// The server comes from ORSEIS_MYSQL; ORSEIS_MYSQL_ADMIN (default: the same with User ID=root and no password) sets
// init_connect; ORSEIS_MYSQL_PID (the mariadbd process) lets the server-not-answering scenario pause it.
try
{
    return args switch
    {
        ["suite", .. var rest] => await SuiteRunner.RunAsync(rest),
        ["run", var name] => await ScenarioHost.RunAsync(name),
        ["sweep", .. var rest] => await PoolSweep.RunAsync(rest),
        ["overhead", .. var rest] => await OverheadCommand.RunAsync(rest),
        ["overhead-child", var provider, var detectors, var listening] => OverheadChild.Run(provider, detectors, listening == "listeners"),
        ["hog", var seconds] => CpuHog.Run(double.Parse(seconds, System.Globalization.CultureInfo.InvariantCulture)),
        _ => Usage(),
    };
}
catch (ScenarioSetupException error)
{
    Console.Error.WriteLine(error.Message);
    return 2;
}

static int Usage()
{
    Console.Error.WriteLine("usage: Orseis.Scenarios suite [--runs N] [--no-hog] [--only a,b] | run NAME | sweep [--quick] | overhead [--provider mysql|sqlite] [--pairs P] [--blocks B] [--calls K] | hog SECONDS");
    return 2;
}
