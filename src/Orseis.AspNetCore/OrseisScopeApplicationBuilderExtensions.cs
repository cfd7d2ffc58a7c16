using Microsoft.Extensions.DependencyInjection;
using Orseis;

namespace Microsoft.AspNetCore.Builder;

/// <summary>A <see cref="ConnectionScope"/> per request.</summary>
public static class OrseisScopeApplicationBuilderExtensions
{
    /// <summary>
    /// Runs every request that reaches this point of the pipeline inside a <see cref="ConnectionScope"/> of the registered
    /// <see cref="Database"/>: the request's calls share one connection while they come back to back, and the connection
    /// goes back to the pool when the request goes quiet (<see cref="OrseisOptions.ScopeIdleWindow"/>) or ends. Place it
    /// before the endpoints that use the database.
    /// </summary>
    /// <param name="app">The application.</param>
    /// <param name="serviceKey">The key of a keyed database (<c>AddKeyedOrseis</c>); null for the unkeyed one.</param>
    /// <returns>The application, for chaining.</returns>
    /// <exception cref="InvalidOperationException">No such database is registered.</exception>
    public static IApplicationBuilder UseOrseisScopes(this IApplicationBuilder app, string? serviceKey = null)
    {
        ArgumentNullException.ThrowIfNull(app);
        Database database = (serviceKey is null
                ? app.ApplicationServices.GetService<Database>()
                : app.ApplicationServices.GetKeyedService<Database>(serviceKey))
            ?? throw new InvalidOperationException(serviceKey is null
                ? "UseOrseisScopes found no Orseis database: register one with services.AddOrseis(...) first."
                : $"UseOrseisScopes found no Orseis database with the key '{serviceKey}': " +
                  $"register it with services.AddKeyedOrseis(\"{serviceKey}\", ...) first.");
        return app.Use(next => async context =>
        {
            // Begun in this middleware's own frame, above the endpoint: every call the request makes below finds it.
            await using ConnectionScope scope = database.BeginScope();
            await next(context).ConfigureAwait(false);
        });
    }
}
