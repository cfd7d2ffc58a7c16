using System.Collections.Concurrent;
using System.Data.Common;
using MySqlConnector;
using Orseis.Diagnostics;

namespace Orseis.WebStudy;

/// <summary>What <c>/report</c> says about one endpoint: its requests and its database's pool report counts.</summary>
internal sealed record EndpointReport(
    string Key, long Answered, long Failed, long Opens, long Commands, long ScopeReuses, double? ParkedMs, Dictionary<string, long> Errors);

/// <summary>
/// The app: <c>GET /{shape}/{strategy}</c> for each shape (<see cref="Shape"/>) and each way of getting connections,
/// every one on a database of its own (keyed, <c>AddKeyedOrseis</c>, its own MySqlConnector pool):
/// <c>percall</c> opens a connection per statement, <c>session</c> opens a <see cref="Session"/> for the request and makes
/// its statements on it, <c>scope</c> runs the request in the <see cref="ConnectionScope"/> that
/// <c>UseOrseisScopes</c> begins and makes the same calls as <c>percall</c>. Settings come from the environment:
/// ORSEIS_MYSQL (the server), ASPNETCORE_URLS (where to listen: the command gives a free loopback port) and
/// WEBSTUDY_DETECTORS (<c>all</c> turns every Orseis detector on, which also times parked connections; default none).
/// </summary>
internal static class WebStudyApp
{
    public static async Task<int> RunAsync(string[] args)
    {
        string connectionString = Environment.GetEnvironmentVariable("ORSEIS_MYSQL") is { Length: > 0 } cs
            ? cs.TrimEnd(';')
            : throw new ArgumentException("Set ORSEIS_MYSQL to a MariaDB connection string (scripts/mariadb-start.sh prints one).");

        FindingKind detectors = Environment.GetEnvironmentVariable("WEBSTUDY_DETECTORS") == "all" ? FindingKind.All : FindingKind.None;
        WebApplicationBuilder builder = WebApplication.CreateBuilder(args);
        builder.Logging.ClearProviders();
        foreach (Shape shape in Shape.All)
        {
            foreach (string strategy in Shape.Strategies)
            {
                string key = shape.Key(strategy);
                builder.Services.AddKeyedOrseis(
                    key, MySqlConnectorFactory.Instance,
                    $"{connectionString};Maximum Pool Size={shape.MaxPoolSize};Application Name=webstudy-{key}",
                    options => options.Diagnostics.Detectors = detectors);
            }
        }

        WebApplication app = builder.Build();
        await ItemRepository.CreateAsync(app.Services.GetRequiredKeyedService<Database>(Shape.Burst.Key("percall")));

        // A ConnectionScope per request, for the scope endpoints only (the others are the same app without it).
        foreach (Shape shape in Shape.All)
        {
            string path = shape.Path("scope");
            app.UseWhen(context => context.Request.Path == path, branch => branch.UseOrseisScopes(shape.Key("scope")));
        }

        app.MapGet("/health", () => "ok");
        var counters = new ConcurrentDictionary<string, Counters>();
        foreach (Shape shape in Shape.All)
        {
            foreach (string strategy in Shape.Strategies)
            {
                Database db = app.Services.GetRequiredKeyedService<Database>(shape.Key(strategy));
                Counters counted = counters.GetOrAdd(shape.Key(strategy), _ => new Counters());
                app.MapGet(shape.Path(strategy), (CancellationToken aborted) => HandleAsync(shape, strategy, db, counted, aborted));
            }
        }

        app.MapGet("/report", () => Results.Json(counters.OrderBy(c => c.Key).Select(c =>
        {
            PoolReport pool = app.Services.GetRequiredKeyedService<Database>(c.Key).GetPoolReport();
            return new EndpointReport(
                c.Key, Interlocked.Read(ref c.Value.Answered), Interlocked.Read(ref c.Value.Failed), pool.Opens, pool.Commands,
                pool.ScopeReuses, pool.ParkedTime?.TotalMilliseconds, new Dictionary<string, long>(c.Value.Errors));
        })));

        await app.RunAsync();
        return 0;
    }

    private static async Task<IResult> HandleAsync(Shape shape, string strategy, Database db, Counters counters, CancellationToken cancellationToken)
    {
        int first = Random.Shared.Next(ItemRepository.Count);
        try
        {
            if (strategy == "session")
            {
                // The session holds its connection from here to the end of the request, across the await too.
                await using Session session = await db.OpenSessionAsync(cancellationToken);
                await RunAsync(new ItemRepository(session), shape, first, cancellationToken);
            }
            else
            {
                await RunAsync(new ItemRepository(db), shape, first, cancellationToken);
            }

            Interlocked.Increment(ref counters.Answered);
            return Results.Text("ok");
        }
        catch (Exception error) when (error is DbException or OrseisException or InvalidDataException or OperationCanceledException)
        {
            Interlocked.Increment(ref counters.Failed);
            counters.Errors.AddOrUpdate(error.GetType().Name, 1, (_, n) => n + 1);
            return Results.Text(error.GetType().Name + ": " + error.Message, statusCode: StatusCodes.Status503ServiceUnavailable);
        }
    }

    private static async Task RunAsync(ItemRepository items, Shape shape, int first, CancellationToken cancellationToken)
    {
        for (int i = 0; i < shape.Statements; i++)
        {
            if (i > 0 && shape.DelayMs > 0)
                await Task.Delay(shape.DelayMs, cancellationToken);
            int id = ((first + i) % ItemRepository.Count) + 1;
            string? name = await items.NameAsync(id, cancellationToken);
            if (name != ItemRepository.NameOf(id))
                throw new InvalidDataException($"row {id} read back as '{name}'");
        }
    }

    /// <summary>One endpoint's requests.</summary>
    private sealed class Counters
    {
        public long Answered;
        public long Failed;

        public ConcurrentDictionary<string, long> Errors { get; } = new();
    }
}
