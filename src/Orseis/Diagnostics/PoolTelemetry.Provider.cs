namespace Orseis.Diagnostics;

/// <summary>What the pool's report says of the provider's own pool data.</summary>
internal sealed partial class PoolTelemetry
{
    /// <summary>
    /// What Orseis can and cannot see of the provider's pool (<see cref="ProviderTraits.PoolVisibility"/>), set by
    /// the pool's <see cref="PoolContext"/>: told by the provider, not by its system name, which MySqlConnector
    /// and MySql.Data share.
    /// </summary>
    public string ProviderVisibility { get; init; } = ProviderTraits.Other.PoolVisibility;
}
