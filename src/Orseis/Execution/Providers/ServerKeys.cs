namespace Orseis.Execution.Providers;

/// <summary>
/// The connection string keys that name a provider's server and database, first found wins
/// (<see cref="ProviderTraits.ServerKeys"/>, read by <see cref="ProviderInfo.ServerAttributes"/>).
/// </summary>
/// <param name="Host">The keys of the server's host.</param>
/// <param name="Database">The keys of the database.</param>
/// <param name="SplitHost">
/// Takes a host value apart where the provider lets it carry more (a port, a protocol, an instance): the host left and
/// the port it names, if any; null where the value is the host alone.
/// </param>
internal sealed record ServerKeys(string[] Host, string[] Database, Func<string, (string Host, string? Port)>? SplitHost = null);
