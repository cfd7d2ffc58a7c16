using Microsoft.Extensions.DependencyInjection;

namespace Orseis.DependencyInjection;

/// <summary>
/// A service scope with a <see cref="ConnectionScope"/> begun beside it (from
/// <see cref="OrseisScopeExtensions.CreateOrseisScope"/>): disposing it ends the connection scope, giving its parked
/// connection back to the pool, then the service scope.
/// </summary>
public sealed class OrseisServiceScope : IServiceScope, IAsyncDisposable
{
    private readonly AsyncServiceScope _services;

    internal OrseisServiceScope(AsyncServiceScope services, ConnectionScope connections)
    {
        _services = services;
        Connections = connections;
    }

    /// <summary>The scope's services.</summary>
    public IServiceProvider ServiceProvider => _services.ServiceProvider;

    /// <summary>The connection scope begun for the unit of work.</summary>
    public ConnectionScope Connections { get; }

    /// <summary>Ends the connection scope, then the service scope.</summary>
    public void Dispose()
    {
        try
        {
            Connections.Dispose();
        }
        finally
        {
            _services.Dispose();
        }
    }

    /// <summary>Ends the connection scope, then the service scope.</summary>
    /// <returns>A task that completes when both ended.</returns>
    public async ValueTask DisposeAsync()
    {
        try
        {
            await Connections.DisposeAsync().ConfigureAwait(false);
        }
        finally
        {
            await _services.DisposeAsync().ConfigureAwait(false);
        }
    }
}
