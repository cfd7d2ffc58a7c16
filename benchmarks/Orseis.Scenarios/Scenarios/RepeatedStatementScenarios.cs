using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// N+1 loops (a list, then one statement per item) where Orseis knows the unit of work: ASP.NET Core requests under
/// <c>UseOrseisScopes</c> (an in-process app on a loopback port, driven by HttpClient) at 5, 20 and 200 items, async and
/// sync, and workers without a scope; beside them the loads that look alike and must stay silent: an execute-many, a
/// paging loop, one lookup in many concurrent requests, a retried statement.
/// </summary>
internal static class RepeatedStatementScenarios
{
    private const string Cause = "N+1 candidate";

    public static IEnumerable<Scenario> All()
    {
        foreach (int items in new[] { 5, 20, 200 })
        {
            yield return Scenario.Pathology(
                $"nplus1-web-{items}", $"ASP.NET Core + UseOrseisScopes, 4 users for 2 s, each request a list then {items} lookups (async)",
                FindingKind.RepeatedStatement, Cause,
                run => WebAsync(run.Open(), users: 4, TimeSpan.FromSeconds(2), (db, request) => OrdersAsync(db, items)));
        }

        yield return Scenario.Pathology(
            "nplus1-web-sync-20", "ASP.NET Core + UseOrseisScopes, 1 user for 2 s, each request a list then 20 lookups (sync calls)",
            FindingKind.RepeatedStatement, Cause,
            // One user: sync calls block a pool thread each, and several at once on two cores starve the pool (a true
            // ThreadPoolStarvation finding, not this scenario's subject).
            run => WebAsync(run.Open(), users: 1, TimeSpan.FromSeconds(2), (db, request) =>
            {
                List<long> ids = db.Query<long>($"select seq from seq_1_to_1000 where seq <= {20}");
                foreach (long id in ids)
                    _ = db.QuerySingle<string>($"select concat('item-', seq) from seq_1_to_1000 where seq = {id}");
                return Task.CompletedTask;
            }));

        yield return Scenario.Pathology(
            "nplus1-worker-session-sync", "a worker without a scope, a Session per message every 100 ms, a list then 20 lookups (sync), 2.5 s",
            FindingKind.RepeatedStatement, Cause, run =>
            {
                Database db = run.Open();
                return Task.Run(() =>
                {
                    DateTime end = DateTime.UtcNow.AddSeconds(2.5);
                    while (DateTime.UtcNow < end)
                    {
                        using (Session session = db.OpenSession())
                        {
                            List<long> ids = session.Query<long>($"select seq from seq_1_to_1000 where seq <= {20}");
                            foreach (long id in ids)
                                _ = session.QuerySingle<string>($"select concat('item-', seq) from seq_1_to_1000 where seq = {id}");
                        }

                        Thread.Sleep(100);
                    }
                });
            });

        // Open per call without a scope: the loop is also churn (an open per lookup), and both are named.
        yield return new Scenario(
            "nplus1-worker-async", "a worker without a scope, open per call, a message every 100 ms: a list then 20 lookups (async), 2.5 s",
            new Dictionary<FindingKind, string> { [FindingKind.RepeatedStatement] = Cause, [FindingKind.Churn] = "back to back" },
            async run =>
            {
                Database db = run.Open();
                DateTime end = DateTime.UtcNow.AddSeconds(2.5);
                while (DateTime.UtcNow < end)
                {
                    await OrdersAsync(db, 20);
                    await Task.Delay(100);
                }
            });

        yield return Scenario.Pathology(
            "cache-candidate-web", "ASP.NET Core + UseOrseisScopes, 4 users for 2 s, each request the same lookup 20 times with the same argument",
            FindingKind.RepeatedStatement, "Cache candidate",
            run => WebAsync(run.Open(), users: 4, TimeSpan.FromSeconds(2), async (db, request) =>
            {
                string currency = request.Request.Path.HasValue ? "EUR" : "USD"; // a value, not a constant the compiler folds in
                for (int i = 0; i < 20; i++)
                    _ = await db.QuerySingleAsync<string>($"select concat('rate-', {currency})");
            }));

        yield return Scenario.CleanOne(
            "batched-insert-web", "ASP.NET Core + UseOrseisScopes, 4 users for 2 s, each request one execute-many of 200 rows",
            async run =>
            {
                Database db = run.Open();
                await db.ExecuteAsync("create table if not exists nplus1_batch (id bigint auto_increment primary key, name varchar(40) not null)");
                await db.ExecuteAsync("truncate table nplus1_batch");
                object[] rows = [.. Enumerable.Range(0, 200).Select(i => new { name = "row-" + i })];
                await WebAsync(db, users: 4, TimeSpan.FromSeconds(2), async (web, request) =>
                    await web.ExecuteAsync("insert into nplus1_batch (name) values (@name)", rows));
            });

        yield return Scenario.CleanOne(
            "paging-loop-web", "ASP.NET Core + UseOrseisScopes, 4 users for 2 s, each request reads 1000 rows in 20 pages (keyset and offset)",
            run => WebAsync(run.Open(), users: 4, TimeSpan.FromSeconds(2), async (db, request) =>
            {
                bool keyset = Random.Shared.Next(2) == 0;
                long last = 0;
                for (int page = 0; page < 20; page++)
                {
                    List<long> rows = keyset
                        ? await db.QueryAsync<long>($"select seq from seq_1_to_1000 where seq > {last} order by seq limit {50}")
                        : await db.QueryAsync<long>($"select seq from seq_1_to_1000 order by seq limit {50} offset {page * 50}");
                    last = rows[^1];
                }
            }));

        yield return Scenario.CleanOne(
            "concurrent-identical-web", "ASP.NET Core + UseOrseisScopes, 32 users for 2 s, each request the same one lookup",
            run => WebAsync(run.Open(), users: 32, TimeSpan.FromSeconds(2), async (db, request) =>
                _ = await db.QuerySingleAsync<string>($"select concat('item-', seq) from seq_1_to_1000 where seq = {7}")));

        yield return Scenario.CleanOne(
            "retry-transient-web", "ASP.NET Core + UseOrseisScopes, 4 users for 2 s, each request one read that fails 3 times (server error) and is retried",
            run => WebAsync(run.Open(), users: 4, TimeSpan.FromSeconds(2), async (db, request) =>
            {
                for (int attempt = 1; ; attempt++)
                {
                    try
                    {
                        // Fails with "Subquery returns more than 1 row" until the fourth attempt: a transient failure, retried.
                        _ = await db.QuerySingleAsync<long>(
                            $"select seq from seq_1_to_1000 where seq = {7} and (case when {attempt} < 4 then (select 1 union select 2) else 1 end) = 1");
                        return;
                    }
                    catch (MySqlConnector.MySqlException) when (attempt < 10)
                    {
                        await Task.Delay(2);
                    }
                }
            }));
    }

