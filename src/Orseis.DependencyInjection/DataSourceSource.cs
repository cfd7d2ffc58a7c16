using System.Data.Common;

namespace Orseis.DependencyInjection;

/// <summary>Where a registration's data source comes from: the container, as a type of data source.</summary>
/// <param name="Name">The data source's type name, for messages.</param>
/// <param name="Resolve">Gets it from the container.</param>
internal sealed record DataSourceSource(string Name, Func<IServiceProvider, DbDataSource> Resolve);
