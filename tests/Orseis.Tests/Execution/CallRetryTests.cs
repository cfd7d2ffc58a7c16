using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Net.Sockets;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// Opt-in retries of opens that failed to connect (a refused socket, as a server restarting gives), through a real
/// SQLite data source that refuses the first opens: with retries on the call succeeds after as many opens as it took,
/// each retry counted on the meter; the attempts and the budget bound it; the caller's token stops the waits; with
/// retries off nothing changes; a failure that is not safe to retry is thrown after one open.
/// </summary>
public sealed class CallRetryTests : IAsyncDisposable
{
    private readonly SqliteFile _file = new();
    private readonly TwinRecordingDataSource _source;
    private int _refusals;

    public CallRetryTests()
    {
        _source = new TwinRecordingDataSource(_file.ConnectionString);
    }

    public ValueTask DisposeAsync()
    {
        _file.Dispose();
        return default;
    }

    /// <summary>The next <paramref name="times"/> opens are refused.</summary>
    private void Refuse(int times)
    {
        _refusals = times;
        _source.OpenFailure = () =>
        {
            if (Interlocked.Decrement(ref _refusals) == 0)
                _source.OpenFailure = null;
            return new InvalidOperationException("Failed to connect", new SocketException((int)SocketError.ConnectionRefused));
        };
    }

    private Database Open(string pool, Action<OrseisRetryOptions>? retry = null)
    {
        var options = new OrseisOptions { PoolName = pool };
        options.Retry.Enabled = true;
        options.Retry.BaseDelay = TimeSpan.FromMilliseconds(1);
        options.Retry.MaxDelay = TimeSpan.FromMilliseconds(5);
        retry?.Invoke(options.Retry);
        return new Database(_source, options);
    }

    private int Opens(bool async) => _source.Count(async ? "OpenAsync" : "Open");

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Refused_opens_are_retried_and_the_call_succeeds_each_retry_counted(bool async)
    {
        string pool = "retry-open-" + async;
        using var counted = new RetryCounter(pool);
        await using Database db = Open(pool);
        Refuse(3);

        long answer = async ? await db.ScalarAsync<long>("select 7") : db.Scalar<long>("select 7");

        Assert.Equal(7, answer);
        Assert.Equal(4, Opens(async));
        Assert.Equal(3, counted.Count(OrseisRetry.OpenFailed));
        Assert.Equal(0, db.GetPoolReport().InUse);
    }

    [Fact]
    public async Task Retries_stop_after_MaxRetries_with_the_last_error()
    {
        await using Database db = Open("retry-max", r => r.MaxRetries = 2);
        Refuse(100);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => db.ScalarAsync<long>("select 1"));

