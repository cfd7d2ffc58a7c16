using System.Diagnostics.Tracing;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;
using Orseis.Diagnostics.Replay;

namespace Orseis.Tests.Diagnostics.Replay;

/// <summary>
/// The detectors' facts, recorded in-process through an EventListener on the Facts keyword as a trace records them, and
/// replayed (<see cref="FactReplay"/>): the replay gives the findings the pool's own detectors raised, with the same
/// messages, figures and call sites.
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class FactReplayTests : DiagTest
{
    /// <summary>MySqlConnector's message for a wait for its pool that timed out.</summary>
    private const string PoolWaitMessage = "Connect Timeout expired. All pooled connections are in use.";

    [Fact]
    public void Replayed_churn_is_the_churn_the_pool_found_with_its_call_site()
    {
        using var facts = new FactListener();
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.All & ~FindingKind.ThreadPoolStarvation;
            d.ChurnThreshold = 5;
            d.ChurnGap = TimeSpan.FromMinutes(5);
        });
        for (int i = 0; i < 6; i++)
            db.Execute("select 1");

        ReplayedPool replayed = Replay(db, facts, out IReadOnlyList<PoolFinding> own);

        Assert.Equal([FindingKind.Churn], own.Select(f => f.Kind));
        SameFindings(own, replayed.Findings);
        Assert.Contains(nameof(Replayed_churn_is_the_churn_the_pool_found_with_its_call_site), replayed.Findings[0].Location, StringComparison.Ordinal);
        Assert.Equal(
            FindingKind.All & ~FindingKind.ThreadPoolStarvation & ~FindingKind.RepeatedStatement & ~FindingKind.FrequentRetries,
            replayed.Replayed);
    }

    /// <summary>
    /// A recording that begins during a streak: the process's count reaches the threshold (5) at the fifth call, the
    /// replay's, which starts at the recording, two calls later. The replay names the site the process recorded.
    /// </summary>
    [Fact]
    public void A_recording_begun_mid_streak_names_the_churn_with_the_call_site_the_process_read()
    {
        using Database db = ChurnOnlyPool();
        for (int i = 0; i < 2; i++)
            db.Execute("select 1");
        using var facts = new FactListener();
        for (int i = 0; i < 6; i++)
            db.Execute("select 1");

        ReplayedPool replayed = Replay(db, facts, out _);

        PoolFinding churn = Assert.Single(replayed.Findings);
        Assert.StartsWith("5 connection opens back to back", churn.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(A_recording_begun_mid_streak_names_the_churn_with_the_call_site_the_process_read), churn.Location,
            StringComparison.Ordinal);
    }

    /// <summary>
    /// A recording that begins after the streak passed the threshold (a trace attached to a process churning in a loop):
    /// the process writes the streak's site at its first open of the session, and the replay names it.
    /// </summary>
    [Fact]
    public void A_recording_begun_after_the_streak_passed_the_threshold_still_names_the_call_site()
    {
        using Database db = ChurnOnlyPool();
        for (int i = 0; i < 6; i++)
            db.Execute("select 1");
        Assert.Equal([FindingKind.Churn], db.GetPoolReport().Findings.Select(f => f.Kind));
        using var facts = new FactListener();
        for (int i = 0; i < 6; i++)
            db.Execute("select 1");

        ReplayedPool replayed = Replay(db, facts, out _);

        PoolFinding churn = Assert.Single(replayed.Findings);
        Assert.Contains(nameof(A_recording_begun_after_the_streak_passed_the_threshold_still_names_the_call_site), churn.Location,
            StringComparison.Ordinal);
    }

    [Fact]
    public void Replayed_saturation_and_pool_size_advice_are_what_the_pool_found()
    {
        using var facts = new FactListener();
        (Database db, _) = OpenTest("Max Pool Size=2", d =>
        {
            d.Detectors = FindingKind.Saturation | FindingKind.PoolSize;
            d.QueueWaitFloor = TimeSpan.Zero;
        });
        IReadOnlyList<PoolFinding> own;
        ReplayedPool replayed;
        using (db)
        {
            using (Session a = db.OpenSession())
            using (Session b = db.OpenSession())
            {
                Thread.Sleep(50);
                for (int i = 0; i < 6; i++)
                    db.Execute("select 1");
                Thread.Sleep(50);
            }

            replayed = Replay(db, facts, out own);
            Assert.Equal(db.GetPoolReport().PoolSizeAdvice, replayed.Figures.PoolSizeAdvice);
        }

        // Six callers entered Open with both connections held by the sessions for 100 ms: Saturation (they queued), and
        // PoolSize, as the sessions kept the whole pool busy (the test's data source hands out connections past Max Pool
        // Size, so they did not wait for it); the replay says the same, word for word.
        Assert.True(own.Select(f => f.Kind).SequenceEqual([FindingKind.Saturation, FindingKind.PoolSize]), replayed.Figures.PoolSizeAdvice);
        SameFindings(own, replayed.Findings);
        Assert.Equal(6, replayed.Figures.QueuedOpens);
        Assert.Contains("raise Max Pool Size from 2 to", replayed.Figures.PoolSizeAdvice, StringComparison.Ordinal);
    }

    [Fact]
    public void Replayed_open_failures_give_the_server_unavailable_and_pool_timeout_findings_of_the_process()
    {
        using var facts = new FactListener();
        (Database db, TestDataSource source) = OpenTest("Max Pool Size=1", d => d.Detectors = FindingKind.ServerUnavailable | FindingKind.PoolTimeout);
        IReadOnlyList<PoolFinding> own;
        ReplayedPool replayed;
        using (db)
        {
            source.Failure = () => new InvalidOperationException("The server refused the login.");
            Assert.Throws<InvalidOperationException>(() => db.Execute("select 1"));
            source.Failure = null;
            using (db.OpenSession())
            {
                Thread.Sleep(20);
                source.Failure = () => new InvalidOperationException("Timeout expired.  The timeout period elapsed prior to obtaining a connection from the pool.");
                Assert.Throws<PoolExhaustedException>(() => db.Execute("select 1"));
            }

            replayed = Replay(db, facts, out own);
        }

        Assert.Equal([FindingKind.ServerUnavailable, FindingKind.PoolTimeout], own.Select(f => f.Kind));
        SameFindings(own, replayed.Findings);
        Assert.Contains("(System.InvalidOperationException: The server refused the login.)", replayed.Findings[0].Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// A pool taken whole by one session and two parked scopes, as a trace carries its timeout (the facts written by hand): the
    /// replay tells the caller's story again, every connection taken, 1 held and 2 parked, with the process's figures; its
    /// longest hold too, to the tick. The process writes that hold as ticks / 10,000 ms; read back with
    /// <c>TimeSpan.FromMilliseconds</c>, which truncates ms * 10,000, 200,175 ticks came back as 200,174 and the replayed
    /// figure read 20.017 where the process's read 20.018. The test above failed so in 13 of 1,500 runs in a loop (a hold
    /// whose tick count ends in 5 and comes back a tick short, as about 6 % of tick counts near 20 ms do), 0 of 1,500 since.
    /// </summary>
    [Fact]
    public void A_replayed_pool_timeout_gives_the_held_and_parked_counts_and_the_longest_hold_of_the_process()
    {
        var longest = TimeSpan.FromTicks(200_175);
        ReplayedPool replayed = ReplayTimeout(held: 1, parked: 2, longest);

        PoolFinding timeout = Assert.Single(replayed.Findings);
        PoolExhaustedException caller = PoolExhaustion.Explain(
            new InvalidOperationException(PoolWaitMessage), OpenTimeout.PoolWait, Pool, 3, held: 1, parked: 2, waiting: 1, idle: 0, (longest, null));
        Assert.Equal(FindingKind.PoolTimeout, timeout.Kind);
        Assert.Equal(caller.Message, timeout.Message);
        Assert.Contains("Every connection was taken: 1 held by calls and 2 parked in connection scopes", timeout.Message, StringComparison.Ordinal);
        Assert.Equal(1, timeout.Figures["inUse"]);
        Assert.Equal(2, timeout.Figures["parked"]);
        Assert.Equal(0, timeout.Figures["connecting"]);
        Assert.Equal(longest.TotalMilliseconds, timeout.Figures["longestHeldMs"]);
        Assert.Contains("longestHeldMs=20.018", timeout.FormatFigures(), StringComparison.Ordinal);
    }

    /// <summary>
    /// A trace from before the fact's version 2 has no <c>parked</c> field (the decoder gives null for a field the event does
    /// not carry): the replay reads none parked, and a pool of three held by calls is exhaustion as the process said then.
    /// </summary>
    [Fact]
    public void A_pool_timeout_recorded_before_the_parked_count_replays_with_none_parked()
    {
        ReplayedPool replayed = ReplayTimeout(held: 3, parked: null, TimeSpan.FromSeconds(2));

        PoolFinding timeout = Assert.Single(replayed.Findings);
        Assert.Equal(0, timeout.Figures["parked"]);
        Assert.Equal(3, timeout.Figures["inUse"]);
        Assert.Contains("Every connection was held by callers: the pool is exhausted.", timeout.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("parked", timeout.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// Replays a pool of Max Pool Size 3 (the default options, PoolTimeout and ServerUnavailable on) and one open that timed out
    /// waiting for it, its figures as given; <paramref name="parked"/> null leaves the field out, as a version 1 event has it.
    /// </summary>
    private ReplayedPool ReplayTimeout(int held, int? parked, TimeSpan longest)
    {
        var d = new DiagnosticsOptions();
        var pool = new Dictionary<string, object>
        {
            ["pool"] = Pool, ["instance"] = 1, ["frequency"] = TimeSpan.TicksPerSecond, ["created"] = 1_000L, ["maxPoolSize"] = 3,
            ["connects"] = (int)ConnectCount.ProviderMeter, ["detectors"] = (int)(FindingKind.PoolTimeout | FindingKind.ServerUnavailable),
            ["churnGapMs"] = d.ChurnGap.TotalMilliseconds, ["churnThreshold"] = d.ChurnThreshold,
            ["slowOpenFloorMs"] = d.SlowOpenFloor.TotalMilliseconds, ["slowOpenFactor"] = d.SlowOpenFactor,
            ["queueWaitFloorMs"] = d.QueueWaitFloor.TotalMilliseconds, ["findingIntervalMs"] = d.FindingInterval.TotalMilliseconds,
            ["threadPoolDelayMs"] = d.ThreadPoolDelayThreshold.TotalMilliseconds, ["heldTooLongMs"] = d.HeldTooLongThreshold.TotalMilliseconds,
        };
        var failed = new Dictionary<string, object>
        {
            ["pool"] = Pool, ["instance"] = 1, ["started"] = 5_000_000L, ["inUse"] = held, ["demand"] = held + 1,
            ["physicalConnects"] = 3L, ["createSeconds"] = 0.01, ["async"] = false, ["flow"] = 0L, ["queuedEntries"] = 0L,
            ["firstWave"] = false, ["afterLoss"] = false, ["warmUp"] = false, ["at"] = 15_000_000L, ["timeout"] = (int)OpenTimeout.PoolWait,
            ["cancelled"] = false, ["brokeWhileOpening"] = false, ["errorType"] = "MySqlConnector.MySqlException",
            ["errorMessage"] = PoolWaitMessage, ["exhausted"] = true, ["held"] = held, ["waiting"] = 1, ["connecting"] = 0,
            ["longestHeldMs"] = longest.TotalMilliseconds,
        };
        if (parked is { } n)
            failed["parked"] = n;
        var replay = new FactReplay();
        Assert.True(replay.Add(new RecordedFact(RecordedFact.FirstId, DateTime.UtcNow, name => pool.GetValueOrDefault(name))));
        Assert.True(replay.Add(new RecordedFact(10, DateTime.UtcNow, name => failed.GetValueOrDefault(name))));
        Assert.Equal(0, replay.Orphans);
        return Assert.Single(replay.Finish());
    }

    [Fact]
    public void Replayed_slow_opens_on_a_warm_pool_are_the_slow_server_the_pool_found()
    {
        using var facts = new FactListener();
        (Database db, TestDataSource source) = OpenTest(diagnostics: d => d.Detectors = FindingKind.SlowOpen);
        IReadOnlyList<PoolFinding> own;
        ReplayedPool replayed;
        using (db)
        {
            for (int i = 0; i < 3; i++)
                db.Execute("select 1");
            source.OpenDelay = TimeSpan.FromMilliseconds(260);
            for (int i = 0; i < 5; i++)
                db.Execute("select 1");
            replayed = Replay(db, facts, out own);
        }

        Assert.Equal([FindingKind.SlowOpen], own.Select(f => f.Kind));
        SameFindings(own, replayed.Findings);
    }

    /// <summary>
    /// A session found still held by the scan an acquire makes, and one found at its release: the replay fills a holder
    /// table from the acquire and release facts and reports both as the pool did, with where each was acquired.
    /// </summary>
    [Fact]
    public void Replayed_connections_held_too_long_are_those_the_pool_found_with_where_they_were_acquired()
    {
        using var facts = new FactListener();
        (Database db, _) = OpenTest(diagnostics: d =>
        {
            d.Detectors = FindingKind.HeldTooLong;
            d.HeldTooLongThreshold = TimeSpan.FromMilliseconds(60);
        });
        IReadOnlyList<PoolFinding> own;
        ReplayedPool replayed;
        using (db)
        {
            using (Session leaked = db.OpenSession())
            {
                Thread.Sleep(150);
                db.Execute("select 1"); // its acquire scans the holders: the session has been out too long
            }

            using (Session slow = db.OpenSession())
                Thread.Sleep(150); // found as it goes back

            db.Execute("select 1");
            replayed = Replay(db, facts, out own);
        }

        Assert.Equal([FindingKind.HeldTooLong, FindingKind.HeldTooLong], own.Select(f => f.Kind));
        Assert.Equal([1.0, 0.0], own.Select(f => f.Figures["stillHeld"]));
        SameFindings(own, replayed.Findings);
        Assert.All(replayed.Findings, f => Assert.Contains(
            nameof(Replayed_connections_held_too_long_are_those_the_pool_found_with_where_they_were_acquired), f.Location,
            StringComparison.Ordinal));
    }

    [Fact]
    public void Replayed_lock_conflicts_count_the_busy_database_the_pool_counted()
    {
        using var facts = new FactListener();
        var options = new OrseisOptions { PoolName = Pool, Diagnostics = { Detectors = FindingKind.LockConflicts } };
        IReadOnlyList<PoolFinding> own;
        ReplayedPool replayed;
        // SQLite gives up waiting for another connection's write lock after its Default Timeout: SQLITE_BUSY.
        using (var db = new Database(Microsoft.Data.Sqlite.SqliteFactory.Instance, File.ConnectionString + ";Default Timeout=1", options))
        using (var blocker = new Microsoft.Data.Sqlite.SqliteConnection(File.ConnectionString))
        {
            blocker.Open();
            using (Microsoft.Data.Sqlite.SqliteCommand begin = blocker.CreateCommand())
            {
                begin.CommandText = "begin exclusive";
                begin.ExecuteNonQuery();
            }

            Assert.ThrowsAny<Exception>(() => db.Execute("insert into items (id, name) values (9, 'nine')"));
            replayed = Replay(db, facts, out own);
        }

        PoolFinding mine = Assert.Single(own);
        PoolFinding again = Assert.Single(replayed.Findings);
        Assert.Equal(FindingKind.LockConflicts, again.Kind);
        foreach (string figure in new[] { "deadlocks", "lockWaitTimeouts", "serializationFailures", "busy" })
            Assert.Equal(mine.Figures[figure], again.Figures[figure]);
        Assert.Equal(1, again.Figures["busy"]);
        // The rate per minute divides the count by the time from the pool's creation to the failure. The replay's is the
        // recording's to the last digit: the recorder's clock readings (the pool fact's creation, the failure fact's time).
        RecordedFact pool = facts.Of(Pool).First(f => f.EventId == 7);
        RecordedFact failed = Assert.Single(facts.Of(Pool), f => f.EventId == 13);
        var recorded = new ReplayClock(pool.Long("frequency")) { Now = failed.Long("at") };
        double minutes = Math.Max(recorded.GetElapsedTime(pool.Long("created")).TotalMinutes, 1.0 / 60);
        Assert.Equal(1 / minutes, again.Figures["perMinute"]);
        // The process's detector reads its own clock, a moment after the recorder at each end (it is made after the
        // recorder, and hears the failure after the recorder wrote it): either gap may be the longer one (a thread
        // preempted between the two readings, on a loaded machine for many ms), so the process's rate is the replay's
        // within that moment over a busy wait of a second (Default Timeout=1), not above or below it.
        double processMs = 60_000 / mine.Figures["perMinute"], replayMs = 60_000 / again.Figures["perMinute"];
        Assert.InRange(replayMs - processMs, -250, 250);
        Assert.Contains("the latest a busy database", again.Message, StringComparison.Ordinal);
    }

    /// <summary>An EventListener with every keyword (its default) gets every other event, and no fact.</summary>
    [Fact]
    public void Nothing_is_recorded_unless_a_session_asks_for_the_facts_by_their_keyword()
    {
        using var others = new EventCollector();
        using Database db = Open(diagnostics: d => d.Detectors = FindingKind.All & ~FindingKind.ThreadPoolStarvation);
        db.Execute("select 1");

        Assert.NotEmpty(others.For(Pool));
        Assert.DoesNotContain(others.Events, e => RecordedFact.IsFact(e.EventId));
    }

    private Database ChurnOnlyPool() => Open(diagnostics: d =>
    {
        d.Detectors = FindingKind.Churn;
        d.ChurnThreshold = 5;
        d.ChurnGap = TimeSpan.FromMinutes(5);
    });

    /// <summary>The pool's own findings (a report made now), and what a replay of its recorded facts finds.</summary>
    private ReplayedPool Replay(Database db, FactListener facts, out IReadOnlyList<PoolFinding> own)
    {
        own = db.GetPoolReport().Findings;
        facts.Dispose();
        var replay = new FactReplay();
        foreach (RecordedFact fact in facts.Of(Pool))
            Assert.True(replay.Add(fact));
        Assert.Equal(0, replay.Orphans);
        return Assert.Single(replay.Finish());
    }

    private static void SameFindings(IReadOnlyList<PoolFinding> own, IReadOnlyList<PoolFinding> replayed) =>
        Assert.Equal(own.Select(f => (f.Kind, f.Message, f.FormatFigures(), f.Location)),
            replayed.Select(f => (f.Kind, f.Message, f.FormatFigures(), f.Location)));

    /// <summary>The Orseis EventSource's fact events only, as <c>orseis-trace collect</c> asks for them.</summary>
    private sealed class FactListener : EventListener
    {
        private readonly List<RecordedFact> _facts = [];

        public IReadOnlyList<RecordedFact> Of(string pool)
        {
            lock (_facts)
                return [.. _facts.Where(f => f.Text("pool") == pool)];
        }

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "Orseis")
                EnableEvents(eventSource, EventLevel.Verbose, OrseisEventSource.Keywords.Facts);
        }

        protected override void OnEventWritten(EventWrittenEventArgs e)
        {
            if (!RecordedFact.IsFact(e.EventId) || e.PayloadNames is not { } names || e.Payload is not { } values)
                return;
            var fact = new RecordedFact(e.EventId, e.TimeStamp.ToUniversalTime(), n => names.IndexOf(n) is >= 0 and var i ? values[i] : null);
            lock (_facts)
                _facts.Add(fact);
        }
    }
}
