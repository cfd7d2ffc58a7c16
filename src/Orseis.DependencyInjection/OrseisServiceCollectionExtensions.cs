using System.Data.Common;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;
using Orseis;
using Orseis.DependencyInjection;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Registers Orseis <see cref="Database"/>s in a service collection: one singleton per registration (disposed with the
/// container), its <see cref="OrseisOptions"/> read from configuration and/or set by a callback, findings written to
/// the container's <c>ILoggerFactory</c> unless a logger was given.
/// </summary>
/// <remarks>
/// <para>
/// Configuration keys, all optional but the connection string where the provider is a factory: <c>ConnectionString</c>,
/// <c>Mode</c> (<c>OpenPerCall</c> or <c>ReuseConnection</c>), <c>CommandTimeout</c> and <c>ReuseWaitTimeout</c>
/// (time spans such as <c>00:00:30</c>, or <c>Infinite</c>), <c>ScopeIdleWindow</c> (a time span),
/// <c>PoolName</c>, and under <c>Diagnostics</c>:
/// <c>Detectors</c> (<c>All</c>, or names such as <c>Churn, SlowOpen</c>), <c>CaptureCommandText</c>,
/// <c>ChurnThreshold</c>, <c>ChurnGap</c>, <c>RepeatedStatementThreshold</c>, <c>RepeatedStatementGap</c>,
/// <c>SlowOpenFactor</c>, <c>SlowOpenFloor</c>, <c>QueueWaitFloor</c>,
/// <c>HeldTooLongThreshold</c>, <c>ThreadPoolDelayThreshold</c>, <c>FindingInterval</c>, <c>FindingsKept</c>,
/// <c>ProviderPoolCounts</c>, and under <c>Retry</c>: <c>Enabled</c>, <c>MaxRetries</c>, <c>Budget</c>, <c>BaseDelay</c>,
/// <c>MaxDelay</c> (see <see cref="OrseisRetryOptions"/>).
/// A key Orseis does not know, or a value it cannot read, is an error naming the key, thrown
/// when the options are first built: when the database is resolved, or at start-up in a host (the options are
/// validated on start).
/// </para>
/// <para>
/// The callback runs after the configuration is read, so it overrides it. The options are named options
/// (<see cref="Microsoft.Extensions.Options.Options.DefaultName"/> for <c>AddOrseis</c>, the key for
/// <c>AddKeyedOrseis</c>), so <c>services.Configure&lt;OrseisOptions&gt;(name, ...)</c> reaches them too.
/// </para>
/// </remarks>
public static class OrseisServiceCollectionExtensions
{
    /// <summary>
    /// Registers a <see cref="Database"/> over a provider factory, with its connection string and options read from
    /// <paramref name="configuration"/>.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="factory">The ADO.NET provider, such as <c>NpgsqlFactory.Instance</c>.</param>
    /// <param name="configuration">
    /// The section with <c>ConnectionString</c> and the options (see the remarks of <see cref="OrseisServiceCollectionExtensions"/>).
    /// </param>
    /// <param name="configure">Sets options after the configuration was read; null for none.</param>
    /// <returns>The service collection, for chaining.</returns>
    /// <exception cref="InvalidOperationException">An Orseis database is already registered without a key.</exception>
    public static IServiceCollection AddOrseis(
        this IServiceCollection services, DbProviderFactory factory, IConfiguration configuration, Action<OrseisOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentNullException.ThrowIfNull(configuration);
        return Register(
            services, key: null, new OrseisRegistration(null, configuration, factory, connectionString: null, dataSource: null), configure);
    }

    /// <summary>Registers a <see cref="Database"/> over a provider factory and a connection string.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="factory">The ADO.NET provider, such as <c>NpgsqlFactory.Instance</c>.</param>
    /// <param name="connectionString">The connection string.</param>
    /// <param name="configure">Sets the options; null for the defaults.</param>
    /// <returns>The service collection, for chaining.</returns>
    /// <exception cref="InvalidOperationException">An Orseis database is already registered without a key.</exception>
    public static IServiceCollection AddOrseis(
        this IServiceCollection services, DbProviderFactory factory, string connectionString, Action<OrseisOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentException.ThrowIfNullOrWhiteSpace(connectionString);
        return Register(
            services, key: null, new OrseisRegistration(null, configuration: null, factory, connectionString, dataSource: null), configure);
    }

    /// <summary>
    /// Registers a <see cref="Database"/> over the <typeparamref name="TDataSource"/> registered in the container (an
    /// <c>NpgsqlDataSource</c>, say), which stays the container's to dispose.
    /// </summary>
    /// <typeparam name="TDataSource">The data source's type, as registered.</typeparam>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">
    /// The section with the options; null for none. It has no <c>ConnectionString</c>: the data source has its own.
    /// </param>
    /// <param name="configure">Sets options after the configuration was read; null for none.</param>
    /// <returns>The service collection, for chaining.</returns>
    /// <exception cref="InvalidOperationException">An Orseis database is already registered without a key.</exception>
    public static IServiceCollection AddOrseis<TDataSource>(
        this IServiceCollection services, IConfiguration? configuration = null, Action<OrseisOptions>? configure = null)
        where TDataSource : DbDataSource =>
        Register(
            services,
            key: null,
            new OrseisRegistration(null, configuration, factory: null, connectionString: null, DataSourceFrom<TDataSource>(key: null)),
            configure);

    /// <summary>
    /// Registers a <see cref="Database"/> under <paramref name="serviceKey"/> (resolved as
    /// <c>[FromKeyedServices("reports")] Database</c>) over a provider factory, with its connection string and options
    /// read from <paramref name="configuration"/>.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="serviceKey">The key; also the name of its <see cref="OrseisOptions"/>.</param>
    /// <param name="factory">The ADO.NET provider.</param>
    /// <param name="configuration">The section with <c>ConnectionString</c> and the options.</param>
    /// <param name="configure">Sets options after the configuration was read; null for none.</param>
    /// <returns>The service collection, for chaining.</returns>
    /// <exception cref="InvalidOperationException">An Orseis database is already registered under this key.</exception>
    public static IServiceCollection AddKeyedOrseis(
        this IServiceCollection services,
        string serviceKey,
        DbProviderFactory factory,
        IConfiguration configuration,
        Action<OrseisOptions>? configure = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(serviceKey);
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentNullException.ThrowIfNull(configuration);
        return Register(
            services,
            serviceKey,
            new OrseisRegistration(serviceKey, configuration, factory, connectionString: null, dataSource: null),
            configure);
    }

    /// <summary>
    /// Registers a <see cref="Database"/> under <paramref name="serviceKey"/> over a provider factory and a connection string.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="serviceKey">The key; also the name of its <see cref="OrseisOptions"/>.</param>
    /// <param name="factory">The ADO.NET provider.</param>
    /// <param name="connectionString">The connection string.</param>
    /// <param name="configure">Sets the options; null for the defaults.</param>
    /// <returns>The service collection, for chaining.</returns>
    /// <exception cref="InvalidOperationException">An Orseis database is already registered under this key.</exception>
    public static IServiceCollection AddKeyedOrseis(
        this IServiceCollection services,
        string serviceKey,
        DbProviderFactory factory,
        string connectionString,
        Action<OrseisOptions>? configure = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(serviceKey);
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentException.ThrowIfNullOrWhiteSpace(connectionString);
        return Register(
            services,
            serviceKey,
            new OrseisRegistration(serviceKey, configuration: null, factory, connectionString, dataSource: null),
            configure);
    }

    /// <summary>
    /// Registers a <see cref="Database"/> under <paramref name="serviceKey"/> over a <typeparamref name="TDataSource"/>
    /// from the container: the one registered under the same key if there is one (as
    /// <c>AddNpgsqlDataSource(..., serviceKey: "reports")</c> registers it), else the one registered without a key.
    /// </summary>
    /// <typeparam name="TDataSource">The data source's type, as registered.</typeparam>
    /// <param name="services">The service collection.</param>
    /// <param name="serviceKey">The key; also the name of its <see cref="OrseisOptions"/>.</param>
    /// <param name="configuration">
    /// The section with the options; null for none. It has no <c>ConnectionString</c>: the data source has its own.
    /// </param>
    /// <param name="configure">Sets options after the configuration was read; null for none.</param>
    /// <returns>The service collection, for chaining.</returns>
    /// <exception cref="InvalidOperationException">An Orseis database is already registered under this key.</exception>
    public static IServiceCollection AddKeyedOrseis<TDataSource>(
        this IServiceCollection services, string serviceKey, IConfiguration? configuration = null, Action<OrseisOptions>? configure = null)
        where TDataSource : DbDataSource
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(serviceKey);
        return Register(
            services,
            serviceKey,
            new OrseisRegistration(
                serviceKey, configuration, factory: null, connectionString: null, DataSourceFrom<TDataSource>(serviceKey)),
            configure);
    }

    private static IServiceCollection Register(
        IServiceCollection services, string? key, OrseisRegistration registration, Action<OrseisOptions>? configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        foreach (ServiceDescriptor existing in services)
        {
            if (existing.ServiceType == typeof(Database) && Equals(existing.ServiceKey, key))
            {
                throw new InvalidOperationException(key is null
                    ? "An Orseis database is already registered without a key. Register each further database with " +
                        "AddKeyedOrseis(\"name\", ...) and resolve it with [FromKeyedServices(\"name\")]."
                    : $"An Orseis database is already registered under the key '{key}'; each key names one database.");
            }
        }

        string name = key ?? Options.Options.DefaultName;
        OptionsBuilder<OrseisOptions> options = services.AddOptions<OrseisOptions>(name);
        if (registration.Configuration is { } configuration)
        {
            services.AddSingleton<IConfigureOptions<OrseisOptions>>(
                new OrseisConfigurationReader(name, configuration, registration.DataSource?.Name));
        }

        if (configure is not null)
            options.Configure(configure);
        options.ValidateOnStart();

        if (key is null)
            services.AddSingleton(registration.Create);
        else
            services.AddKeyedSingleton(key, (provider, _) => registration.Create(provider));
        return services;
    }

    private static ContainerDataSource DataSourceFrom<TDataSource>(string? key) where TDataSource : DbDataSource =>
        new(typeof(TDataSource).Name, provider =>
        {
            if (key is not null && provider is IKeyedServiceProvider keyed
                && keyed.GetKeyedService(typeof(TDataSource), key) is TDataSource byKey)
            {
                return byKey;
            }

            return provider.GetService<TDataSource>() ?? throw new InvalidOperationException(
                $"The Orseis database{(key is null ? "" : $" '{key}'")} uses the {typeof(TDataSource).Name} from the container, " +
                $"but none is registered{(key is null ? "" : $" under the key '{key}' or without a key")}. " +
                "Register it (for Npgsql: services.AddNpgsqlDataSource(...)), " +
                "or give AddOrseis a DbProviderFactory and a connection string.");
        });
}
