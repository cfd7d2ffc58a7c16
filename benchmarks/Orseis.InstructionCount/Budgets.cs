using System.Globalization;
using System.Text;

namespace Orseis.InstructionCount;

/// <summary>
/// The budget file: instructions per call allowed for each path, and the margin a measurement may exceed its budget
/// by. Lines are <c>margin PERCENT</c> or <c>PATH INSTRUCTIONS</c>; <c>#</c> starts a comment.
/// </summary>
public sealed class Budgets
{
    /// <summary>Where the budget file lives in the repository, for messages.</summary>
    public const string RepositoryPath = "benchmarks/Orseis.InstructionCount/budgets.txt";

    private Budgets(double marginPercent, IReadOnlyDictionary<GatePath, long> perPath)
    {
        MarginPercent = marginPercent;
        PerPath = perPath;
    }

    /// <summary>How far over its budget a path may measure, in percent.</summary>
    public double MarginPercent { get; }

    /// <summary>Instructions per call allowed, per path.</summary>
    public IReadOnlyDictionary<GatePath, long> PerPath { get; }

    /// <summary>The budget file copied beside the program.</summary>
    public static string DefaultFile => Path.Combine(AppContext.BaseDirectory, "budgets.txt");

    /// <summary>Reads a budget file; a clear error names the file, the line and what was wrong.</summary>
    public static Budgets Read(string file)
    {
        double? margin = null;
        var perPath = new Dictionary<GatePath, long>();
        int number = 0;
        foreach (string raw in File.ReadLines(file))
        {
            number++;
            string line = raw.Split('#')[0].Trim();
            if (line.Length == 0)
                continue;
            string[] parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            string where = $"{file}:{number}";
            if (parts.Length != 2)
                throw new FormatException($"{where}: expected 'PATH INSTRUCTIONS' or 'margin PERCENT', got '{line}'");
            if (parts[0] == "margin")
            {
                if (!double.TryParse(parts[1].TrimEnd('%'), NumberStyles.Float, CultureInfo.InvariantCulture, out double m) || m <= 0)
                    throw new FormatException($"{where}: margin '{parts[1]}' is not a positive percentage");
                margin = m;
                continue;
            }

            GatePath path;
            try
            {
                path = GatePath.Parse(parts[0]);
            }
            catch (FormatException e)
            {
                throw new FormatException($"{where}: {e.Message}", e);
            }

            if (!long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out long budget) || budget <= 0)
                throw new FormatException($"{where}: budget '{parts[1]}' of {path} is not a positive whole number of instructions");
            if (!perPath.TryAdd(path, budget))
                throw new FormatException($"{where}: {path} has a second budget");
        }

        return new Budgets(margin ?? throw new FormatException($"{file}: no 'margin PERCENT' line"), perPath);
    }

    /// <summary>
    /// Compares measurements with the budgets: every measured path needs a budget, and fails when it measured more than
    /// its budget plus the margin. Returns the failures, each a paragraph naming the path, its budget and the measure.
    /// </summary>
    public IReadOnlyList<string> Check(IReadOnlyDictionary<GatePath, double> measured)
    {
        var failures = new List<string>();
        foreach ((GatePath path, double perCall) in measured.OrderBy(m => m.Key.ToString(), StringComparer.Ordinal))
        {
            if (!PerPath.TryGetValue(path, out long budget))
            {
                failures.Add(string.Create(CultureInfo.InvariantCulture, $"{path}: no budget in {RepositoryPath}; measured {perCall:0} instructions per call. Add the line '{path} {Math.Ceiling(perCall):0}'."));
                continue;
            }

            double over = (perCall / budget - 1) * 100;
            if (over > MarginPercent)
            {
                failures.Add(string.Create(CultureInfo.InvariantCulture,
                    $"{path}: budget {budget}, measured {perCall:0} instructions per call ({over:+0.0;-0.0} %, margin {MarginPercent} %)."));
            }
        }

        return failures;
    }

    /// <summary>The message of a failed check: the failures and how to raise a budget.</summary>
    public static string Explain(IReadOnlyList<string> failures)
    {
        var text = new StringBuilder("The instruction gate failed: a path costs more instructions per call than its budget allows.\n");
        foreach (string failure in failures)
            text.Append("  ").Append(failure).Append('\n');
        text.Append("Find the cost: CONTRIBUTING.md, \"The instruction gate\". If the growth is intended, raise the path's budget in ")
            .Append(RepositoryPath)
            .Append(" in the same commit as the change, saying in the commit message why the call costs more; print the figures with ")
            .Append("`dotnet run -c Release --project benchmarks/Orseis.InstructionCount -- measure --ci`.");
        return text.ToString();
    }
}
