using System.Text;
using Xunit.Abstractions;

namespace Orseis.InstructionCount.Tests;

/// <summary>The measured process's lines, into the test's output.</summary>
internal sealed class Log(ITestOutputHelper output) : TextWriter
{
    public override Encoding Encoding => Encoding.UTF8;

    public override void WriteLine(string? value) => output.WriteLine(value ?? "");
}
