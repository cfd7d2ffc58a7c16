using System.Diagnostics;

namespace Orseis.Scenarios;

/// <summary>Runs Debian's <c>hey</c> once and hands back what it printed, for the studies that load a web app with it.</summary>
internal static class HeyProcess
{
    /// <summary>Runs <c>hey</c> with <paramref name="args"/>, killing it after <paramref name="limit"/>; returns its standard output.</summary>
    /// <exception cref="ScenarioSetupException">hey is not installed.</exception>
    /// <exception cref="TimeoutException">hey did not finish in time.</exception>
    /// <exception cref="InvalidOperationException">hey failed (its error output is in the message).</exception>
    public static async Task<string> RunAsync(string[] args, TimeSpan limit)
    {
        var start = new ProcessStartInfo("hey") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in args)
            start.ArgumentList.Add(arg);
        Process hey;
        try
        {
            hey = Process.Start(start)!;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            throw new ScenarioSetupException("hey is not installed: apt-get install hey (Debian's HTTP load generator).");
        }

        using (hey)
        {
            Task<string> output = hey.StandardOutput.ReadToEndAsync();
            Task<string> errors = hey.StandardError.ReadToEndAsync();
            using var timeout = new CancellationTokenSource(limit);
            try
            {
                await hey.WaitForExitAsync(timeout.Token);
            }
            catch (OperationCanceledException)
            {
                hey.Kill(entireProcessTree: true);
                throw new TimeoutException($"hey {string.Join(' ', args)} did not finish within {limit.TotalSeconds:0} s.");
            }

            if (hey.ExitCode != 0)
                throw new InvalidOperationException($"hey failed with exit code {hey.ExitCode}: {await errors}");
            return await output;
        }
    }
}
