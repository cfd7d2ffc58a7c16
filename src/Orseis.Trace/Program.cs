// orseis-trace: is the database pool why the app is slow? Watches the Orseis pools of a .NET process over EventPipe.
//
//   orseis-trace ps                                  the .NET processes, those with Orseis marked
//   orseis-trace monitor -p PID | -n NAME | -- dotnet App.dll     the pools live
//   orseis-trace collect -p PID -o FILE.nettrace     record events and meters
//   orseis-trace report FILE.nettrace | -p PID --duration 30s [--format text|json|html]
//
// Bad input is one line on stderr and an exit code of its own (Cli/ExitCode.cs); never a stack trace.
using System.CommandLine;
using Orseis.Trace.Cli;

(string[] toolArgs, string[] command) = CommandLineSplit.Split(args);
RootCommand root = TraceCli.Build(command);
ParseResult parse = root.Parse(toolArgs);
if (parse.Errors.Count > 0)
    return TraceCli.Fail(ExitCode.Usage, $"{parse.Errors[0].Message} (orseis-trace --help lists the commands and options)");
return await parse.InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = TimeSpan.FromSeconds(15) });
