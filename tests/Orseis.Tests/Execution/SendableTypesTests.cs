using System.Net;
using System.Numerics;
using System.Text;
using System.Text.Json;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// A value of a type the provider does not send is refused before it reaches the provider, naming the parameter and the
/// type and never the value (values here look like secrets); which runtime types each provider sends is a provider fact.
/// </summary>
public sealed class SendableTypesTests
{
    private const string Secret = "s3cret-pw";

    public static TheoryData<string, object> Unsendable => new()
    {
        { "Uri", new Uri($"https://app:{Secret}@example.com/db") },
        { "Version", new Version(1, 2, 3) },
        { "StringBuilder", new StringBuilder(Secret) },
        { "JsonDocument", JsonDocument.Parse($"{{\"password\":\"{Secret}\"}}") },
        { "Exception", new InvalidOperationException(Secret) },
    };

    [Theory]
    [MemberData(nameof(Unsendable))]
    public async Task A_runtime_type_SQLite_does_not_send_is_refused_naming_the_parameter_and_type_not_the_value(string type, object value)
    {
        using var seeded = new SeededDatabase(RunnerKind.OpenPerCall);
        var error = Assert.Throws<ArgumentException>(() => seeded.Runner.Query<int>("select 1 where 1 = @u", new { u = value }));
        var async = await Assert.ThrowsAsync<ArgumentException>(() => seeded.Runner.ScalarAsync<int>("select @u", new { u = value }));

        foreach (ArgumentException e in new[] { error, async })
        {
            Assert.Matches("Parameter '@u' is a ", e.Message);
            Assert.Contains(type, e.Message, StringComparison.Ordinal);
            Assert.DoesNotContain(Secret, e.ToString(), StringComparison.Ordinal);
            Assert.DoesNotContain("1.2.3", e.ToString(), StringComparison.Ordinal);
        }

        Assert.Equal(1, seeded.Runner.Scalar<int>("select 1")); // the connection is still good
    }

    [Fact]
    public void The_runtime_types_SQLite_sends_still_go_through()
    {
        using var seeded = new SeededDatabase(RunnerKind.OpenPerCall);
        var at = new DateTimeOffset(2024, 1, 2, 3, 4, 5, TimeSpan.Zero);
        Assert.Equal("00:00:05", seeded.Runner.Scalar<string>("select @t", new { t = TimeSpan.FromSeconds(5) }));
        Assert.Equal("2024-01-02 03:04:05+00:00", seeded.Runner.Scalar<string>("select @at", new { at }));
        Assert.Equal(3, seeded.Runner.Scalar<long>("select length(@b)", new { b = new byte[] { 1, 2, 3 } }));
        Assert.Equal(36, seeded.Runner.Scalar<long>("select length(@g)", new { g = Guid.NewGuid() }));
    }

    [Fact]
    public void Each_provider_names_the_runtime_types_it_sends()
    {
        Assert.True(ProviderTraits.MySqlConnector.SendsFrameworkType(typeof(StringBuilder)));
        Assert.True(ProviderTraits.MySqlConnector.SendsFrameworkType(typeof(BigInteger)));
        Assert.False(ProviderTraits.MySqlConnector.SendsFrameworkType(typeof(Uri)));
        Assert.False(ProviderTraits.MySqlConnector.SendsFrameworkType(typeof(FileStream))); // only once prepared

        Assert.False(ProviderTraits.MySqlData.SendsFrameworkType(typeof(DateTimeOffset))); // it would send culture text
        Assert.False(ProviderTraits.MySqlData.SendsFrameworkType(typeof(StringBuilder)));
        Assert.True(ProviderTraits.MySqlData.SendsFrameworkType(typeof(TimeSpan)));

        Assert.True(ProviderTraits.Npgsql.SendsFrameworkType(IPAddress.Loopback.GetType()));
        Assert.True(ProviderTraits.Npgsql.SendsFrameworkType(typeof(JsonDocument)));
        Assert.True(ProviderTraits.Npgsql.SendsFrameworkType(typeof(System.Text.Json.Nodes.JsonObject)));
        Assert.False(ProviderTraits.Npgsql.SendsFrameworkType(typeof(Version)));

        Assert.True(ProviderTraits.MicrosoftSqlClient.SendsFrameworkType(typeof(System.Data.SqlTypes.SqlString)));
        Assert.False(ProviderTraits.MicrosoftSqlClient.SendsFrameworkType(typeof(Uri)));
        Assert.True(ProviderTraits.Other.SendsFrameworkType(typeof(Uri))); // unknown provider: not second-guessed
    }
}
