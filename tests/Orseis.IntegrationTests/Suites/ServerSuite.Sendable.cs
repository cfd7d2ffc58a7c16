namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// A value of a type the provider does not send never reaches it: refused naming the parameter and its type, never the
/// value (MySqlConnector's own error quotes it, MySql.Data would store its text), whatever path binds it.
/// </summary>
public abstract partial class ServerSuite
{
    private const string LooksSecret = "s3cret-pw";

    protected async Task A_value_the_provider_cannot_send_is_refused_without_quoting_it()
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        object[] values =
        [
            new Uri($"https://app:{LooksSecret}@example.com/db"), new Version(1, 2, 3), new InvalidOperationException(LooksSecret),
            TimeZoneInfo.CreateCustomTimeZone(LooksSecret, TimeSpan.Zero, LooksSecret, LooksSecret),
        ];
        foreach (object value in values)
        {
            string type = value.GetType().Name;
            var call = Assert.Throws<ArgumentException>(() => db.Query<int>("select 1 where 1 = @u", new { u = value }));
            var async = await Assert.ThrowsAsync<ArgumentException>(() => db.ScalarAsync<int>("select @u", new { u = value }));
            var bag = Assert.Throws<ArgumentException>(() => db.Scalar<int>("select @u", new ParameterBag().Add("u", value)));
            var many = Assert.Throws<ArgumentException>(() => db.Execute("select @u", new[] { new { u = value } }));
            foreach (ArgumentException error in new[] { call, async, bag, many })
            {
                Assert.Matches("Parameter '[@:]?u' is a ", error.Message);
                Assert.Contains(type, error.Message, StringComparison.Ordinal);
                Assert.DoesNotContain(LooksSecret, error.ToString(), StringComparison.Ordinal);
                Assert.DoesNotContain("1.2.3", error.ToString(), StringComparison.Ordinal);
            }
        }

        // What every provider sends still goes through, and the pool is unharmed.
        Assert.Equal(1, db.Scalar<long>("select count(*) from (select @t as t) x", new { t = TimeSpan.FromSeconds(5) }));
        Assert.Equal(1, db.Scalar<int>("select 1"));
    }
}
