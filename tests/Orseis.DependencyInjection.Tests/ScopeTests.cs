using System.Net.Http.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Data.Sqlite;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.DependencyInjection.Tests;

/// <summary>
/// Connection scopes where applications begin them: per request in a real ASP.NET Core app on Kestrel (loopback HTTP),
/// and per container scope in a worker, over SQLite. Calls go through a repository whose async methods have their own
/// frames, as application code does.
/// </summary>
public sealed class ScopeTests
{
    /// <summary>A repository as applications write them: each call in a method of its own.</summary>
    public sealed class Items(Database db)
    {
        public async Task<long> CountAsync() => await db.ScalarAsync<long>("select count(*) from items");

        public async Task<string?> NameAsync(long id) => await db.ScalarAsync<string>("select name from items where id = @id", new { id });
    }

    private static void Seed(SqliteFile file)
    {
        using Database setup = file.Open();
        setup.Execute("create table items (id integer primary key, name text not null)");
        for (int i = 1; i <= 5; i++)
            setup.Execute("insert into items (id, name) values (@i, @name)", new { i, name = "item " + i });
    }

    private static async Task<WebApplication> StartAppAsync(SqliteFile file, bool scopes)
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddOrseis(SqliteFactory.Instance, file.ConnectionString, o => o.Diagnostics.Detectors = FindingKind.All);
        builder.Services.AddScoped<Items>();
        WebApplication app = builder.Build();
        if (scopes)
            app.UseOrseisScopes();
        app.MapGet("/items", async (Items items) =>
        {
            long count = await items.CountAsync();
            var names = new List<string?>();
            for (long id = 1; id <= count; id++)
                names.Add(await items.NameAsync(id));
            return names;
        });
        await app.StartAsync();
        return app;
    }

    private static Uri Address(WebApplication app) =>
        new(app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.First());

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Each_request_opens_once_with_UseOrseisScopes_and_once_per_call_without(bool scopes)
    {
        using var file = new SqliteFile();
        Seed(file);
        await using WebApplication app = await StartAppAsync(file, scopes);
        using var client = new HttpClient { BaseAddress = Address(app) };

        // Twenty requests, ten at a time: each makes six calls.
        for (int wave = 0; wave < 2; wave++)
        {
            List<string?>?[] answers = await Task.WhenAll(Enumerable.Range(0, 10).Select(_ => client.GetFromJsonAsync<List<string?>>("/items")));
            Assert.All(answers, a => Assert.Equal(["item 1", "item 2", "item 3", "item 4", "item 5"], a));
        }

        PoolReport report = app.Services.GetRequiredService<Database>().GetPoolReport();
        Assert.Equal(120, report.Commands);
        Assert.Equal(scopes ? 20 : 120, report.Opens);
        Assert.Equal(scopes ? 100 : 0, report.ScopeReuses);
        Assert.Equal(0, report.ParkedConnections); // every request's scope ended with it
        Assert.Equal(0, report.InUse);
        await app.StopAsync();
    }

    [Fact]
    public async Task A_worker_s_unit_of_work_in_CreateOrseisScope_opens_once()
    {
        using var file = new SqliteFile();
        Seed(file);
        var services = new ServiceCollection();
        services.AddOrseis(SqliteFactory.Instance, file.ConnectionString);
        services.AddScoped<Items>();
        await using ServiceProvider container = services.BuildServiceProvider();
        IServiceScopeFactory scopes = container.GetRequiredService<IServiceScopeFactory>();

        for (int job = 0; job < 3; job++)
        {
            await using OrseisServiceScope scope = scopes.CreateOrseisScope();
            Items items = scope.ServiceProvider.GetRequiredService<Items>();
            for (long id = 1; id <= 5; id++)
                Assert.Equal("item " + id, await items.NameAsync(id));
            Assert.Equal(4, scope.Connections.ReusedCalls);
        }

        PoolReport report = container.GetRequiredService<Database>().GetPoolReport();
        Assert.Equal(3, report.Opens);
        Assert.Equal(0, report.ParkedConnections);
    }

    [Fact]
    public void A_scope_for_a_database_not_registered_names_the_key()
    {
        var services = new ServiceCollection();
        using ServiceProvider container = services.BuildServiceProvider();
        var error = Assert.ThrowsAny<InvalidOperationException>(
            () => container.GetRequiredService<IServiceScopeFactory>().CreateOrseisScope("reports"));
        Assert.Contains("'reports'", error.Message, StringComparison.Ordinal);
        Assert.Contains("AddKeyedOrseis", error.Message, StringComparison.Ordinal);

        WebApplication app = WebApplication.CreateBuilder().Build();
        var refused = Assert.Throws<InvalidOperationException>(() => app.UseOrseisScopes());
        Assert.Contains("AddOrseis", refused.Message, StringComparison.Ordinal);
    }
}
