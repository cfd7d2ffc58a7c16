using System.Diagnostics;
using System.Diagnostics.Metrics;
using Orseis.Diagnostics;
using Polly;
using Polly.Retry;

namespace Orseis.Execution;

/// <summary>
/// A database's retries (<see cref="OrseisRetryOptions"/>), built once when it is created: Polly's retry strategy, asked
/// only after a call's first attempt failed in a way <see cref="OrseisRetry.ReasonToRetry"/> calls safe to run again
/// (a call that succeeds never enters it). Its delays double from the base up to the most, with jitter, and never end
/// past the call's budget; each retry is counted (<c>orseis.retries</c>) and added to the call's span as an event.
/// </summary>
internal sealed class CallRetries
{
    /// <summary>Retries, by reason: what a dashboard reads to see how often calls were run again.</summary>
    private static readonly Counter<long> Retries = OrseisMetrics.Meter.CreateCounter<long>(
        "orseis.retries", "{retry}", "Calls Orseis ran again after a failure safe to retry, tagged with orseis.retry.reason.");

    private readonly TimeSpan _baseDelay;
    private readonly TimeSpan _maxDelay;

    public CallRetries(OrseisRetryOptions options)
    {
        Budget = options.Budget;
        _baseDelay = options.BaseDelay;
        _maxDelay = options.MaxDelay;
        Pipeline = new ResiliencePipelineBuilder()
            .AddRetry(new RetryStrategyOptions
            {
                MaxRetryAttempts = options.MaxRetries,
                ShouldHandle = static args => new ValueTask<bool>(ShouldRetry(args.Outcome.Exception, args.Context)),
                DelayGenerator = args => new ValueTask<TimeSpan?>(Delay(args.AttemptNumber, args.Context)),
                OnRetry = static args =>
                {
                    Retried(args.Context, args.AttemptNumber, args.RetryDelay, args.Outcome.Exception);
                    return default;
                },
            })
            .Build();
    }

    /// <summary>The time from a call's first failure after which no retry starts.</summary>
    public TimeSpan Budget { get; }

    /// <summary>The retry strategy the attempts after the first run in.</summary>
    public ResiliencePipeline Pipeline { get; }

    /// <summary>
    /// Whether the call whose first attempt failed with <paramref name="error"/> is run again: safe to retry, outside an
    /// ambient transaction, not cancelled. Its budget starts now, however long the first attempt ran.
    /// </summary>
    public static bool MayRetryFirst(Exception error, CancellationToken cancellationToken) =>
        !cancellationToken.IsCancellationRequested &&
        System.Transactions.Transaction.Current is null &&
        OrseisRetry.ReasonToRetry(error) is not null;

    /// <summary>
    /// Whether the call that failed again with <paramref name="error"/>, first at <paramref name="firstFailed"/>, is run
    /// again: <see cref="MayRetryFirst"/> and within its budget.
    /// </summary>
    public bool MayRetry(Exception error, long firstFailed, CancellationToken cancellationToken) =>
        Stopwatch.GetElapsedTime(firstFailed) < Budget && MayRetryFirst(error, cancellationToken);

    /// <summary>A context for the retries of one call, from Polly's pool; give it back with <see cref="ResilienceContextPool"/>.</summary>
    public static ResilienceContext Context(RetriedCall call, CancellationToken cancellationToken)
    {
        ResilienceContext context = ResilienceContextPool.Shared.Get(cancellationToken);
        context.Properties.Set(RetriedCall.Key, call);
        return context;
    }

    /// <summary>
    /// Whether the unit of work that failed with <paramref name="error"/>, first at <paramref name="firstFailed"/>, is run
    /// again: <see cref="UnitReason"/> has a reason, within the budget, not cancelled.
    /// </summary>
    public bool MayRetryUnit(Exception error, long firstFailed, bool commitSent, CancellationToken cancellationToken) =>
        !cancellationToken.IsCancellationRequested &&
        Stopwatch.GetElapsedTime(firstFailed) < Budget &&
        UnitReason(error, commitSent) is not null;

    /// <summary>
    /// Why a unit of work that failed with <paramref name="error"/> may run again; null when it may not. Before its
    /// commit was sent: the server rolled the transaction back for a transient reason, or its connection broke (the work
    /// is lost with it), or an open failed. Once the commit was sent, only when the commit says nothing was committed.
    /// </summary>
    public static string? UnitReason(Exception error, bool commitSent) => error switch
    {
        TransactionRolledBackException { IsTransient: true } => OrseisRetry.TransactionRolledBack,
        ConnectionBrokenException { StatementMayHaveRun: false } => OrseisRetry.TransactionConnectionBroken,
        ConnectionBrokenException { InTransaction: true } when !commitSent => OrseisRetry.TransactionConnectionBroken,
        _ when commitSent => null,
        _ => OrseisRetry.ReasonToRetry(error) == OrseisRetry.OpenFailed ? OrseisRetry.OpenFailed : null,
    };

