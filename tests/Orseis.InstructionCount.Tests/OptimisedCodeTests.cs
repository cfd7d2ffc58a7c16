using Xunit.Abstractions;

namespace Orseis.InstructionCount.Tests;

/// <summary>
/// The gate counts the code a process runs outside valgrind: under valgrind, with the gate's environment, the JIT
/// compiles every method of a path optimised, and without <c>DOTNET_JitEnableOptionalRelocs=0</c> it does not (the
/// second test shows that this knob is what makes the difference). Each runs one path's measured process for a few
/// calls under <c>valgrind --tool=none</c>, the JIT listing what it compiled (<see cref="JitSummary"/>).
/// </summary>
public sealed class OptimisedCodeTests(ITestOutputHelper output)
{
    private static readonly GatePath Measured = new("Scalar", "per-call", "All", false);

    [Fact]
    public void Under_valgrind_with_the_gates_environment_the_JIT_compiles_no_method_MinOpts()
    {
        IReadOnlyList<(string Method, string Tier)> compiled = JitSummary.Run(Measured, calls: 5, Gate.Environment);
        Report(compiled);
        // The listing is the path's: Orseis' own methods are in it, the detectors' among them, optimised.
        Assert.Contains(compiled, c => c.Method.StartsWith("Orseis.Diagnostics.", StringComparison.Ordinal) && c.Tier.StartsWith("FullOpts", StringComparison.Ordinal));
        string[] minOpts = [.. compiled.Where(c => c.Tier == JitSummary.MinOpts).Select(c => c.Method)];
        Assert.True(minOpts.Length == 0,
            $"{minOpts.Length} of {compiled.Count} methods compiled MinOpts under valgrind: the gate would count unoptimised code " +
            $"(CONTRIBUTING.md, \"The instruction gate\"). First: {string.Join("; ", minOpts.Take(5))}");
    }

    [Fact]
    public void Without_JitEnableOptionalRelocs_the_JIT_falls_back_to_MinOpts_under_valgrind_for_methods_of_Orseis()
    {
        var environment = Gate.Environment.Where(e => e.Key != "DOTNET_JitEnableOptionalRelocs").ToDictionary();
        Assert.Equal(Gate.Environment.Count - 1, environment.Count);
        IReadOnlyList<(string Method, string Tier)> compiled = JitSummary.Run(Measured, calls: 5, environment);
        Report(compiled);
        int orseis = compiled.Count(c => c.Tier == JitSummary.MinOpts && IsOrseis(c.Method));
        // If this fails the runtime no longer falls back under valgrind (dotnet/runtime#100600 fixed): the knob can go.
        Assert.True(orseis > 0, $"no method of Orseis compiled MinOpts without the knob ({compiled.Count} compiled)");
    }

    private static bool IsOrseis(string method) =>
        method.StartsWith("Orseis.", StringComparison.Ordinal) && !method.StartsWith("Orseis.InstructionCount.", StringComparison.Ordinal);

    private void Report(IReadOnlyList<(string Method, string Tier)> compiled)
    {
        foreach (IGrouping<string, (string Method, string Tier)> tier in compiled.GroupBy(c => c.Tier))
            output.WriteLine($"{tier.Key}: {tier.Count()} methods, {tier.Count(c => IsOrseis(c.Method))} of Orseis");
    }
}
