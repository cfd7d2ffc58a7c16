using System.Globalization;

namespace Orseis.InstructionCount;

/// <summary>
/// What the instruction counters share around callgrind: the dotnet host to run under valgrind, and the totals of the
/// dumps a measured process wrote (one per <see cref="Callgrind"/> dump request, named after it). Linked by
/// benchmarks/Orseis.ScopeUnits.
/// </summary>
internal static class CallgrindDumps
{
    /// <summary>The path each dump was named after (its <c>desc: Trigger: Client Request: </c> line) and its total.</summary>
    public static IEnumerable<(string Name, long Instructions)> Read(string dumps)
    {
        const string Trigger = "desc: Trigger: Client Request: ";
        foreach (string file in Directory.GetFiles(dumps, "cg.out*"))
        {
            string? name = null;
            long? total = null;
            foreach (string line in File.ReadLines(file))
            {
                if (line.StartsWith(Trigger, StringComparison.Ordinal))
                    name = line[Trigger.Length..].Trim();
                else if (line.StartsWith("summary:", StringComparison.Ordinal) || line.StartsWith("totals:", StringComparison.Ordinal))
                    total = long.Parse(line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim().Split(' ')[0], CultureInfo.InvariantCulture);
            }

            if (name is not null && total is not null)
                yield return (name, total.Value);
        }
    }

    /// <summary>The dotnet host: DOTNET_HOST_PATH, this process if it is dotnet, else the first dotnet on PATH.</summary>
    public static string Dotnet()
    {
        string? host = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH");
        if (!string.IsNullOrEmpty(host) && File.Exists(host))
            return host;
        string? self = Environment.ProcessPath;
        if (self is not null && Path.GetFileNameWithoutExtension(self) == "dotnet")
            return self;
        return (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Select(d => Path.Combine(d, "dotnet")).FirstOrDefault(File.Exists)
               ?? throw new InvalidOperationException("no dotnet host found (DOTNET_HOST_PATH or dotnet on PATH)");
    }
}
