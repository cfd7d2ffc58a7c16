using System.Diagnostics;

namespace Orseis.EndToEndTests;

/// <summary>The fleet sample refuses a bad command line with one line naming the option, and exit code 2.</summary>
public sealed class FleetSampleTests
{
    [Theory]
    [InlineData("--port abc --mysql x", "--port must be a whole number from 1 to 65535")]
    [InlineData("--port 9464", "give exactly one of --mysql and --postgres")]
    [InlineData("--mysql x --postgres y --port 1", "give exactly one of --mysql and --postgres")]
    [InlineData("--mysql x", "--port is required")]
    [InlineData("--mysql x --port 1 --workers -3", "--workers must be a whole number from 0 to 1000")]
    [InlineData("--mysql x --port 1 --duration 0", "--duration must be a number of seconds above 0")]
    [InlineData("--mysql x --port 1 --bogus 1", "unknown option '--bogus'")]
    [InlineData("--mysql", "--mysql needs a value")]
    public void Bad_options_are_refused_with_a_message_naming_the_option(string args, string message)
    {
        var info = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        info.ArgumentList.Add(BuiltProgram.Dll("samples", "Orseis.Samples.Fleet"));
        foreach (string arg in args.Split(' '))
            info.ArgumentList.Add(arg);
        using Process process = Process.Start(info) ?? throw new InvalidOperationException("could not start dotnet");
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        Assert.True(process.WaitForExit(30_000), "the sample did not exit within 30 s");
        Assert.Equal(2, process.ExitCode);
        Assert.StartsWith($"fleet: {message}", stderr.Result, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", stderr.Result, StringComparison.Ordinal); // no stack trace
        Assert.Equal("", stdout.Result);
    }
}