    /// <summary>The N+1: a list of ids, then one lookup per id.</summary>
    private static async Task OrdersAsync(Database db, int items)
    {
        List<long> ids = await db.QueryAsync<long>($"select seq from seq_1_to_1000 where seq <= {items}");
        foreach (long id in ids)
            _ = await db.QuerySingleAsync<string>($"select concat('item-', seq) from seq_1_to_1000 where seq = {id}");
    }

    /// <summary>
    /// An ASP.NET Core app on a free loopback port with <c>UseOrseisScopes</c> over <paramref name="db"/> and one endpoint
    /// running <paramref name="handler"/>; <paramref name="users"/> HttpClient callers request it back to back for
    /// <paramref name="duration"/>, each answer checked.
    /// </summary>
    private static async Task WebAsync(Database db, int users, TimeSpan duration, Func<Database, HttpContext, Task> handler)
    {
        // A web host's usual setting on a small machine: the app, Kestrel and the HttpClient callers share two cores, and
        // without it the thread pool's slow start starves them beside the CPU hog (a true ThreadPoolStarvation finding of
        // the host, not of the statements these scenarios are about).
        ThreadPool.GetMinThreads(out int workers, out int io);
        ThreadPool.SetMinThreads(Math.Max(workers, 16), Math.Max(io, 16));
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0));
        builder.Services.AddSingleton(db);
        await using WebApplication app = builder.Build();
        app.UseOrseisScopes();
        app.MapGet("/work", async context =>
        {
            await handler(db, context);
            await context.Response.WriteAsync("ok");
        });
        await app.StartAsync();
        try
        {
            using var client = new HttpClient { BaseAddress = new Uri(app.Urls.First()) };
            await ScenarioRun.ForAsync(users, duration, async _ =>
            {
                using HttpResponseMessage response = await client.GetAsync(new Uri("/work", UriKind.Relative));
                response.EnsureSuccessStatusCode();
            });
        }
        finally
        {
            await app.StopAsync();
        }
    }
}
