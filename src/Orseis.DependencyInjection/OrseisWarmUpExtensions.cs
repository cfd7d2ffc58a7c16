using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orseis;
using Orseis.DependencyInjection;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>A pool warm-up before a host takes traffic, and a health check, for databases registered with <c>AddOrseis</c>.</summary>
public static class OrseisWarmUpExtensions
{
    /// <summary>
    /// Warms the registered database's pool as the host starts (an <see cref="IHostedService"/> that finishes its
    /// <see cref="Database.WarmUpAsync"/> in <c>StartAsync</c>, before the web server takes requests), logging what it did
    /// to the <c>Orseis.WarmUp</c> category.
    /// </summary>
    /// <param name="services">The service collection, where <c>AddOrseis</c> (or <c>AddKeyedOrseis</c> with <paramref name="serviceKey"/>)
    /// registered the database.</param>
    /// <param name="configure">Sets the count, the deadline and whether a failure stops the host; null for the defaults
    /// (10 connections, 30 s, failures logged).</param>
    /// <param name="serviceKey">The key of a keyed database; null for the unkeyed one.</param>
    /// <returns>The service collection, for chaining.</returns>
    /// <exception cref="ArgumentOutOfRangeException">The count is below 1, or the deadline is not positive.</exception>
    public static IServiceCollection AddOrseisWarmUp(
        this IServiceCollection services, Action<OrseisWarmUpOptions>? configure = null, string? serviceKey = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        var options = new OrseisWarmUpOptions();
        configure?.Invoke(options);
        if (options.Connections < 1)
        {
            throw new ArgumentOutOfRangeException(
                nameof(configure), options.Connections, "OrseisWarmUpOptions.Connections must be at least 1.");
        }

        if (options.Deadline <= TimeSpan.Zero)
            throw new ArgumentOutOfRangeException(nameof(configure), options.Deadline, "OrseisWarmUpOptions.Deadline must be positive.");
        services.AddSingleton<IHostedService>(provider => new OrseisWarmUpService(
            Resolve(provider, serviceKey), options, provider.GetService<ILoggerFactory>()));
        return services;
    }

    /// <summary>Creates an <see cref="OrseisHealthCheck"/> of the registered database, for <c>AddHealthChecks().Add(...)</c>.</summary>
    /// <param name="provider">The service provider.</param>
    /// <param name="serviceKey">The key of a keyed database; null for the unkeyed one.</param>
    /// <returns>The health check.</returns>
    public static OrseisHealthCheck CreateOrseisHealthCheck(this IServiceProvider provider, string? serviceKey = null) =>
        new(Resolve(provider ?? throw new ArgumentNullException(nameof(provider)), serviceKey));

    private static Database Resolve(IServiceProvider provider, string? serviceKey) =>
        serviceKey is null ? provider.GetRequiredService<Database>() : provider.GetRequiredKeyedService<Database>(serviceKey);
}
