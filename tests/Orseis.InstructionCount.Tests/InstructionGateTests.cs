using Xunit.Abstractions;

namespace Orseis.InstructionCount.Tests;

/// <summary>
/// The instruction gate: the test command's paths, counted by callgrind, within the budget file's margin (under valgrind,
/// installed on this project's machines; the error says how to install it where it is not), and the budget file's own
/// checks. <see cref="InjectedCostTests"/> shows the gate failing a path made slower on purpose.
/// </summary>
public sealed class InstructionGateTests(ITestOutputHelper output)
{
    internal static readonly Budgets Budgets = Budgets.Read(Budgets.DefaultFile);

    [Fact]
    public void Every_gated_path_costs_no_more_instructions_per_call_than_its_budget_allows()
    {
        GatePath[] paths = [.. GatePath.Ci()];
        IReadOnlyDictionary<GatePath, double> measured = Gate.Measure(paths, log: new Log(output));
        foreach ((GatePath path, double perCall) in measured)
            output.WriteLine($"{path}: {perCall:0} instructions per call (budget {Budgets.PerPath.GetValueOrDefault(path)})");
        IReadOnlyList<string> failures = Budgets.Check(measured);
        Assert.True(failures.Count == 0, Budgets.Explain(failures));
    }

    [Fact]
    public void A_budget_file_with_a_bad_line_is_refused_naming_the_line()
    {
        string file = Path.GetTempFileName();
        try
        {
            File.WriteAllLines(file, ["margin 2%", "Scalar/session/None/off 11000", "Scalar/sesion/None/off 11000"]);
            FormatException error = Assert.Throws<FormatException>(() => Budgets.Read(file));
            Assert.Contains($"{file}:3", error.Message, StringComparison.Ordinal);
            Assert.Contains("unknown mode 'sesion'", error.Message, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(file);
        }
    }

    [Fact]
    public void Every_path_the_test_command_measures_and_every_path_of_the_full_matrix_has_a_budget()
    {
        Assert.DoesNotContain(GatePath.Ci(), p => !Budgets.PerPath.ContainsKey(p));
        Assert.DoesNotContain(GatePath.All(), p => !Budgets.PerPath.ContainsKey(p));
    }

}
