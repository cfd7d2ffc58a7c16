using System.Data.Common;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Orseis.DependencyInjection;

/// <summary>One <c>AddOrseis</c> or <c>AddKeyedOrseis</c>: what its <see cref="Database"/> is made of, and how it is made.</summary>
/// <param name="key">The service key; null for the unkeyed database.</param>
/// <param name="configuration">The configuration section; null when none was given.</param>
/// <param name="factory">The provider factory; null when the data source comes from the container.</param>
/// <param name="connectionString">
/// The connection string given in code; null to read it from <paramref name="configuration"/>.
/// </param>
/// <param name="dataSource">The data source from the container; null when the provider is a factory.</param>
internal sealed class OrseisRegistration(
    string? key, IConfiguration? configuration, DbProviderFactory? factory, string? connectionString, ContainerDataSource? dataSource)
{
    /// <summary>The logger category of findings written to the container's <see cref="ILoggerFactory"/>.</summary>
    public const string LoggerCategory = "Orseis";

    public IConfiguration? Configuration { get; } = configuration;

    public ContainerDataSource? DataSource { get; } = dataSource;

    /// <summary>"The Orseis database" or "The Orseis database 'reports'", for messages.</summary>
    private string Described => key is null ? "The Orseis database" : $"The Orseis database '{key}'";

    /// <summary>
    /// Builds the database: the options of its name, the container's logger factory for findings unless a logger was set.
    /// </summary>
    public Database Create(IServiceProvider services)
    {
        OrseisOptions options = services.GetRequiredService<IOptionsFactory<OrseisOptions>>().Create(key ?? Options.DefaultName);
        if (options.Diagnostics.Logger is null && services.GetService<ILoggerFactory>() is { } loggers)
            options.Diagnostics.Logger = loggers.CreateLogger(LoggerCategory);
        try
        {
            if (DataSource is { } source)
                return new Database(source.Resolve(services), options);
            return new Database(factory!, connectionString ?? ConnectionStringFromConfiguration(), options);
        }
        catch (ArgumentException error)
        {
            string where = Configuration is IConfigurationSection section
                ? $" (configuration section '{section.Path}', and the configure callback if any)"
                : "";
            string message = error.ParamName is { } parameter
                ? error.Message.Replace($" (Parameter '{parameter}')", "", StringComparison.Ordinal)
                : error.Message;
            throw new InvalidOperationException($"{Described} has an invalid setting{where}: {message}", error);
        }
    }

    private string ConnectionStringFromConfiguration()
    {
        string key = OrseisConfigurationReader.KeyPath(Configuration!, OrseisConfigurationReader.ConnectionStringKey);
        string? value = Configuration![OrseisConfigurationReader.ConnectionStringKey];
        if (string.IsNullOrWhiteSpace(value))
        {
            throw new InvalidOperationException(
                $"{Described} has no connection string: set {key} in the configuration, or pass one to AddOrseis.");
        }

        return value;
    }
}
