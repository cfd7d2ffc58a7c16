using System.Diagnostics;

namespace Orseis.EndToEndTests;

/// <summary>Runs a command line to its end, bounded in time, and returns its exit code and output.</summary>
internal static class ToolProcess
{
    public sealed record Result(int ExitCode, string Output, string Error);

    /// <summary>The dotnet running this test (the SDK sets DOTNET_HOST_PATH for test hosts), else the one on PATH.</summary>
    public static string Dotnet() => Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } path ? path : "dotnet";

    public static Result Run(
        string workingDirectory, string program, IEnumerable<string> args, TimeSpan limit, IReadOnlyDictionary<string, string>? environment = null)
    {
        var info = new ProcessStartInfo(program) { WorkingDirectory = workingDirectory, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string arg in args)
            info.ArgumentList.Add(arg);
        // No build servers or node reuse: a server left running would hold this test's output pipes open.
        info.Environment["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0";
        info.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        foreach ((string name, string value) in environment ?? new Dictionary<string, string>())
            info.Environment[name] = value;
        using Process process = Process.Start(info) ?? throw new InvalidOperationException("could not start " + program);
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(limit))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{program} {string.Join(' ', info.ArgumentList)} did not finish within {limit.TotalSeconds:0} s.");
        }

        if (!Task.WaitAll([output, error], TimeSpan.FromSeconds(30)))
            throw new TimeoutException($"{program} exited but its output stayed open (a build server holding the pipe?).");
        return new Result(process.ExitCode, output.Result, error.Result);
    }
}
