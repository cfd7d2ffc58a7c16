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

    [Fact]
    public void The_kind_found_last_is_only_a_hint_texts_in_turn_keep_their_own_numbers()
    {
        var kinds = new HoldKinds();
        string[] texts = ["select a from t where id = @id", "select b from t where id = @id", "update t set a = @a where id = @id"];
        for (int round = 0; round < 3; round++)
        {
            for (int i = 0; i < texts.Length; i++)
            {
                Assert.Equal(i + 1, kinds.Of(texts[i]));
                Assert.Equal(i + 1, kinds.Of(texts[i])); // the hint's own text, at once
                Assert.Equal(i + 1, kinds.Of(new string(texts[i].AsSpan()))); // equal text, another string: not by reference
            }
        }

        Assert.Equal(4, kinds.Of("select 4"));
        Assert.Equal(1, kinds.Of(texts[0]));
    }
}
