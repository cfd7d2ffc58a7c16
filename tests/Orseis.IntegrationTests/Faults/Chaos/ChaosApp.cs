using System.Collections.Concurrent;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Orseis.IntegrationTests.Faults.Chaos;

/// <summary>
/// A small ASP.NET Core app on Kestrel (loopback, a free port) over one Orseis <see cref="Database"/>:
/// <c>GET /read</c> reads ten rows and checks every value (a wrong one answers 500 and is counted), <c>POST /write</c>
/// inserts one row carrying a key of its own. A failed call answers 503; its exception's type is counted.
/// </summary>
internal sealed class ChaosApp : IAsyncDisposable
{
    private readonly WebApplication _app;
    private int _wrong;
    private int _writesAnswered;
    private int _readsAnswered;
    private int _readsFailed;
    private int _writesFailed;

    private ChaosApp(WebApplication app, string url)
    {
        _app = app;
        Url = url;
    }

    public string Url { get; }

    /// <summary>Reads that returned rows other than the table holds.</summary>
    public int Wrong => Volatile.Read(ref _wrong);

    /// <summary>Writes the app answered 200.</summary>
    public int WritesAnswered => Volatile.Read(ref _writesAnswered);

    /// <summary>Reads the app answered 200 (right rows).</summary>
    public int ReadsAnswered => Volatile.Read(ref _readsAnswered);

    /// <summary>Reads whose call threw (answered 503).</summary>
    public int ReadsFailed => Volatile.Read(ref _readsFailed);

    /// <summary>Writes whose call threw (answered 503).</summary>
    public int WritesFailed => Volatile.Read(ref _writesFailed);

    /// <summary>The first 40 failed reads: how long after the call began each threw, and its message's start.</summary>
    public ConcurrentQueue<string> FailedReads { get; } = new();

    /// <summary>Failed calls by endpoint and exception type.</summary>
    public ConcurrentDictionary<string, int> Failures { get; } = new();

    public static async Task<ChaosApp> StartAsync(Database db, string readSql, string writeSql)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        WebApplication app = builder.Build();
        ChaosApp? chaos = null;

        app.MapGet("/read", async () =>
        {
            int a = Random.Shared.Next(1, 991);
            long began = System.Diagnostics.Stopwatch.GetTimestamp();
            try
            {
                List<Item> rows = (await db.QueryAsync<Item>(readSql, new { a })).ToList();
                bool right = rows.Count == 10 && rows.All(r => r.Id >= a && r.Id <= a + 9 && r.V == (r.Id * 7) + 3);
                if (right)
                {
                    Interlocked.Increment(ref chaos!._readsAnswered);
                    return Results.Ok(rows.Count);
                }

                Interlocked.Increment(ref chaos!._wrong);
                return Results.StatusCode(500);
            }
            catch (Exception e)
            {
                if (Interlocked.Increment(ref chaos!._readsFailed) <= 40)
                {
                    double ms = System.Diagnostics.Stopwatch.GetElapsedTime(began).TotalMilliseconds;
                    string text = e.Message.Length > 120 ? e.Message[..120] : e.Message;
                    chaos.FailedReads.Enqueue(string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{ms:0} ms: {e.GetType().Name}: {text}"));
                }

                chaos.Failures.AddOrUpdate("read " + e.GetType().Name, 1, (_, n) => n + 1);
                return Results.StatusCode(503);
            }
        });
        app.MapPost("/write", async () =>
        {
            try
            {
                await db.ExecuteAsync(writeSql, new { req = Guid.NewGuid().ToString("N") });
                Interlocked.Increment(ref chaos!._writesAnswered);
                return Results.Ok();
            }
            catch (Exception e)
            {
                Interlocked.Increment(ref chaos!._writesFailed);
                chaos.Failures.AddOrUpdate("write " + e.GetType().Name, 1, (_, n) => n + 1);
                return Results.StatusCode(503);
            }
        });

        await app.StartAsync();
        string url = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        chaos = new ChaosApp(app, url);
        return chaos;
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }

    /// <summary>A row of the read table.</summary>
    public sealed class Item
    {
        public int Id { get; set; }

        public long V { get; set; }
    }
}
