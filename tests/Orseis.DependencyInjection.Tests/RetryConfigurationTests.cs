using Microsoft.Data.Sqlite;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Orseis.DependencyInjection.Tests;

/// <summary>The <c>Retry</c> section of <c>AddOrseis</c>' configuration: read into <see cref="OrseisRetryOptions"/>, errors named.</summary>
public sealed class RetryConfigurationTests
{
    private const string Connection = "Data Source=:memory:";

    private static ServiceProvider Provider(params (string Key, string Value)[] pairs)
    {
        IConfiguration configuration = TestConfiguration.From([("Orseis:ConnectionString", Connection), .. pairs]);
        var services = new ServiceCollection();
        services.AddOrseis(SqliteFactory.Instance, configuration.GetSection("Orseis"));
        return services.BuildServiceProvider();
    }

    [Fact]
    public void The_retry_settings_are_read_from_the_section()
    {
        using ServiceProvider provider = Provider(
            ("Orseis:Retry:Enabled", "true"),
            ("Orseis:Retry:MaxRetries", "4"),
            ("Orseis:Retry:Budget", "00:00:03"),
            ("Orseis:Retry:BaseDelay", "00:00:00.020"),
            ("Orseis:Retry:MaxDelay", "00:00:00.500"));

        Assert.NotNull(provider.GetRequiredService<Database>());
        OrseisRetryOptions retry = provider.GetRequiredService<IOptionsMonitor<OrseisOptions>>().Get(Options.DefaultName).Retry;
        Assert.True(retry.Enabled);
        Assert.Equal(4, retry.MaxRetries);
        Assert.Equal(TimeSpan.FromSeconds(3), retry.Budget);
        Assert.Equal(TimeSpan.FromMilliseconds(20), retry.BaseDelay);
        Assert.Equal(TimeSpan.FromMilliseconds(500), retry.MaxDelay);
    }

    [Fact]
    public void Without_a_Retry_section_retries_stay_off()
    {
        using ServiceProvider provider = Provider();
        Assert.NotNull(provider.GetRequiredService<Database>());
        Assert.False(provider.GetRequiredService<IOptionsMonitor<OrseisOptions>>().Get(Options.DefaultName).Retry.Enabled);
    }

    [Fact]
    public void An_unknown_retry_key_is_named_with_the_keys_there_are()
    {
        using ServiceProvider provider = Provider(("Orseis:Retry:Attempts", "3"));
        string error = Assert.Throws<InvalidOperationException>(() => provider.GetRequiredService<Database>()).Message;
        Assert.Equal("Orseis:Retry:Attempts is not an Orseis setting; the settings at this level are Enabled, MaxRetries, Budget, BaseDelay, MaxDelay.", error);
    }

    [Theory]
    [InlineData("Orseis:Retry:Enabled", "yes", "Orseis:Retry:Enabled has the value 'yes'; use true or false.")]
    [InlineData("Orseis:Retry:MaxRetries", "many", "Orseis:Retry:MaxRetries has the value 'many'; use a whole number.")]
    [InlineData("Orseis:Retry:Budget", "5s", "Orseis:Retry:Budget has the value '5s'; use a time span such as 00:00:30 (hh:mm:ss).")]
    public void An_unreadable_retry_value_names_its_key_and_what_it_takes(string key, string value, string expected)
    {
        using ServiceProvider provider = Provider((key, value));
        Assert.Equal(expected, Assert.Throws<InvalidOperationException>(() => provider.GetRequiredService<Database>()).Message);
    }
}
