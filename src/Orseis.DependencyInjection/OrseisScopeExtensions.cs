using Orseis;
using Orseis.DependencyInjection;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// <see cref="ConnectionScope"/>s for work done in a container's scope (a message handler, a job of a worker service):
/// the database's calls in that work share one connection while they come back to back.
/// </summary>
public static class OrseisScopeExtensions
{
    /// <summary>
    /// Creates a service scope for one unit of work and begins a <see cref="ConnectionScope"/> on the registered database in
    /// the caller's flow; disposing the result ends both. Resolve the unit of work's services from its
    /// <see cref="IServiceScope.ServiceProvider"/>, and call them from the method that created it (or below it).
    /// </summary>
    /// <param name="scopes">The container's scope factory.</param>
    /// <param name="serviceKey">The key of a keyed database (<c>AddKeyedOrseis</c>); null for the unkeyed one.</param>
    /// <returns>The scope; dispose it where the unit of work ends.</returns>
    /// <exception cref="InvalidOperationException">No such database is registered.</exception>
    /// <example>
    /// <code>
    /// await using OrseisServiceScope scope = scopes.CreateOrseisScope();
    /// await scope.ServiceProvider.GetRequiredService&lt;OrderHandler&gt;().HandleAsync(message);
    /// </code>
    /// </example>
    public static OrseisServiceScope CreateOrseisScope(this IServiceScopeFactory scopes, string? serviceKey = null)
    {
        ArgumentNullException.ThrowIfNull(scopes);
        AsyncServiceScope services = scopes.CreateAsyncScope();
        try
        {
            Database database = (serviceKey is null
                    ? services.ServiceProvider.GetService<Database>()
                    : services.ServiceProvider.GetKeyedService<Database>(serviceKey))
                ?? throw NotRegistered(serviceKey);
            return new OrseisServiceScope(services, database.BeginScope());
        }
        catch
        {
            services.Dispose();
            throw;
        }
    }

    /// <summary>The error for a scope asked of a database the container does not have.</summary>
    internal static InvalidOperationException NotRegistered(string? serviceKey) => serviceKey is null
        ? new InvalidOperationException("No Orseis database is registered: call services.AddOrseis(...) first.")
        : new InvalidOperationException(
            $"No Orseis database with the key '{serviceKey}' is registered: call services.AddKeyedOrseis(\"{serviceKey}\", ...) first.");
}
