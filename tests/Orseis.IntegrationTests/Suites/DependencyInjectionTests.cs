using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Npgsql;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>AddOrseis over Npgsql's own data source, registered in the container as an application would.</summary>
public sealed class DependencyInjectionTests
{
    [PostgresFact]
    public async Task A_keyed_database_over_an_npgsql_data_source_from_the_container_runs_and_leaves_the_source_to_the_container()
    {
        string connectionString = new PostgresDialect().ConnectionString;
        IConfiguration configuration = new ConfigurationBuilder()
            .AddInMemoryCollection(new Dictionary<string, string?> { ["Reports:Mode"] = "ReuseConnection", ["Reports:CommandTimeout"] = "00:00:05" })
            .Build();
        var services = new ServiceCollection();
        services.AddKeyedSingleton("reports", (_, _) => NpgsqlDataSource.Create(connectionString));
        services.AddKeyedOrseis<NpgsqlDataSource>("reports", configuration.GetSection("Reports"));

        NpgsqlDataSource source;
        string table = "orseis_di_" + Guid.NewGuid().ToString("N")[..8];
        await using (ServiceProvider provider = services.BuildServiceProvider())
        {
            Database db = provider.GetRequiredKeyedService<Database>("reports");
            source = provider.GetRequiredKeyedService<NpgsqlDataSource>("reports");
            Assert.Equal(ExecutionMode.ReuseConnection, db.Mode);
            await db.ExecuteAsync(Text($"create temp table {table} (id int primary key)"));
            Assert.Equal(3, await db.ExecuteAsync(Text($"insert into {table} (id) values (@id)"), new[] { new { id = 1 }, new { id = 2 }, new { id = 3 } }));
            Assert.Equal(6, await db.ScalarAsync<int>(Text($"select sum(id) from {table}")));
        }

        // The container disposed the data source it created, after the database that used it.
        Assert.Throws<ObjectDisposedException>(() => source.OpenConnection());
    }

    /// <summary>SQL text with a name in it (a plain string, so Orseis does not parameterise the hole).</summary>
    private static string Text(string sql) => sql;
}
