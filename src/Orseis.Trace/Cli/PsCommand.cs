using Orseis.Trace.Targets;

namespace Orseis.Trace.Cli;

/// <summary><c>orseis-trace ps</c>: the .NET processes this user can watch, those with Orseis marked.</summary>
internal static class PsCommand
{
    public static ExitCode Run()
    {
        List<DotnetProcess> processes = DotnetProcess.List().Where(p => p.Id != Environment.ProcessId).ToList();
        if (processes.Count == 0)
        {
            Console.WriteLine("no .NET process of this user publishes a diagnostic port");
            return ExitCode.Ok;
        }

        int width = Math.Max(4, processes.Max(p => p.Name.Length));
        Console.WriteLine($"{"PID",7}  {"NAME".PadRight(width)}  ORSEIS  COMMAND");
        foreach (DotnetProcess p in processes)
        {
            string orseis = p.Orseis switch { true => "yes", false => "-", null => "?" };
            string command = p.CommandLine.Length > 120 ? p.CommandLine[..117] + "..." : p.CommandLine;
            Console.WriteLine($"{p.Id,7}  {p.Name.PadRight(width)}  {orseis,-6}  {command}");
        }

        return ExitCode.Ok;
    }
}
