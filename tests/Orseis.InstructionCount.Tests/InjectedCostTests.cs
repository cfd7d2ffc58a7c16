using Xunit.Abstractions;

namespace Orseis.InstructionCount.Tests;

/// <summary>
/// The gate's own test: a path given a fixed extra cost (a loop in each call, through
/// <c>ORSEIS_GATE_INJECT</c>) is caught, and only that path. A class of its own, so xUnit runs it beside the gate.
/// </summary>
public sealed class InjectedCostTests(ITestOutputHelper output)
{
    [Fact]
    public void A_path_made_slower_by_a_fixed_loop_fails_the_gate_and_the_message_names_it()
    {
        // 150 iterations of a multiply-add loop, about 4 instructions each: some 600 more per call, about 8 % of a
        // session's Scalar (about 7 900 per call), over the 2 % margin. The other path is measured in the same process
        // without the loop and must pass: the gate names only the slowed path.
        var slowed = new GatePath("Scalar", "session", "None", false);
        var untouched = new GatePath("Scalar", "per-call", "None", false);
        IReadOnlyDictionary<GatePath, double> measured =
            Gate.Measure([slowed, untouched], calls: 100, inject: $"{slowed}=150", log: new Log(output));
        IReadOnlyList<string> failures = InstructionGateTests.Budgets.Check(measured);
        string failure = Assert.Single(failures);
        Assert.StartsWith($"{slowed}: budget {InstructionGateTests.Budgets.PerPath[slowed]}, measured ", failure, StringComparison.Ordinal);
        long budget = InstructionGateTests.Budgets.PerPath[slowed];
        Assert.True(measured[slowed] > budget * 1.03, $"the loop should add about 600 instructions a call to {budget}; measured {measured[slowed]:0}");
        string message = Budgets.Explain(failures);
        Assert.Contains(Budgets.RepositoryPath, message, StringComparison.Ordinal);
        Assert.Contains("in the same commit", message, StringComparison.Ordinal);
    }
}
