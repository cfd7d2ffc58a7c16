using System.Diagnostics;

namespace Orseis.Testing;

/// <summary>Runs the repository's scripts (scripts/*.sh) for the throwaway servers, bounded in time.</summary>
internal static class RepositoryScripts
{
    /// <summary>Runs a script of the repository and returns its standard output.</summary>
    /// <param name="name">The script's file name under scripts/.</param>
    /// <param name="limit">How long it may run before it is killed (and a TimeoutException thrown).</param>
    /// <param name="environment">Variables set for the script only (null for none).</param>
    /// <param name="args">Its arguments.</param>
    public static string Run(string name, TimeSpan limit, IReadOnlyDictionary<string, string>? environment, params string[] args)
    {
        var start = new ProcessStartInfo(Path.Combine(RepositoryRoot.Find(), "scripts", name))
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach ((string key, string value) in environment ?? new Dictionary<string, string>())
            start.Environment[key] = value;
        foreach (string arg in args)
            start.ArgumentList.Add(arg);
        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> errors = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(limit))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"scripts/{name} did not finish within {limit.TotalSeconds} s: {errors.Result}");
        }

        if (process.ExitCode != 0)
            throw new InvalidOperationException($"scripts/{name} failed with exit code {process.ExitCode}: {errors.Result}");
        return output.Result;
    }
}
