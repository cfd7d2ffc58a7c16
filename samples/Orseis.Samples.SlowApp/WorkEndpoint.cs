using System.Data.Common;

namespace Orseis.Samples.SlowApp;

/// <summary>
/// <c>GET /work?pauseMs=N</c> and <c>GET /work/{calls}?pauseMs=N</c>: a web-like request that makes <c>calls</c> small
/// sequential queries through <see cref="WorkRepository"/>, each checking the value it gets back, with an optional
/// <c>await Task.Delay(pauseMs)</c> between two calls (slow work that is not the database's). Without <c>calls</c> in the
/// path, the request takes 1..20 calls from a request counter (1, 2, ..., 20, 1, ...), so one URL gives the 1..20 mix.
/// SLOWAPP_UNIT says where the calls get their connection: <c>percall</c> opens one per call, <c>scope</c> runs the request
/// in the ConnectionScope that <c>app.UseOrseisScopes()</c> begins (Program.cs), <c>session</c> opens a Session for the
/// request and makes its calls on it.
/// </summary>
internal sealed class WorkEndpoint(Database db, string unit, SlowAppErrors errors)
{
    /// <summary>Most calls a request may ask for, and the longest pause.</summary>
    public const int MaxCalls = 1000, MaxPauseMs = 10_000;

    private long _requests;
    private long _values;
    private long _calls;
    private long _answered;

    /// <summary>Requests that came in.</summary>
    public long Requests => Interlocked.Read(ref _requests);

    /// <summary>Calls whose value came back right.</summary>
    public long Calls => Interlocked.Read(ref _calls);

    /// <summary>Requests answered 200.</summary>
    public long Answered => Interlocked.Read(ref _answered);

    public async Task<IResult> HandleAsync(int? calls, int pauseMs, CancellationToken cancellationToken)
    {
        long request = Interlocked.Increment(ref _requests);
        int count = calls ?? (int)((request - 1) % 20) + 1;
        if (count is < 1 or > MaxCalls || pauseMs is < 0 or > MaxPauseMs)
            return Results.Text($"calls must be 1..{MaxCalls} and pauseMs 0..{MaxPauseMs}", statusCode: StatusCodes.Status400BadRequest);

        // Values no other request sends: a connection mixed up between two requests would answer another's.
        long first = Interlocked.Add(ref _values, count) - count;
        try
        {
            if (unit == "session")
            {
                await using Session session = await db.OpenSessionAsync(cancellationToken);
                await RunAsync(new WorkRepository(session), first, count, pauseMs, cancellationToken);
            }
            else
            {
                await RunAsync(new WorkRepository(db), first, count, pauseMs, cancellationToken);
            }

            Interlocked.Increment(ref _answered);
            return Results.Text($"{count} calls");
        }
        catch (Exception error) when (error is DbException or OrseisException or WrongAnswerException or OperationCanceledException)
        {
            int status = error is WrongAnswerException ? StatusCodes.Status500InternalServerError : StatusCodes.Status503ServiceUnavailable;
            return Results.Text(errors.Add(error), statusCode: status);
        }
    }

    private async Task RunAsync(WorkRepository repository, long first, int count, int pauseMs, CancellationToken cancellationToken)
    {
        for (int i = 0; i < count; i++)
        {
            if (i > 0 && pauseMs > 0)
                await Task.Delay(pauseMs, cancellationToken);
            long sent = first + i;
            long back = await repository.EchoAsync(sent, cancellationToken);
            if (back != sent)
                throw new WrongAnswerException($"sent {sent}, the server answered {back}");
            Interlocked.Increment(ref _calls);
        }
    }
}

/// <summary>A query answered with another value than the one it sent.</summary>
internal sealed class WrongAnswerException(string message) : Exception(message);
