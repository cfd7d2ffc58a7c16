using System.Text.RegularExpressions;
using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// A user's Native AOT publish (issue 44): samples/Orseis.Samples.Aot, which runs the README example, a record, a class, a
/// tuple, a nullable struct, anonymous-object arguments, multi-mapping, a grid, a session with a transaction and the detectors
/// on SQLite (and, given <c>mariadb</c>, on a MariaDB server through MySqlConnector, with an output member), is published with <c>PublishAot=true</c> (the SDK's
/// own ILCompiler) into a folder of its own, once for the class (<see cref="AotSampleBuild"/>); the publish must give no
/// warning naming Orseis, and the native binary must print exactly what the JIT build prints.
/// </summary>
public sealed partial class AotPublishTests(AotSampleBuild build) : IClassFixture<AotSampleBuild>
{
    [Fact]
    public void The_native_build_of_the_aot_sample_has_no_warning_from_Orseis_and_prints_what_the_jit_build_prints()
    {
        string[] fromOrseis = [.. Warnings(build.Publish.Output + build.Publish.Error).Where(w => w.Contains("Orseis", StringComparison.Ordinal))];
        Assert.True(fromOrseis.Length == 0, $"the AOT publish warned {fromOrseis.Length} time(s) about Orseis:\n{string.Join('\n', fromOrseis)}");

        string jit = Run(ToolProcess.Dotnet(), [build.JitDll]);
        string aot = Run(build.Native, []);

        Assert.Contains("User { Id = 42, Name = Ada }", jit, StringComparison.Ordinal);
        Assert.Contains("multi-mapped: Notes by Ada; Compilers by Grace", jit, StringComparison.Ordinal);
        Assert.Contains("session: 10 Tony", jit, StringComparison.Ordinal);
        Assert.Contains("nullable struct: Point { X = 3, Y = 4 }, none: null", jit, StringComparison.Ordinal);
        Assert.Contains("churn named: True", jit, StringComparison.Ordinal);
        Assert.Equal(jit, aot);
    }

    /// <summary>The same binary against a real MariaDB through MySqlConnector (ORSEIS_MYSQL): the server provider under AOT.</summary>
    [MySqlToolFact]
    public void The_native_build_runs_on_MariaDB_through_MySqlConnector_as_the_jit_build_does()
    {
        string jit = Run(ToolProcess.Dotnet(), [build.JitDll, "mariadb"]);
        string aot = Run(build.Native, ["mariadb"]);

        Assert.Contains("mariadb: User { Id = 42, Name = Ada }", jit, StringComparison.Ordinal);
        Assert.Contains("mariadb list argument: Edsger, Grace", jit, StringComparison.Ordinal);
        Assert.Contains("mariadb output member: 2", jit, StringComparison.Ordinal);
        Assert.Contains("mariadb grid: 3 users; Grace#7, Edsger#8, Ada#42", jit, StringComparison.Ordinal);
        Assert.Contains("mariadb session: 10 Tony", jit, StringComparison.Ordinal);
        Assert.Contains("churn named: True", jit, StringComparison.Ordinal);
        Assert.Equal(jit, aot);
    }

    /// <summary>Runs a build of the sample in a fresh folder (it makes and removes its database there) and returns its output.</summary>
    private static string Run(string program, string[] args)
    {
        string folder = Directory.CreateTempSubdirectory("run-").FullName;
        try
        {
            ToolProcess.Result result = ToolProcess.Run(folder, program, args, TimeSpan.FromMinutes(1));
            Assert.True(result.ExitCode == 0, $"{program} exited with {result.ExitCode}:\n{result.Output}\n{result.Error}");
            return result.Output.ReplaceLineEndings("\n");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>The distinct warning lines of a build's output (MSBuild prints each again in its summary).</summary>
    private static IEnumerable<string> Warnings(string output) =>
        output.Split('\n').Select(l => l.Trim()).Where(l => WarningLine().IsMatch(l)).Distinct();

    [GeneratedRegex(@"\bwarning [A-Z]+[0-9]+\b")]
    private static partial Regex WarningLine();
}

/// <summary>The AOT sample published native once (a few minutes), and its JIT build, for the tests of one class.</summary>
public sealed class AotSampleBuild : IDisposable
{
    private readonly string _work = Directory.CreateTempSubdirectory("orseis-aot-").FullName;

    public AotSampleBuild()
    {
        string root = RepositoryRoot.Find();
        string project = Path.Combine(root, "samples", "Orseis.Samples.Aot", "Orseis.Samples.Aot.csproj");
        string native = Path.Combine(_work, "native");
        // An artifacts path of its own: the publish builds Orseis and the sample apart from the test run's own build outputs.
        Publish = ToolProcess.Run(root, ToolProcess.Dotnet(),
            ["publish", project, "-c", "Release", "-r", "linux-x64", "-p:PublishAot=true", "-o", native,
             "--artifacts-path", Path.Combine(_work, "artifacts"), "-nologo", "-nodeReuse:false", "-p:UseSharedCompilation=false"],
            TimeSpan.FromMinutes(15));
        Assert.True(Publish.ExitCode == 0, $"the AOT publish failed:\n{Publish.Output}\n{Publish.Error}");
        Native = Path.Combine(native, "Orseis.Samples.Aot");
        JitDll = Path.Combine(root, "samples", "Orseis.Samples.Aot", "bin", "Release", "net10.0", "Orseis.Samples.Aot.dll");
    }

    /// <summary>The publish's exit code and output (its warnings are checked by the test).</summary>
    internal ToolProcess.Result Publish { get; }

    /// <summary>The native binary.</summary>
    public string Native { get; }

    /// <summary>The JIT build the solution's build made.</summary>
    public string JitDll { get; }

    public void Dispose()
    {
        try
        {
            Directory.Delete(_work, recursive: true);
        }
        catch (IOException)
        {
            // a file still held is left to the temp folder's own cleanup
        }
    }
}
