using Microsoft.Data.Sqlite;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Orseis.Diagnostics;

namespace Orseis.DependencyInjection.Tests;

/// <summary>Bad configuration fails when the database is resolved (or at start-up), with the key and what it accepts.</summary>
public sealed class ConfigurationErrorTests
{
    private const string Connection = "Data Source=:memory:";

    private static string ResolveError(params (string Key, string Value)[] pairs)
    {
        IConfiguration configuration = TestConfiguration.From(pairs);
        var services = new ServiceCollection();
        services.AddOrseis(SqliteFactory.Instance, configuration.GetSection("Orseis"));
        using ServiceProvider provider = services.BuildServiceProvider();
        return Assert.Throws<InvalidOperationException>(() => provider.GetRequiredService<Database>()).Message;
    }

    [Fact]
    public void An_unknown_mode_names_the_key_and_the_modes() =>
        Assert.Equal("Orseis:Mode has the value 'Foo'; use OpenPerCall or ReuseConnection.", ResolveError(("Orseis:ConnectionString", Connection), ("Orseis:Mode", "Foo")));

    [Fact]
    public void NullKeepsDefault_takes_true_or_false() =>
        Assert.Equal(
            "Orseis:NullKeepsDefault has the value 'yes'; use true or false.",
            ResolveError(("Orseis:ConnectionString", Connection), ("Orseis:NullKeepsDefault", "yes")));

    [Fact]
    public void A_number_is_not_a_mode() =>
        Assert.StartsWith("Orseis:Mode has the value '1'", ResolveError(("Orseis:ConnectionString", Connection), ("Orseis:Mode", "1")), StringComparison.Ordinal);

    [Theory]
    [InlineData("Orseis:CommandTimeout", "30s", "Orseis:CommandTimeout has the value '30s'; use a time span such as 00:00:30 (hh:mm:ss) or Infinite.")]
    [InlineData("Orseis:Diagnostics:ChurnGap", "soon", "Orseis:Diagnostics:ChurnGap has the value 'soon'; use a time span such as 00:00:30 (hh:mm:ss).")]
    [InlineData("Orseis:Diagnostics:ChurnThreshold", "many", "Orseis:Diagnostics:ChurnThreshold has the value 'many'; use a whole number.")]
    [InlineData("Orseis:Diagnostics:CaptureCommandText", "yes", "Orseis:Diagnostics:CaptureCommandText has the value 'yes'; use true or false.")]
    [InlineData("Orseis:Diagnostics:ProviderPoolCounts", "on", "Orseis:Diagnostics:ProviderPoolCounts has the value 'on'; use true or false.")]
    [InlineData("Orseis:Diagnostics:SlowOpenFactor", "x", "Orseis:Diagnostics:SlowOpenFactor has the value 'x'; use a number such as 10 or 2.5.")]
    public void An_unreadable_value_names_its_key_and_what_it_takes(string key, string value, string expected) =>
        Assert.Equal(expected, ResolveError(("Orseis:ConnectionString", Connection), (key, value)));

    [Fact]
    public void Unknown_detectors_and_unknown_keys_are_named()
    {
        string detectors = ResolveError(("Orseis:ConnectionString", Connection), ("Orseis:Diagnostics:Detectors", "Churn, Chrun"));
        Assert.StartsWith("Orseis:Diagnostics:Detectors has the value 'Churn, Chrun'; use None, All, or a comma-separated list of names among Churn, SlowOpen,", detectors, StringComparison.Ordinal);

        string typo = ResolveError(("Orseis:ConnectionString", Connection), ("Orseis:Mdoe", "ReuseConnection"));
        Assert.StartsWith("Orseis:Mdoe is not an Orseis setting; the settings at this level are ConnectionString, Mode,", typo, StringComparison.Ordinal);

        string nested = ResolveError(("Orseis:ConnectionString", Connection), ("Orseis:Diagnostics:Detector", "All"));
        Assert.StartsWith("Orseis:Diagnostics:Detector is not an Orseis setting", nested, StringComparison.Ordinal);
    }

    [Fact]
    public void A_missing_connection_string_is_named() =>
        Assert.StartsWith("Orseis:ConnectionString is missing", ResolveError(("Orseis:Mode", "OpenPerCall")), StringComparison.Ordinal);

    [Fact]
    public void A_value_out_of_range_names_the_setting_and_the_section()
    {
        string message = ResolveError(("Orseis:ConnectionString", Connection), ("Orseis:Diagnostics:ChurnThreshold", "1"));
        Assert.Equal(
            "The Orseis database has an invalid setting (configuration section 'Orseis', and the configure callback if any): DiagnosticsOptions.ChurnThreshold must be at least 2, not 1.",
            message);
    }

    [Fact]
    public void A_connection_string_beside_a_data_source_from_the_container_is_refused()
    {
        var services = new ServiceCollection();
        services.AddSingleton(_ => new TrackedDataSource(Connection));
        services.AddKeyedOrseis<TrackedDataSource>("reports", TestConfiguration.From(("Reports:ConnectionString", Connection)).GetSection("Reports"));
        using ServiceProvider provider = services.BuildServiceProvider();
        var error = Assert.Throws<InvalidOperationException>(() => provider.GetRequiredKeyedService<Database>("reports"));
        Assert.StartsWith("Reports:ConnectionString is set, but this Orseis database uses the TrackedDataSource from the container", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Detectors_read_from_an_array_or_a_list_and_the_start_up_validation_reports_bad_values_before_any_resolution()
    {
        IConfiguration configuration = TestConfiguration.From(
            ("Good:ConnectionString", Connection),
            ("Good:Diagnostics:Detectors:0", "Churn"),
            ("Good:Diagnostics:Detectors:1", "poolsize"),
            ("Bad:ConnectionString", Connection),
            ("Bad:Mode", "Sometimes"));
        var services = new ServiceCollection();
        services.AddOrseis(SqliteFactory.Instance, configuration.GetSection("Good"));
        services.AddKeyedOrseis("bad", SqliteFactory.Instance, configuration.GetSection("Bad"));
        using ServiceProvider provider = services.BuildServiceProvider();
        Assert.Equal(FindingKind.Churn | FindingKind.PoolSize, provider.GetRequiredService<IOptionsMonitor<OrseisOptions>>().Get(Options.DefaultName).Diagnostics.Detectors);

        // What a host runs at start-up (ValidateOnStart): the bad key is reported before anything resolves a database.
        var error = Assert.Throws<InvalidOperationException>(() => provider.GetRequiredService<IStartupValidator>().Validate());
        Assert.Equal("Bad:Mode has the value 'Sometimes'; use OpenPerCall or ReuseConnection.", error.Message);
    }
}
