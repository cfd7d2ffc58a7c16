using System.Collections.Concurrent;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using System.Reflection;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Tells a new physical connection from a pool hit for providers that publish no pool meter, by the server-side
/// identity an open connection exposes: MySQL's thread id (<c>ServerThread</c>, Oracle's MySql.Data), SQL Server's
/// <c>ClientConnectionId</c>. An id not seen before is a new connection. Read by name, once per connection type; the
/// set of ids seen is bounded (cleared past 10 000, which at worst counts a pooled connection once more as new).
/// </summary>
internal sealed class PhysicalConnections
{
    private const int MaxRemembered = 10_000;
    private readonly string _idProperty;
    private readonly ConcurrentDictionary<Type, PropertyInfo?> _properties = new();
    private readonly ConcurrentDictionary<object, byte> _seen = new();

    private PhysicalConnections(string idProperty)
    {
        _idProperty = idProperty;
    }

    /// <summary>
    /// An instance for the provider <paramref name="traits"/> describe (its <see cref="ProviderTraits.ConnectionIdProperty"/>:
    /// the provider's own, so two providers of one system, MySqlConnector and MySql.Data, are never confused), or null
    /// where no connection id is known to be readable.
    /// </summary>
    public static PhysicalConnections? For(ProviderTraits traits) =>
        traits.ConnectionIdProperty is { } name ? new PhysicalConnections(name) : null;

    /// <summary>The instance for the first provider Orseis knows of <paramref name="systemName"/> (tests name systems).</summary>
    public static PhysicalConnections? For(string systemName) => For(ProviderTraits.OfSystem(systemName));

    /// <summary>Whether <paramref name="connection"/> (just opened) is a physical connection this pool had not handed out before.</summary>
    [UnconditionalSuppressMessage("Trimming", "IL2070", Justification =
        "Read by name from the provider's type: a member the trimmer removed reads as null, and what it gives" +
        " is left out, as for a provider without it.")]
    public bool IsNew(DbConnection connection)
    {
        PropertyInfo? property = _properties.GetOrAdd(
            connection.GetType(), static (type, name) => type.GetProperty(name, BindingFlags.Public | BindingFlags.Instance), _idProperty);
        if (property?.GetValue(connection) is not { } id)
            return false;
        if (_seen.Count >= MaxRemembered)
            _seen.Clear();
        return _seen.TryAdd(id, 0);
    }
}
