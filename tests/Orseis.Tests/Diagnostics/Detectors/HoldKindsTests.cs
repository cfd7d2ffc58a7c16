using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class HoldKindsTests
{
    [Fact]
    public void The_same_text_gets_the_same_number_and_texts_past_the_sixteenth_share_zero()
    {
        var kinds = new HoldKinds();
        int lookup = kinds.Of("select name from items where id = @id");
        Assert.Equal(1, lookup);
        Assert.Equal(lookup, kinds.Of(string.Concat("select name from items ", "where id = @id"))); // built, not the literal
        Assert.Equal(2, kinds.Of("update items set name = @name where id = @id"));
        for (int i = 3; i <= HoldKinds.Max; i++)
            Assert.Equal(i, kinds.Of("select " + i));
        Assert.Equal(0, kinds.Of("select 17"));
        Assert.Equal(lookup, kinds.Of("select name from items where id = @id"));
    }
}
