using System.Data.Common;

namespace Orseis.DependencyInjection;

/// <summary>A registration's data source, taken from the container by its type (and key).</summary>
/// <param name="Name">The data source's type name, for messages.</param>
/// <param name="Resolve">Gets it from the container.</param>
internal sealed record ContainerDataSource(string Name, Func<IServiceProvider, DbDataSource> Resolve);
