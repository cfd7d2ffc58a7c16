using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

/// <summary>The user's method named from a compiler-generated one (a lambda, a local function, an async state machine).</summary>
public sealed class CallSiteNameTests
{
    [Theory]
    [InlineData("<<Main>$>b__0", "Main")]
    [InlineData("<Run>d__3", "Run")]
    [InlineData("<LoadAsync>g__Local|2_0", "LoadAsync")]
    [InlineData("<>c__DisplayClass1_0", "<>c__DisplayClass1_0")]
    [InlineData("<1bad>x", "<1bad>x")]
    [InlineData("Plain", "Plain")]
    public void The_first_name_in_angle_brackets_names_the_method(string compiled, string named) =>
        Assert.Equal(named, CallSites.NameInAngles(compiled));
}
