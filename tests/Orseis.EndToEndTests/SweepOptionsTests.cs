using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// The pool-size sweep's size lists (docs/capacity.md): a size that is not a whole number from 1 up, a size given twice, or
/// <c>--currents</c> with <c>--curve</c> (which would be ignored) is refused by name before any server is asked for.
/// </summary>
public sealed class SweepOptionsTests
{
    [Theory]
    [InlineData(new[] { "--currents", "0,16" }, "--currents must be distinct whole numbers from 1 to 2000, comma-separated, not '0,16'")]
    [InlineData(new[] { "--currents", "16,x" }, "--currents must be distinct whole numbers from 1 to 2000, comma-separated, not '16,x'")]
    [InlineData(new[] { "--curve", "8,8" }, "--curve must be distinct whole numbers from 1 to 2000, comma-separated, not '8,8'")]
    [InlineData(new[] { "--curve", "8,16", "--currents", "4" }, "--currents is not used with --curve")]
    public void A_bad_size_list_is_refused_by_name(string[] options, string error)
    {
        ToolProcess.Result run = ToolProcess.Run(
            RepositoryRoot.Find(), ToolProcess.Dotnet(),
            [BuiltProgram.Dll("benchmarks", "Orseis.Scenarios"), "sweep", .. options],
            TimeSpan.FromMinutes(1));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains(error, run.Output + run.Error, StringComparison.Ordinal);
    }
}