    private static bool ShouldRetry(Exception? error, ResilienceContext context)
    {
        if (error is null || !context.Properties.TryGetValue(RetriedCall.Key, out RetriedCall? call))
            return false;
        return call.Unit
            ? call.Retries.MayRetryUnit(error, call.FirstFailed, call.CommitSent, context.CancellationToken)
            : call.Retries.MayRetry(error, call.FirstFailed, context.CancellationToken);
    }

    /// <summary>
    /// The delay before retry <paramref name="attempt"/> (0 for the first): doubled per retry, jittered, within the budget.
    /// </summary>
    private TimeSpan? Delay(int attempt, ResilienceContext context)
    {
        double doubled = _baseDelay.TotalMilliseconds * Math.Pow(2, Math.Min(attempt, 30));
        double ms = Math.Min(doubled, _maxDelay.TotalMilliseconds) * (0.5 + (Random.Shared.NextDouble() / 2));
        if (context.Properties.TryGetValue(RetriedCall.Key, out RetriedCall? call))
            ms = Math.Min(ms, Math.Max(0, (Budget - Stopwatch.GetElapsedTime(call.FirstFailed)).TotalMilliseconds));
        return TimeSpan.FromMilliseconds(ms);
    }

    private static void Retried(ResilienceContext context, int attempt, TimeSpan delay, Exception? error)
    {
        if (!context.Properties.TryGetValue(RetriedCall.Key, out RetriedCall? call) || error is null)
            return;
        string reason = (call.Unit ? UnitReason(error, call.CommitSent) : OrseisRetry.ReasonToRetry(error)) ?? "unknown";
        KeyValuePair<string, object?>[] pool = call.Pool.Tags;
        Retries.Add(1, pool[0], pool[1], new KeyValuePair<string, object?>("orseis.retry.reason", reason));
        call.Pool.Retried(reason);
        call.Span?.AddEvent(new ActivityEvent("orseis.retry", tags: new ActivityTagsCollection
        {
            ["orseis.retry.attempt"] = attempt + 1,
            ["orseis.retry.reason"] = reason,
            ["orseis.retry.delay"] = delay.TotalSeconds,
            ["exception.type"] = error.GetType().FullName,
            ["exception.message"] = error.Message,
        }));
    }
}

/// <summary>One call or unit of work being retried: what the strategy's callbacks read, allocated only once it is retried.</summary>
/// <param name="retries">The database's retries.</param>
/// <param name="span">The call's span, when traced; for a unit of work, the caller's current activity.</param>
/// <param name="pool">The pool's telemetry: its tags, and its FrequentRetries detector.</param>
/// <param name="unit">A unit of work (<see cref="Database.InTransactionAsync{T}"/>), not one call.</param>
internal sealed class RetriedCall(
    CallRetries retries, Activity? span, PoolTelemetry pool, bool unit = false)
{
    /// <summary>
    /// Where a retried call is kept in Polly's context. Here rather than in <see cref="CallRetries"/>: a static field of a
    /// Polly struct makes the runtime load Polly.Core with the type that holds it, and <see cref="CallRetries"/> is loaded
    /// when <see cref="OrseisOptions"/>' validation is compiled, at every database's creation, retries on or off (issue 44).
    /// </summary>
    public static readonly ResiliencePropertyKey<RetriedCall> Key = new("Orseis.RetriedCall");

    private long _firstFailed;

    public CallRetries Retries { get; } = retries;

    /// <summary>
    /// When the first attempt failed (<see cref="Stopwatch.GetTimestamp"/>), read first when the strategy asks whether to
    /// run it again: the budget counts from here, not from the call's start.
    /// </summary>
    public long FirstFailed => _firstFailed != 0 ? _firstFailed : _firstFailed = Stopwatch.GetTimestamp();

    public Activity? Span { get; } = span;

    public PoolTelemetry Pool { get; } = pool;

    public bool Unit { get; } = unit;

    /// <summary>A unit of work's attempt has sent its commit: from then on only "nothing was committed" is retried.</summary>
    public bool CommitSent { get; set; }
}
