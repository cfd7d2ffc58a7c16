using System.Diagnostics;
using BenchmarkDotNet.Loggers;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// The console logger of a normal run: errors, a progress line at most every <see cref="Interval"/> and the total
/// time, instead of every iteration of every case (that full log still goes to BenchmarkDotNet's log file in the
/// artifacts folder, and <c>--verbose</c> prints it).
/// </summary>
public sealed class ProgressLogger : ILogger
{
    /// <summary>The shortest time between two progress lines.</summary>
    public static readonly TimeSpan Interval = TimeSpan.FromSeconds(30);

    private readonly Stopwatch _sinceLast = Stopwatch.StartNew();
    private bool _first = true;

    /// <inheritdoc/>
    public string Id => nameof(ProgressLogger);

    /// <inheritdoc/>
    public int Priority => 0;

    /// <inheritdoc/>
    public void Write(LogKind logKind, string text)
    {
        if (logKind == LogKind.Error)
            Console.Error.Write(text);
    }

    /// <inheritdoc/>
    public void WriteLine() { }

    /// <inheritdoc/>
    public void WriteLine(LogKind logKind, string text)
    {
        if (logKind == LogKind.Error)
        {
            Console.Error.WriteLine(text);
        }
        else if (text.StartsWith("// ** Remained", StringComparison.Ordinal) && (_first || _sinceLast.Elapsed >= Interval))
        {
            _first = false;
            _sinceLast.Restart();
            Console.WriteLine(text.Trim('/', '*', ' '));
        }
        else if (text.StartsWith("Global total time", StringComparison.Ordinal) || text.StartsWith("// * Artifacts cleanup", StringComparison.Ordinal))
        {
            Console.WriteLine(text);
        }
    }

    /// <inheritdoc/>
    public void Flush() => Console.Out.Flush();
}
