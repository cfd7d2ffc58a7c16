using System.Globalization;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;
using Orseis.Diagnostics;

namespace Orseis.DependencyInjection;

/// <summary>
/// Reads <see cref="OrseisOptions"/> from a configuration section, by hand rather than with the reflection binder, so
/// that a mistyped key or an unreadable value is an error naming the key and saying what it accepts. The connection
/// string is read by <see cref="OrseisRegistration"/>; here it is only checked for.
/// </summary>
/// <param name="optionsName">The options name this reader configures.</param>
/// <param name="configuration">The section.</param>
/// <param name="dataSourceName">The type of the container's data source the database uses (which has its own connection
/// string); null when the provider is a factory and the section must hold the connection string.</param>
internal sealed class OrseisConfigurationReader(string optionsName, IConfiguration configuration, string? dataSourceName)
    : IConfigureNamedOptions<OrseisOptions>
{
    public const string ConnectionStringKey = "ConnectionString";

    private const string TimeSpanHint = "a time span such as 00:00:30 (hh:mm:ss)";

    private static readonly string[] TopKeys =
    [
        ConnectionStringKey, "Mode", "CommandTimeout", "ReuseWaitTimeout", "ScopeIdleWindow", "PoolName", "NullKeepsDefault",
        "Diagnostics", "Retry",
    ];

    private static readonly string[] RetryKeys = ["Enabled", "MaxRetries", "Budget", "BaseDelay", "MaxDelay"];

    private static readonly string[] DiagnosticsKeys =
    [
        "Detectors", "CaptureCommandText", "ChurnThreshold", "ChurnGap", "SlowOpenFactor", "SlowOpenFloor", "QueueWaitFloor",
        "HeldTooLongThreshold", "ThreadPoolDelayThreshold", "FindingInterval", "FindingsKept", "ProviderPoolCounts",
        "RepeatedStatementThreshold", "RepeatedStatementGap",
    ];

    public void Configure(OrseisOptions options) => Configure(Options.DefaultName, options);

    public void Configure(string? name, OrseisOptions options)
    {
        if (!string.Equals(name ?? Options.DefaultName, optionsName, StringComparison.Ordinal))
            return;
        ArgumentNullException.ThrowIfNull(options);
        Read(configuration, options);
    }

    /// <summary>
    /// The full name of <paramref name="key"/> under <paramref name="section"/> (<c>Orseis:Mode</c>), as the user would look for it.
    /// </summary>
    public static string KeyPath(IConfiguration section, string key) =>
        section is IConfigurationSection { Path.Length: > 0 } named ? ConfigurationPath.Combine(named.Path, key) : key;

    private void Read(IConfiguration section, OrseisOptions options)
    {
        foreach (IConfigurationSection child in section.GetChildren())
        {
            if (!TopKeys.Contains(child.Key, StringComparer.OrdinalIgnoreCase))
                throw Unknown(child, TopKeys);
        }

        if (section.GetSection(ConnectionStringKey).Value is { Length: > 0 } && dataSourceName is not null)
        {
            throw new InvalidOperationException(
                $"{KeyPath(section, ConnectionStringKey)} is set, but this Orseis database uses the {dataSourceName} " +
                "from the container, which has its own connection string. " +
                "Remove the key, or register the database with a DbProviderFactory instead.");
        }

        if (dataSourceName is null && string.IsNullOrWhiteSpace(section[ConnectionStringKey]))
        {
            throw new InvalidOperationException(
                $"{KeyPath(section, ConnectionStringKey)} is missing: an Orseis database registered with a DbProviderFactory " +
                "and a configuration section reads its connection string there.");
        }

        if (Value(section, "Mode") is { } mode)
            options.Mode = EnumName<ExecutionMode>(section, "Mode", mode);
        if (Value(section, "CommandTimeout") is { } commandTimeout)
            options.CommandTimeout = Time(section, "CommandTimeout", commandTimeout, infinite: true);
        if (Value(section, "ReuseWaitTimeout") is { } reuseWait)
            options.ReuseWaitTimeout = Time(section, "ReuseWaitTimeout", reuseWait, infinite: true);
        if (Value(section, "ScopeIdleWindow") is { } idleWindow)
            options.ScopeIdleWindow = Time(section, "ScopeIdleWindow", idleWindow, infinite: false);
        if (Value(section, "PoolName") is { } poolName)
            options.PoolName = poolName;
        if (Value(section, "NullKeepsDefault") is { } nullKeepsDefault)
            options.NullKeepsDefault = Boolean(section, "NullKeepsDefault", nullKeepsDefault);

        IConfigurationSection diagnostics = section.GetSection("Diagnostics");
        foreach (IConfigurationSection child in diagnostics.GetChildren())
        {
            if (!DiagnosticsKeys.Contains(child.Key, StringComparer.OrdinalIgnoreCase))
                throw Unknown(child, DiagnosticsKeys);
        }

        ReadDiagnostics(diagnostics, options.Diagnostics);

        IConfigurationSection retry = section.GetSection("Retry");
        foreach (IConfigurationSection child in retry.GetChildren())
        {
            if (!RetryKeys.Contains(child.Key, StringComparer.OrdinalIgnoreCase))
                throw Unknown(child, RetryKeys);
        }

        ReadRetry(retry, options.Retry);
    }

    private static void ReadRetry(IConfigurationSection section, OrseisRetryOptions r)
    {
        if (Value(section, "Enabled") is { } enabled)
            r.Enabled = Boolean(section, "Enabled", enabled);
        if (Value(section, "MaxRetries") is { } maxRetries)
            r.MaxRetries = Integer(section, "MaxRetries", maxRetries);
        if (Value(section, "Budget") is { } budget)
            r.Budget = Time(section, "Budget", budget, infinite: false);
        if (Value(section, "BaseDelay") is { } baseDelay)
            r.BaseDelay = Time(section, "BaseDelay", baseDelay, infinite: false);
        if (Value(section, "MaxDelay") is { } maxDelay)
            r.MaxDelay = Time(section, "MaxDelay", maxDelay, infinite: false);
    }

    private static void ReadDiagnostics(IConfigurationSection section, DiagnosticsOptions d)
    {
        if (Detectors(section) is { } detectors)
            d.Detectors = detectors;
        if (Value(section, "CaptureCommandText") is { } capture)
            d.CaptureCommandText = Boolean(section, "CaptureCommandText", capture);
        if (Value(section, "ProviderPoolCounts") is { } counts)
            d.ProviderPoolCounts = Boolean(section, "ProviderPoolCounts", counts);

        if (Value(section, "ChurnThreshold") is { } churnThreshold)
            d.ChurnThreshold = Integer(section, "ChurnThreshold", churnThreshold);
        if (Value(section, "ChurnGap") is { } churnGap)
            d.ChurnGap = Time(section, "ChurnGap", churnGap, infinite: false);
        if (Value(section, "RepeatedStatementThreshold") is { } repeatedThreshold)
            d.RepeatedStatementThreshold = Integer(section, "RepeatedStatementThreshold", repeatedThreshold);
        if (Value(section, "RepeatedStatementGap") is { } repeatedGap)
            d.RepeatedStatementGap = Time(section, "RepeatedStatementGap", repeatedGap, infinite: false);
        if (Value(section, "SlowOpenFactor") is { } factor)
        {
            d.SlowOpenFactor = double.TryParse(factor, NumberStyles.Float, CultureInfo.InvariantCulture, out double number)
                ? number
                : throw Invalid(section, "SlowOpenFactor", factor, ["a number such as 10 or 2.5"]);
        }

        if (Value(section, "SlowOpenFloor") is { } slowOpenFloor)
            d.SlowOpenFloor = Time(section, "SlowOpenFloor", slowOpenFloor, infinite: false);
        if (Value(section, "QueueWaitFloor") is { } queueWaitFloor)
            d.QueueWaitFloor = Time(section, "QueueWaitFloor", queueWaitFloor, infinite: false);
        if (Value(section, "HeldTooLongThreshold") is { } heldTooLong)
            d.HeldTooLongThreshold = Time(section, "HeldTooLongThreshold", heldTooLong, infinite: false);
        if (Value(section, "ThreadPoolDelayThreshold") is { } threadPoolDelay)
            d.ThreadPoolDelayThreshold = Time(section, "ThreadPoolDelayThreshold", threadPoolDelay, infinite: false);
        if (Value(section, "FindingInterval") is { } findingInterval)
            d.FindingInterval = Time(section, "FindingInterval", findingInterval, infinite: false);
        if (Value(section, "FindingsKept") is { } kept)
            d.FindingsKept = Integer(section, "FindingsKept", kept);
    }

    /// <summary>The detectors: one value (<c>"Churn, SlowOpen"</c>) or an array of names; null when not set.</summary>
    private static FindingKind? Detectors(IConfigurationSection section)
    {
        IConfigurationSection detectors = section.GetSection("Detectors");
        List<string> names = detectors.GetChildren().Select(c => c.Value ?? "").ToList();
        if (names.Count == 0)
        {
            if (detectors.Value is not { } value || string.IsNullOrWhiteSpace(value))
                return null;
            names.AddRange(value.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries));
        }

        FindingKind kinds = FindingKind.None;
        foreach (string name in names)
        {
            // Names only: Enum.TryParse would take "5" or "128" too, and undefined numbers silently.
            if (Enum.GetNames<FindingKind>().FirstOrDefault(n => string.Equals(n, name.Trim(), StringComparison.OrdinalIgnoreCase))
                is not { } known)
            {
                throw Invalid(
                    section,
                    "Detectors",
                    detectors.Value ?? string.Join(", ", names),
                    [
                        "None",
                        "All",
                        "a comma-separated list of names among " +
                            string.Join(", ", Enum.GetNames<FindingKind>().Where(n => n is not ("None" or "All"))),
                    ]);
            }

            kinds |= Enum.Parse<FindingKind>(known);
        }

        return kinds;
    }

    private static string? Value(IConfiguration section, string key) =>
        section[key] is { } value && !string.IsNullOrWhiteSpace(value) ? value.Trim() : null;

    private static T EnumName<T>(IConfiguration section, string key, string value) where T : struct, Enum =>
        Enum.GetNames<T>().FirstOrDefault(n => string.Equals(n, value, StringComparison.OrdinalIgnoreCase)) is { } known
            ? Enum.Parse<T>(known)
            : throw Invalid(section, key, value, Enum.GetNames<T>());

    private static bool Boolean(IConfiguration section, string key, string value) =>
        bool.TryParse(value, out bool on) ? on : throw Invalid(section, key, value, ["true", "false"]);

    private static int Integer(IConfiguration section, string key, string value) =>
        int.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out int number)
            ? number
            : throw Invalid(section, key, value, ["a whole number"]);

    private static TimeSpan Time(IConfiguration section, string key, string value, bool infinite)
    {
        if (infinite && string.Equals(value, "Infinite", StringComparison.OrdinalIgnoreCase))
            return Timeout.InfiniteTimeSpan;
        if (TimeSpan.TryParse(value, CultureInfo.InvariantCulture, out TimeSpan time))
            return time;
        throw Invalid(section, key, value, infinite ? [TimeSpanHint, "Infinite"] : [TimeSpanHint]);
    }

    /// <summary>An error naming the key, its value (settings, never a connection string) and what it accepts.</summary>
    private static InvalidOperationException Invalid(IConfiguration section, string key, string value, string[] accepted) =>
        new($"{KeyPath(section, key)} has the value '{value}'; use {Or(accepted)}.");

    private static InvalidOperationException Unknown(IConfigurationSection child, string[] known) =>
        new($"{child.Path} is not an Orseis setting; the settings at this level are {string.Join(", ", known)}.");

    private static string Or(string[] choices) => choices.Length switch
    {
        1 => choices[0],
        2 => $"{choices[0]} or {choices[1]}",
        _ => string.Join(", ", choices[..^1]) + ", or " + choices[^1],
    };
}