        Assert.IsType<SocketException>(error.InnerException);
        Assert.Equal(3, Opens(async: true));
    }

    [Fact]
    public async Task No_retry_starts_once_the_budget_is_spent()
    {
        await using Database db = Open("retry-budget", r =>
        {
            r.MaxRetries = 100;
            r.Budget = TimeSpan.FromMilliseconds(300);
            r.BaseDelay = TimeSpan.FromMilliseconds(50);
            r.MaxDelay = TimeSpan.FromMilliseconds(50);
        });
        Refuse(10_000);
        var watch = Stopwatch.StartNew();

        await Assert.ThrowsAsync<InvalidOperationException>(() => db.ScalarAsync<long>("select 1"));

        // The budget stopped it, not the 100 attempts allowed, and on time: no attempt started after 300 ms. At least one
        // retry ran; how many fit in 300 ms depends on the machine (a loaded CI run fitted only two attempts), while the
        // elapsed time's lower bound shows the budget, not an early stop, ended the retries.
        Assert.InRange(Opens(async: true), 2, 60);
        Assert.InRange(watch.Elapsed, TimeSpan.FromMilliseconds(250), TimeSpan.FromSeconds(2));
    }

    [Fact]
    public async Task The_callers_token_stops_the_wait_between_attempts()
    {
        await using Database db = Open("retry-cancel", r =>
        {
            r.BaseDelay = TimeSpan.FromSeconds(10);
            r.MaxDelay = TimeSpan.FromSeconds(10);
            r.Budget = TimeSpan.FromSeconds(60);
        });
        Refuse(100);
        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(200));
        var watch = Stopwatch.StartNew();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.ScalarAsync<long>("select 1", cancellationToken: cancel.Token));

        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(5), $"the wait went on for {watch.Elapsed} after the token was cancelled");
        Assert.Equal(1, Opens(async: true));
    }

    [Fact]
    public async Task With_retries_off_a_refused_open_is_thrown_after_one_open()
    {
        using var counted = new RetryCounter("retry-off");
        await using var db = new Database(_source, new OrseisOptions { PoolName = "retry-off" });
        Refuse(1);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => db.ScalarAsync<long>("select 1"));

        Assert.True(OrseisRetry.IsSafeToRetry(error), "a refused connect is safe to retry by the predicate");
        Assert.Equal(1, Opens(async: true));
        Assert.Equal(0, counted.Total);
        Assert.Equal(1, await db.ScalarAsync<long>("select 1"));
    }

    [Fact]
    public async Task A_failure_that_is_not_safe_to_retry_is_thrown_after_one_attempt()
    {
        await using Database db = Open("retry-not-safe");
        var denied = new InvalidOperationException("Access denied for user");
        _source.OpenFailure = () => denied;

        Assert.Same(denied, await Assert.ThrowsAsync<InvalidOperationException>(() => db.ScalarAsync<long>("select 1")));
        Assert.Equal(1, Opens(async: true));
    }

    [Fact]
    public async Task A_retried_call_shows_each_retry_as_an_event_on_its_one_span()
    {
        var stopped = new List<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = s => s.Name == "Orseis",
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = a =>
            {
                lock (stopped)
                    stopped.Add(a);
            },
        };
        ActivitySource.AddActivityListener(listener);
        await using Database db = Open("retry-span");
        Refuse(2);

        Assert.Equal(5, await db.ScalarAsync<long>("select 5 -- retry-span"));

        Activity span;
        lock (stopped)
            span = Assert.Single(stopped, a => a.Events.Any(e => e.Name == "orseis.retry") && a.GetTagItem("db.client.connection.pool.name") is null or "retry-span");
        ActivityEvent[] retries = span.Events.Where(e => e.Name == "orseis.retry").ToArray();
        Assert.Equal(2, retries.Length);
        Assert.Equal([1, 2], retries.Select(e => (int)e.Tags.Single(t => t.Key == "orseis.retry.attempt").Value!));
        Assert.All(retries, e => Assert.Equal(OrseisRetry.OpenFailed, e.Tags.Single(t => t.Key == "orseis.retry.reason").Value));
        Assert.Equal(ActivityStatusCode.Unset, span.Status);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(101)]
    public void MaxRetries_out_of_range_is_a_clear_error(int max)
    {
        var options = new OrseisOptions();
        options.Retry.MaxRetries = max;
        var error = Assert.Throws<ArgumentException>(() => new Database(_source, options));
        Assert.StartsWith($"OrseisOptions.Retry.MaxRetries must be from 1 to 100, not {max}.", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_MaxDelay_below_the_BaseDelay_is_a_clear_error()
    {
        var options = new OrseisOptions();
        options.Retry.BaseDelay = TimeSpan.FromSeconds(2);
        var error = Assert.Throws<ArgumentException>(() => new Database(_source, options));
        Assert.StartsWith("OrseisOptions.Retry.MaxDelay must be at least BaseDelay (00:00:02)", error.Message, StringComparison.Ordinal);
    }

    /// <summary>The <c>orseis.retries</c> counter of one pool, by reason, through a real <see cref="MeterListener"/>.</summary>
    private sealed class RetryCounter : IDisposable
    {
        private readonly MeterListener _listener = new();
        private readonly Dictionary<string, long> _byReason = [];

        public RetryCounter(string pool)
        {
            _listener.InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == "Orseis" && instrument.Name == "orseis.retries")
                    l.EnableMeasurementEvents(instrument);
            };
            _listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
            {
                string? p = null, reason = null;
                foreach (KeyValuePair<string, object?> tag in tags)
                {
                    if (tag.Key == "db.client.connection.pool.name")
                        p = tag.Value as string;
                    else if (tag.Key == "orseis.retry.reason")
                        reason = tag.Value as string;
                }

                if (p == pool && reason is not null)
                {
                    lock (_byReason)
                        _byReason[reason] = _byReason.GetValueOrDefault(reason) + value;
                }
            });
            _listener.Start();
        }

        public long Count(string reason)
        {
            lock (_byReason)
                return _byReason.GetValueOrDefault(reason);
        }

        public long Total
        {
            get
            {
                lock (_byReason)
                    return _byReason.Values.Sum();
            }
        }

        public void Dispose() => _listener.Dispose();
    }
}
