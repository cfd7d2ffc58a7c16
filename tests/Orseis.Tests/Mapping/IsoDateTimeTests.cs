using System.Globalization;
using Orseis.Mapping;

namespace Orseis.Tests.Mapping;

/// <summary>The fast date path gives exactly what DateTime.TryParse gives, and leaves everything else to it.</summary>
public sealed class IsoDateTimeTests
{
    [Theory]
    [InlineData("2014-11-10 08:01:00")]
    [InlineData("2014-11-10 08:01")]
    [InlineData("2014-11-10T08:01:59")]
    [InlineData("2024-02-29 23:59:59.9999999")]
    [InlineData("2024-02-29 23:59:59.1")]
    [InlineData("2024-02-29 23:59:59.123")]
    [InlineData("0001-01-01 00:00:00")]
    [InlineData("9999-12-31 23:59:59.9999999")]
    public void Taken_forms_parse_exactly_as_the_general_parser_does(string text)
    {
        Assert.True(IsoDateTime.TryParse(text, out DateTime fast));
        Assert.True(DateTime.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out DateTime general));
        Assert.Equal(general, fast);
        Assert.Equal(general.Kind, fast.Kind);
        Assert.Equal(general, ValueConverter.ParseDateTime(text));
    }

    [Theory]
    [InlineData("2014-11-10 08:01:00Z")]
    [InlineData("2014-11-10 08:01:00+02:00")]
    [InlineData("2014-11-10")]
    [InlineData("2014-11-10 08:01:00.")]
    [InlineData("2014-11-10 08:01:00.12345678")]
    [InlineData("2023-02-29 10:00:00")]
    [InlineData("2014-13-10 10:00:00")]
    [InlineData("2014-11-10 24:00:00")]
    [InlineData("2014-11-10 08:60:00")]
    [InlineData("0000-01-01 00:00:00")]
    [InlineData(" 2014-11-10 08:01:00")]
    [InlineData("2014/11/10 08:01:00")]
    [InlineData("2014-11-1a 08:01:00")]
    [InlineData("2014-11x10 08:01:00")]
    [InlineData("2014x11-10 08:01:00")]
    [InlineData("2014-11-10 08:01x00")]
    [InlineData("2014-11-10 08:01:0x")]
    [InlineData("10/11/2014 08:01")]
    public void Other_forms_are_left_to_the_general_parser(string text)
    {
        Assert.False(IsoDateTime.TryParse(text, out _));
        bool parsed = DateTime.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out DateTime general);
        if (parsed)
        {
            Assert.Equal(general, ValueConverter.ParseDateTime(text));
            Assert.Equal(general.Kind, ValueConverter.ParseDateTime(text).Kind);
        }
        else
        {
            Assert.ThrowsAny<Exception>(() => ValueConverter.ParseDateTime(text));
        }
    }

    [Fact]
    public void Random_timestamps_written_as_sqlite_writes_them_round_trip_identically()
    {
        var random = new Random(42);
        for (int i = 0; i < 20_000; i++)
        {
            var value = new DateTime(random.NextInt64(DateTime.MinValue.Ticks, DateTime.MaxValue.Ticks), DateTimeKind.Unspecified);
            if (i % 3 == 0)
                value = new DateTime(value.Year, value.Month, value.Day, value.Hour, value.Minute, value.Second, DateTimeKind.Unspecified);
            foreach (string format in new[] { @"yyyy\-MM\-dd HH\:mm\:ss.FFFFFFF", "yyyy-MM-ddTHH:mm:ss.fffffff", "yyyy-MM-dd HH:mm:ss.fff", "yyyy-MM-dd HH:mm" })
            {
                string text = value.ToString(format, CultureInfo.InvariantCulture);
                Assert.True(DateTime.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out DateTime general), text);
                Assert.True(IsoDateTime.TryParse(text, out DateTime fast), text);
                Assert.Equal(general, fast);
            }
        }
    }
}
