using System.Diagnostics;
using System.Globalization;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// A first wave of connects is judged by what it cost the requests it served, once the holds its opens began are back:
/// reported when its connects and opens were slower than the floor and took at least half the requests' time, silent when the work dwarfed them, when they were fast, too few, or served
/// no statement (a warm-up by hand), or when, net of the time the process spent compiling code meanwhile (a fresh
/// process's start-up), the opens were no longer over the floor.
/// </summary>
public sealed class ColdStartsTests
{
    /// <summary>A process that compiles nothing: the waves below are judged on their connects alone.</summary>
    private static readonly Func<TimeSpan> NothingCompiled = static () => TimeSpan.Zero;

    [Fact]
    public void A_fresh_processs_first_burst_of_tiny_requests_over_loopback_is_its_start_up_not_a_cold_start()
    {
        // web-method-per-request on a quiet machine, as the suite measured: 16 loopback connects of ~130 ms in a fresh
        // process, a millisecond of work each; opening was nearly all of the requests' time.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read);
        long at = Wave(fake, waves, callers: 16, connectMs: 130, openMs: 135, compile: (jit, 100)); // 100 of the wave's 135 ms
        Release(fake, waves, at, callers: 16, heldMs: 1);
        Assert.Empty(fake.Log.Kept);

        // The same wave in a process that compiled little meanwhile: the connects waited on the server, not on the JIT.
        fake.Time.Advance(Fake.Ms(1));
        at = Wave(fake, waves, callers: 16, connectMs: 130, openMs: 135, firstConnect: 16, compile: (jit, 20));
        Release(fake, waves, at, callers: 16, heldMs: 1);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.Contains(
            "over the wave's 135 ms the process spent 20 ms compiling code (its JIT), 20 ms of an open's time and 0 ms of a request's work " +
            "on average, and the thread pool ran at most 0 ms late: net of the process's own start-up, the opens took 115 ms, the work 1 ms; " +
            "a tenth of the connecting opens took 135 ms or less, 115 ms of it not the process's start-up (the server's connect about 125 ms).",
            finding.Message, StringComparison.Ordinal);
        Assert.Equal(20, finding.Figures["compileMs"], 3);
        Assert.Equal(135, finding.Figures["waveMs"], 3);
        Assert.Equal(115, finding.Figures["netOpenMs"], 3);
    }

    [Theory]
    [InlineData(0, true)]
    [InlineData(61, true)] // the issue's burst in a process compiling for a third of the wave (its 183 ms): still a cold start
    [InlineData(82, true)] // net 101 ms of open against 100 of work: just over the floor and half
    [InlineData(91, true)] // net 92 ms, but the process compiled for under half of the opens: the server's connect about 137 ms
    [InlineData(92, false)] // the process compiled for more than half of each open: its start-up, not the server
    [InlineData(183, false)] // the process compiled for the whole wave
    public void The_issue_burst_is_named_unless_compiling_explains_half_its_opens(double compileMs, bool reported)
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read);
        long at = Wave(fake, waves, callers: 25, connectMs: 150, openMs: 183, compile: (jit, compileMs));
        Release(fake, waves, at, callers: 25, heldMs: 100);
        Assert.Equal(reported, fake.Findings(FindingKind.SlowOpen).Any());
    }
    [Fact]
    public void Compiling_during_the_first_requests_work_is_start_up_too_not_their_work()
    {
        // A fresh ASP.NET Core app on 150 ms connects, as the suite measured: 8 requests of one 'select 1' each, whose
        // holds (250 ms) were mostly the JIT compiling the statement's path (150 ms of them).
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read);
        long at = Wave(fake, waves, callers: 8, connectMs: 180, openMs: 300, compile: (jit, 100));
        jit.Advance(150);
        Release(fake, waves, at, callers: 8, heldMs: 250);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen)); // 200 ms net of open against 100 of work
        Assert.Equal(150, finding.Figures["heldCompileMs"], 3);
        Assert.Equal(100, finding.Figures["netHeldMs"], 3);

        // The same opens and holds of 260 ms with nothing compiled during them: the server's connect read 250 ms (the middle
        // of 300 ms and 200 net of compiling) against 260 of work, under half.
        var quiet = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var compiledOpens = new CompileClock();
        var quietWaves = new ColdStarts(quiet.Log, ConnectCount.ProviderMeter, compiledOpens.Read);
        at = Wave(quiet, quietWaves, callers: 8, connectMs: 180, openMs: 300, compile: (compiledOpens, 100));
        Release(quiet, quietWaves, at, callers: 8, heldMs: 260);
        Assert.Empty(quiet.Log.Kept);
    }

    [Fact]
    public void Opens_that_ran_while_a_first_waves_opens_were_in_flight_are_its_crowd_not_a_cold_pool_of_their_own()
    {
        // 128 async callers at once in a fresh process: a caller whose first call was done opens again while the wave's
        // last connects complete; the provider's meter counts them during its open (1.1 s each, in a 0.4 s open).
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.ProviderMeter);
        waves.OnFirstWaveOpenStarting(afterLoss: false, fake.Now);
        waves.OnFirstWaveOpenStarting(afterLoss: false, fake.Now);
        OpenStart first = fake.Start(demand: 2);
        fake.Time.Advance(Fake.Ms(700));
        waves.OnFirstWaveOpenCompleted(first, new OpenOutcome(Fake.Ms(700), 1, 690, Queued: false), fake.Now);
        OpenStart again = fake.Start(demand: 2); // the first caller's next call: after the wave's first connect
        fake.Time.Advance(Fake.Ms(400));
        var crowd = new OpenOutcome(Fake.Ms(400), 1, 1100, Queued: false);
        slow.OnOpenCompleted(again, crowd, 0, afterFirstWave: true, TimeSpan.Zero);
        waves.OnFirstWaveOpenCompleted(first, new OpenOutcome(Fake.Ms(1100), 1, 1100, Queued: false), fake.Now);
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));

        // Once the wave's opens are all done and the pool was quiet (a caller found nobody else holding or opening: a new
        // load, not the burst's late callers), a later open that connects slowly is judged open by open again.
        fake.Time.Advance(Fake.Ms(1));
        waves.OnOpenStarting(fake.Start(demand: 1));
        OpenStart later = fake.Start(demand: 3);
        fake.Time.Advance(Fake.Ms(320));
        slow.OnOpenCompleted(later, new OpenOutcome(Fake.Ms(320), 1, 310, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        Assert.StartsWith("Cold pool", Assert.Single(fake.Findings(FindingKind.SlowOpen)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_slow_connect_after_the_wave_lets_the_wave_speak_first_while_its_verdict_waits_for_warm_holds()
    {
        // sync-untried-wave-200-connect125-query15 at load 30 to 60, as the trace measured: the wave closed at its first
        // connect with 111 of the 200 callers; the others, still arriving, connected on the same 125 ms server after the
        // wave's last open, and the first of them (145 ms, 161 ms connects) was reported as a cold pool 140 ms before the
        // wave's verdict (a cold start), which the rate limit then dropped. The wave is judged first, as it stands.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.ProviderMeter);
        long at = Wave(fake, waves, callers: 25, connectMs: 150, openMs: 183);
        for (int i = 0; i < 25; i++)
            waves.OnHoldReleased(at, Fake.Ms(15), kind: 1, fake.Now); // back: the verdict waits for 8 warm holds
        Assert.Empty(fake.Log.Kept);
        fake.Time.Advance(Fake.Ms(1)); // after the wave's last open: not one of its crowd
        OpenStart late = fake.Start(demand: 30);
        fake.Time.Advance(Fake.Ms(145));
        slow.OnOpenCompleted(late, new OpenOutcome(Fake.Ms(145), 1, 161, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith("Cold start of pool", finding.Message, StringComparison.Ordinal);
        Assert.Equal(0, finding.Figures["warmHolds"]); // priced by its own holds: none warm came yet

        // A wave that was no cold start (fast connects) leaves the slow connect after it to the burst's crowd: not named.
        var quick = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var quickWaves = new ColdStarts(quick.Log, ConnectCount.ProviderMeter, NothingCompiled);
        var quickSlow = new SlowOpenDetector(quick.Log, ConnectCount.ProviderMeter);
        at = Wave(quick, quickWaves, callers: 25, connectMs: 20, openMs: 25);
        for (int i = 0; i < 25; i++)
            quickWaves.OnHoldReleased(at, Fake.Ms(15), kind: 1, quick.Now);
        quick.Time.Advance(Fake.Ms(1));
        late = quick.Start(demand: 30);
        quick.Time.Advance(Fake.Ms(145));
        quickSlow.OnOpenCompleted(late, new OpenOutcome(Fake.Ms(145), 1, 161, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        Assert.Empty(quick.Findings(FindingKind.SlowOpen));
    }

    [Theory]
    [InlineData(false, 0, false)] // still the burst: its late callers waited for its crowd and the CPU
    [InlineData(true, 0, true)] // the pool was quiet since: a new load's slow connects, a cold pool
    [InlineData(false, 31, true)] // past the burst's 30 s limit: judged open by open again
    public void A_late_caller_of_a_burst_whose_wave_connected_within_the_floor_waited_for_the_crowd_not_for_the_server(
        bool quietSince, double secondsLater, bool coldPool)
    {
        // sync-probe-wave-250-loopback-query10, as the trace measured: a wave of 35 of 250 synchronous loopback callers
        // (its fastest tenth 25 ms: no cold start); the others, still arriving, connected after it in 100 to 330 ms, each
        // thread 0.1 to 0.5 ms on a CPU and 2 to 45 ms waiting for one, the rest waiting on a server itself waiting for a CPU.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.ProviderMeter);
        long at = Wave(fake, waves, callers: 35, connectMs: 20, openMs: 25);
        Release(fake, waves, at, callers: 35, heldMs: 15); // judged: fast connects, no cold start
        Assert.Empty(fake.Log.Kept);
        fake.Time.Advance(TimeSpan.FromSeconds(secondsLater) + Fake.Ms(1));
        waves.OnOpenStarting(fake.Start(demand: quietSince ? 1 : 40));
        OpenStart late = fake.Start(demand: 250);
        fake.Time.Advance(Fake.Ms(150));
        slow.OnOpenCompleted(late, new OpenOutcome(Fake.Ms(150), 4, 4 * 190, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        Assert.Equal(coldPool, fake.Findings(FindingKind.SlowOpen).Any(f => f.Message.StartsWith("Cold pool", StringComparison.Ordinal)));
        Assert.Equal(coldPool ? 1 : 0, fake.Findings(FindingKind.SlowOpen).Count());
    }

    [Theory]
    [InlineData(15, true)] // 160 ms of open against 15 of work: the burst's cold start, named through its late caller
    [InlineData(400, false)] // against 400 ms of work: under half the request's time, as the wave's verdict said
    public void A_late_caller_names_its_bursts_cold_start_when_the_slow_wave_went_unnamed(double workMs, bool named)
    {
        // sync-untried-wave-200-connect125-query15 beside a CPU hog: every open of the wave took 150 ms on 125 ms connects,
        // but the process compiled for the whole wave (its start-up, netted: no cold start named); a late caller, past the
        // start-up, still waited 160 ms on the server's connect.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read);
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.ProviderMeter);
        long at = Wave(fake, waves, callers: 40, connectMs: 125, openMs: 150, compile: (jit, 150));
        Release(fake, waves, at, callers: 40, heldMs: workMs);
        Assert.Empty(fake.Log.Kept); // net of its compiling, the wave's opens took nothing of the server's
        fake.Time.Advance(Fake.Ms(1));
        OpenStart late = fake.Start(demand: 160);
        fake.Time.Advance(Fake.Ms(160));
        slow.OnOpenCompleted(late, new OpenOutcome(Fake.Ms(160), 3, 3 * 135, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        if (!named)
        {
            Assert.Empty(fake.Findings(FindingKind.SlowOpen));
            return;
        }

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith("Cold start of pool", finding.Message, StringComparison.Ordinal);
        Assert.Contains("a caller of its first burst", finding.Message, StringComparison.Ordinal);
        Assert.Contains("await db.WarmUpAsync(160)", finding.Message, StringComparison.Ordinal);
        Assert.Equal(150, finding.Figures["waveLowOpenMs"], 3);
        Assert.Equal(135, finding.Figures["connectMs"], 3);
        Assert.Equal(1, finding.Figures["lateCaller"]);

        // A wave named itself leaves nothing more to its late callers.
        var named2 = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves2 = new ColdStarts(named2.Log, ConnectCount.ProviderMeter, NothingCompiled);
        var slow2 = new SlowOpenDetector(named2.Log, ConnectCount.ProviderMeter);
        at = Wave(named2, waves2, callers: 40, connectMs: 125, openMs: 150);
        Release(named2, waves2, at, callers: 40, heldMs: workMs);
        named2.Time.Advance(Fake.Ms(1));
        late = named2.Start(demand: 160);
        named2.Time.Advance(Fake.Ms(160));
        slow2.OnOpenCompleted(late, new OpenOutcome(Fake.Ms(160), 3, 3 * 135, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        Assert.DoesNotContain("a caller of its first burst", Assert.Single(named2.Findings(FindingKind.SlowOpen)).Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true, true)] // the process used 350 ms of CPU over the wave: at most that much of its compiling is netted
    [InlineData(false, false)] // not sampled (a test's or a replay's clock): all the JIT timed, as before
    public void The_compiling_netted_from_a_wave_is_at_most_the_cpu_time_the_process_used_over_it(bool sampled, bool reported)
    {
        // sync-untried-wave-200-connect125-query15 at load 12 to 20, as the trace measured: 200 synchronous callers on 125 ms
        // connects, a 1248 ms wave over which the JIT timed 1387 ms of compiling (its threads compiling at once, and waiting
        // for a CPU) while the process used 350 ms of CPU: the wave's time less all of it left nothing, and the wave went
        // unnamed. Here 20 opens, half begun at once, half 1 s later when most of that compiling was done.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = sampled
            ? new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read, Seen(cpuMs: 350, idleMs: 64, longestIdleMs: 23))
            : new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read);
        long started = fake.Now;
        for (int i = 0; i < 10; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, started, new ColdOpenThread(ThreadId: i, CompileMs: 0));
        fake.Time.Advance(Fake.Ms(1000));
        jit.Advance(1317);
        long later = fake.Now;
        for (int i = 10; i < 20; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, later, new ColdOpenThread(ThreadId: i, CompileMs: 0));
        fake.Time.Advance(Fake.Ms(248));
        jit.Advance(20);
        long at = fake.Now;
        for (int i = 0; i < 20; i++)
        {
            OpenStart start = new(i < 10 ? started : later, 0, 20, PhysicalConnects: 0, CreateSeconds: 0, Async: false);
            var end = new ColdOpenThread(ThreadId: i, CompileMs: 1337 * 0.95 / 20); // the openers' share: 0.95
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(261), i + 1, (i + 1) * 184.7, Queued: false), at, default, end);
        }

        Release(fake, waves, at, callers: 20, heldMs: 18.6);
        Assert.Equal(reported, fake.Findings(FindingKind.SlowOpen).Any());
        if (reported) // 261 - (261 + 20) / 2 x 0.95 = 127.525 ms per open; over the wave 1248 - 350 x 0.95 = 915.5 ms
            Assert.Equal(127.525, Assert.Single(fake.Findings(FindingKind.SlowOpen)).Figures["netOpenMs"], 3);
    }

    [Fact]
    public void The_issue_burst_of_25_callers_on_150_ms_connects_and_100_ms_queries_is_a_cold_start_priced_per_request()
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        long at = Wave(fake, waves, callers: 25, connectMs: 150, openMs: 183);
        Assert.Empty(fake.Log.Kept); // the opens are done, the requests are not: not yet
        Release(fake, waves, at, callers: 24, heldMs: 100);
        Assert.Empty(fake.Log.Kept);
        Release(fake, waves, at, callers: 1, heldMs: 100);

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith(
            "Cold start of pool 'pool': the first 25 requests took 283 ms on average where their own work took 100 ms (2.83x): " +
            "opening was 65 % of their time. Warm the pool before traffic: await db.WarmUpAsync(25) at start-up",
            finding.Message, StringComparison.Ordinal);
        Assert.Contains("25 open(s) made 25 new physical connection(s) taking about 150 ms each (the provider's own connect time)",
            finding.Message, StringComparison.Ordinal);
        Assert.Equal(183.0 / 283, finding.Figures["openShare"], 3);
        Assert.Equal(100, finding.Figures["meanHeldMs"], 3);
        Assert.Equal(0, finding.Figures["afterLoss"]);
    }

    [Theory]
    [InlineData(150, 160, 10, true)] // 17x: the connects are the requests
    [InlineData(150, 160, 150, true)] // 2.07x: opening just over half
    [InlineData(150, 160, 170, false)] // 1.94x: just under half
    [InlineData(150, 160, 500, false)] // 1.32x
    [InlineData(300, 330, 500, false)] // 1.66x: 330 ms more on each, under half of their time
    [InlineData(290, 292, 515, false)] // 150 ms connects slowed by a loaded machine, as the suite measured: 1.57x
    [InlineData(480, 482, 480, true)] // 2.0x
    [InlineData(111, 112, 200, false)] // 60 loopback connects beside a CPU hog, as the suite measured: 1.56x
    [InlineData(50, 60, 10, false)] // 6x, but 60 ms: under the floor nothing is a finding
    [InlineData(150, 90, 10, false)] // slow connects the opens did not wait for (opens under the floor)
    public void A_first_wave_is_reported_when_its_opens_took_at_least_half_the_requests_time(
        double connectMs, double openMs, double heldMs, bool reported)
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        long at = Wave(fake, waves, callers: 20, connectMs, openMs);
        Release(fake, waves, at, callers: 20, heldMs);
        Assert.Equal(reported, fake.Findings(FindingKind.SlowOpen).Any());
    }

    [Fact]
    public void The_opens_are_judged_net_of_the_thread_pools_lateness()
    {
        // 60 loopback connects on a loaded machine, as the suite measured: 360 ms each while the pool ran 147 ms late.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        long at = Wave(fake, waves, callers: 60, connectMs: 360, openMs: 362, threadPoolDelayMs: 147);
        Release(fake, waves, at, callers: 60, heldMs: 238);
        Assert.Empty(fake.Log.Kept); // (362 - 147) / (362 - 147 + 238) = 0.47

        fake.Time.Advance(Fake.Ms(1));
        at = Wave(fake, waves, callers: 60, connectMs: 360, openMs: 362, firstConnect: 60, threadPoolDelayMs: 40);
        Release(fake, waves, at, callers: 60, heldMs: 238);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen)); // (362 - 40) / (362 - 40 + 238) = 0.58
        Assert.Contains("the first 60 requests took 600 ms on average where their own work took 238 ms (2.52x): opening was 60 % of their time",
            finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_wave_whose_connections_ran_no_statement_is_a_warm_up_by_hand_not_a_cold_start()
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        long at = Wave(fake, waves, callers: 20, connectMs: 300, openMs: 310);
        Release(fake, waves, at, callers: 20, heldMs: 0.1, kind: 0); // opened and given back unused
        Assert.Empty(fake.Log.Kept);

        fake.Time.Advance(Fake.Ms(1));
        at = Wave(fake, waves, callers: 20, connectMs: 300, openMs: 310, firstConnect: 20);
        Release(fake, waves, at, callers: 20, heldMs: 0.1, kind: 1); // "select 1" on each: 300 ms for a request of 0.1
        Assert.Single(fake.Findings(FindingKind.SlowOpen));
    }

    [Fact]
    public void Holds_still_out_after_the_wait_count_as_held_until_the_wave_is_judged()
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        long at = Wave(fake, waves, callers: 10, connectMs: 150, openMs: 160);
        Release(fake, waves, at, callers: 8, heldMs: 20); // two sessions stay open (workers holding theirs)
        Assert.Empty(fake.Log.Kept);
        fake.Time.Advance(ColdStarts.HoldsWait);
        waves.OnHoldReleased(started: 1, TimeSpan.FromMilliseconds(5), kind: 1, fake.Now); // any later release of the pool
        waves.Describe(new ReportFigures());

        // (8 x 20 ms + 2 x ~10 s) / 10 holds: the long holds' work dwarfs the opens.
        Assert.Empty(fake.Log.Kept);
        waves.OnHoldReleased(at, TimeSpan.FromSeconds(10), kind: 1, fake.Now); // not the wave's any more: ignored
        Assert.Empty(fake.Log.Kept);
    }

    [Fact]
    public void A_failed_open_is_counted_out_and_fast_or_single_connects_are_not_worth_a_finding()
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        for (int i = 0; i < 60; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, fake.Now);
        OpenStart start = new(fake.Now, 0, 60, PhysicalConnects: 0, CreateSeconds: 0, Async: true);
        long at = fake.Now;
        for (int i = 1; i <= 60; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(10), i, i * 8, Queued: false), at); // 8 ms connects
        Release(fake, waves, at, callers: 60, heldMs: 0.2);

        fake.Time.Advance(Fake.Ms(1));
        waves.OnFirstWaveOpenStarting(afterLoss: false, fake.Now);
        waves.OnFirstWaveOpenStarting(afterLoss: false, fake.Now);
        at = fake.Now;
        waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(400), 1, 350, Queued: false), at); // one slow connect (the JIT)
        waves.OnFirstWaveOpenCompleted(start, null, 0); // one failed: counted out, not in
        Release(fake, waves, at, callers: 1, heldMs: 0.2);
        Assert.Empty(fake.Log.Kept);
    }

    [Fact]
    public void Reconnecting_after_a_loss_is_one_informational_finding_that_blames_no_pool_size()
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ConnectionId, NothingCompiled);
        for (int i = 0; i < 10; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: true, fake.Now);
        long at = fake.Now;
        for (int i = 0; i < 10; i++)
            waves.OnFirstWaveOpenCompleted(fake.Start(), new OpenOutcome(Fake.Ms(250 + (i * 100)), 1, 0, Queued: false), at);
        Release(fake, waves, at, callers: 10, heldMs: 5);

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith("Reconnect wave on pool 'pool'", finding.Message, StringComparison.Ordinal);
        Assert.Contains("about 250 ms each (the fastest open that made one)", finding.Message, StringComparison.Ordinal);
        Assert.Contains("not a pool-size problem", finding.Message, StringComparison.Ordinal);
        Assert.Equal(1, finding.Figures["afterLoss"]);
    }

    [Fact]
    public void The_requests_work_is_priced_by_the_same_pools_warm_holds_once_they_come()
    {
        // first-burst-fast-connects at load 90, as the trace measured: 60 loopback opens of 642 ms, 525 of them compiling;
        // holds of 216 ms (134 compiling) for a 200 ms statement. Net of compiling, 117 ms of open against 82 of work read
        // as a cold start (0.59); the same statement on the warm connections took 220 ms: 0.35, the work outweighs it.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read);
        long at = Wave(fake, waves, callers: 60, connectMs: 600, openMs: 642, compile: (jit, 525));
        jit.Advance(134);
        fake.Time.Advance(Fake.Ms(216));
        for (int i = 0; i < 60; i++)
            waves.OnHoldReleased(at, Fake.Ms(216), kind: 1, fake.Now);
        Assert.Empty(fake.Log.Kept); // the wave waits for warm holds
        WarmHolds(fake, waves, count: ColdStarts.WarmHolds, heldMs: 220);
        Assert.Empty(fake.Log.Kept); // judged at the eighth: silent

        // tiny-first-burst-web-128-connect150 at load 88: 128 opens of 379 ms (111 compiling; the thread pool ran 229 ms
        // late there, 100 here: at 229, 150 ms of 379 were left, under half, and the wave reads as start-up) on 150 ms
        // connects, each request one 'select 1' held 558 ms (404 compiling). Against its own holds net of compiling (154
        // ms) the opens were not judged; the same 'select 1' on the warm connections took 12 ms.
        var web = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var webJit = new CompileClock();
        var webWaves = new ColdStarts(web.Log, ConnectCount.ProviderMeter, webJit.Read);
        at = Wave(web, webWaves, callers: 128, connectMs: 300, openMs: 379, threadPoolDelayMs: 100, compile: (webJit, 111));
        webJit.Advance(404);
        web.Time.Advance(Fake.Ms(558));
        for (int i = 0; i < 128; i++)
            webWaves.OnHoldReleased(at, Fake.Ms(558), kind: 1, web.Now);
        Assert.Empty(web.Log.Kept);
        WarmHolds(web, webWaves, count: ColdStarts.WarmHolds, heldMs: 12);
        PoolFinding finding = Assert.Single(web.Findings(FindingKind.SlowOpen));
        Assert.StartsWith(
            "Cold start of pool 'pool': the first 128 requests took 937 ms on average where the same work on the warm connections " +
            "took 12 ms (78.08x): opening was 40 % of their time.",
            finding.Message, StringComparison.Ordinal);
        Assert.EndsWith("8 later hold(s) on warm connections took 12 ms (median).", finding.Message, StringComparison.Ordinal);
        Assert.Equal(8, finding.Figures["warmHolds"]);
        Assert.Equal(12, finding.Figures["workMs"], 3);
        Assert.Equal(268, finding.Figures["netOpenMs"], 3);
        Assert.Equal(273.5, finding.Figures["serverConnectMs"], 3); // the middle of 379 - 100 and 379 - 111
    }

    [Fact]
    public void Without_warm_holds_the_wave_is_judged_by_its_own_once_the_wait_is_over()
    {
        // The issue's burst, and then a single later release past the wait: judged with the wave's own holds.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled);
        long at = Wave(fake, waves, callers: 25, connectMs: 150, openMs: 183);
        for (int i = 0; i < 25; i++)
            waves.OnHoldReleased(at, Fake.Ms(100), kind: 1, fake.Now);
        fake.Time.Advance(ColdStarts.WarmWait - Fake.Ms(1));
        waves.OnHoldReleased(started: 1, Fake.Ms(1), kind: 0, fake.Now); // a release of the pool before the wait is over
        Assert.Empty(fake.Log.Kept);
        fake.Time.Advance(Fake.Ms(1));
        waves.OnHoldReleased(started: 1, Fake.Ms(1), kind: 0, fake.Now);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.Contains("where their own work took 100 ms (2.83x)", finding.Message, StringComparison.Ordinal);
        Assert.Equal(0, finding.Figures["warmHolds"]);
    }

    [Theory]
    [InlineData(250, 200, true)] // late, but short of the threshold: subtracted from the opens, 271 ms left of 521
    [InlineData(400, 200, false)] // 121 ms left of 521: the process ran late or compiled for most of each open
    [InlineData(500, 200, false)] // the thread pool starved: the starvation detector's
    [InlineData(250, 316, false)] // first-burst-16-connect150-query20 at load 39: compiling for 316 of the opens' 521 ms
    public void Thread_pool_lateness_short_of_starvation_is_subtracted_not_a_veto(double lateMs, double compileMs, bool reported)
    {
        // 16 async opens of 521 ms on 150 ms connects (the provider timed 491 ms each, stretched by the load); a 20 ms
        // statement held 219 ms, 199 of them compiling.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read);
        long at = Wave(fake, waves, callers: 16, connectMs: 491, openMs: 521, threadPoolDelayMs: lateMs, compile: (jit, compileMs));
        jit.Advance(199);
        Release(fake, waves, at, callers: 16, heldMs: 219);
        Assert.Equal(reported, fake.Findings(FindingKind.SlowOpen).Any());
    }

    [Fact]
    public void A_fresh_processs_first_wave_that_never_sat_waiting_is_its_start_up_not_a_cold_start()
    {
        // tiny-first-burst-async-128 at load 9.7, as the trace measured: 128 async 'select 1' over loopback, opens of 615 ms
        // of which 189 compiling, the thread pool 163 ms late; net of both still 426 ms against 0.2 ms of work. The process
        // used 535 ms of CPU over the wave and was never idle for more than 6 ms at a stretch (26 ms in all).
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read, Seen(cpuMs: 535, idleMs: 26, longestIdleMs: 6));
        long at = Wave(fake, waves, callers: 128, connectMs: 615, openMs: 615, threadPoolDelayMs: 163, compile: (jit, 189));
        Release(fake, waves, at, callers: 128, heldMs: 0.2);
        Assert.Empty(fake.Log.Kept);

        // The same wave where nothing sampled the process (a test's or a replay's clock): judged as before, a cold start.
        var unsampled = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var unsampledJit = new CompileClock();
        var unsampledWaves = new ColdStarts(unsampled.Log, ConnectCount.ProviderMeter, unsampledJit.Read);
        at = Wave(unsampled, unsampledWaves, callers: 128, connectMs: 615, openMs: 615, threadPoolDelayMs: 163, compile: (unsampledJit, 189));
        Release(unsampled, unsampledWaves, at, callers: 128, heldMs: 0.2);
        PoolFinding finding = Assert.Single(unsampled.Findings(FindingKind.SlowOpen));
        Assert.False(finding.Figures.ContainsKey("idleMs")); // nothing sampled, nothing said of it
    }

    [Theory]
    [InlineData(24, false)] // under a quarter of the floor at a stretch: the process never waited on the server
    [InlineData(25, true)]
    [InlineData(140, true)] // first-burst-25-connect150-query100: idle for most of a connect
    public void A_wave_is_a_cold_start_only_when_the_process_sat_waiting_for_a_quarter_of_the_floor_at_a_stretch(
        double longestIdleMs, bool reported)
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled, Seen(cpuMs: 58, idleMs: 144, longestIdleMs));
        long at = Wave(fake, waves, callers: 25, connectMs: 177, openMs: 179);
        Release(fake, waves, at, callers: 25, heldMs: 100);
        Assert.Equal(reported, fake.Findings(FindingKind.SlowOpen).Any());
        if (reported)
        {
            PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
            Assert.Contains(
                string.Create(CultureInfo.InvariantCulture,
                    $"the process used 58 ms of CPU and sat idle, waiting on the server, for 144 ms (at most {longestIdleMs:0} ms at a stretch)"),
                finding.Message, StringComparison.Ordinal);
            Assert.Equal(58, finding.Figures["processCpuMs"], 3);
            Assert.Equal(144, finding.Figures["idleMs"], 3);
            Assert.Equal(longestIdleMs, finding.Figures["longestIdleMs"], 3);
        }
    }

    [Fact]
    public void Synchronous_opens_are_not_judged_net_of_the_thread_pools_lateness_they_did_not_wait_for()
    {
        // sync-first-wave-150-connect120-query20 at load 17, as the trace measured: 150 synchronous callers in Task.Run on
        // 120 ms connects; opens of 134 ms, 25 of them compiling, while the thread pool ran 53 ms late (the callers' own
        // Task.Run items queued for threads). A synchronous open holds its thread: no continuation of it waited.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read, Seen(cpuMs: 188, idleMs: 61, longestIdleMs: 30));
        long at = Wave(fake, waves, callers: 150, connectMs: 133, openMs: 134, threadPoolDelayMs: 53, compile: (jit, 25), asyncOpens: false);
        Release(fake, waves, at, callers: 150, heldMs: 20.6);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen)); // 134 - 25 = 109 ms net, over the floor
        Assert.Equal(109, finding.Figures["netOpenMs"], 3);
        Assert.Equal(53, finding.Figures["threadPoolDelayMs"], 3); // still said, and still vetoes a starved pool

        // Synchronous opens are not asked whether the process sat idle (150 callers' start can fill the server's wait):
        // the same wave with the process idle at most 5 ms at a stretch is still named.
        var busy = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var busyJit = new CompileClock();
        var busyWaves = new ColdStarts(busy.Log, ConnectCount.ProviderMeter, busyJit.Read, Seen(cpuMs: 190, idleMs: 6, longestIdleMs: 5));
        at = Wave(busy, busyWaves, callers: 150, connectMs: 133, openMs: 134, threadPoolDelayMs: 53, compile: (busyJit, 25), asyncOpens: false);
        Release(busy, busyWaves, at, callers: 150, heldMs: 20.6);
        Assert.Single(busy.Findings(FindingKind.SlowOpen));

        // The same wave of async opens waited for the pool's lateness: 134 - 53 = 81 ms net, under the floor.
        var awaited = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var asyncJit = new CompileClock();
        var asyncWaves = new ColdStarts(awaited.Log, ConnectCount.ProviderMeter, asyncJit.Read, Seen(cpuMs: 188, idleMs: 61, longestIdleMs: 30));
        at = Wave(awaited, asyncWaves, callers: 150, connectMs: 133, openMs: 134, threadPoolDelayMs: 53, compile: (asyncJit, 25));
        Release(awaited, asyncWaves, at, callers: 150, heldMs: 20.6);
        Assert.Empty(awaited.Log.Kept);
    }

    [Fact]
    public void A_synchronous_wave_during_which_the_thread_pool_starved_is_still_left_to_the_starvation_detector()
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, NothingCompiled, Seen(cpuMs: 50, idleMs: 200, longestIdleMs: 200));
        long at = Wave(fake, waves, callers: 40, connectMs: 300, openMs: 310, threadPoolDelayMs: 600, asyncOpens: false);
        Release(fake, waves, at, callers: 40, heldMs: 5);
        Assert.Empty(fake.Log.Kept);
    }

    [Theory]
    [InlineData(0.1, true)] // the opening threads compiled 15 of the 65 ms: 163 - 65 x 0.23 = 148 ms net, named
    [InlineData(0.43, false)] // they compiled all of it themselves (a fresh process's loopback opens): 163 - 65 = 98, silent
    public void A_synchronous_wave_is_netted_only_of_the_compiling_its_own_threads_did(double ownCompileEachMs, bool reported)
    {
        // sync-first-wave-150-connect120-query20 beside the CPU hog, as the trace measured (load 21): 150 synchronous callers
        // on 120 ms connects, opens of 163 ms during which the process compiled 65 ms (the callers' own start, statements
        // of those already connected, the runtime's tier-up), 0.1 ms of it on each opening thread. Netting all of it left
        // 98 ms, under the floor: the server's 120 ms wait went unnamed.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read, Seen(cpuMs: 300, idleMs: 10, longestIdleMs: 5));
        long at = SyncWave(fake, waves, jit, callers: 150, connectMs: 130, openMs: 163, compileMs: 65, ownCompileEachMs);
        Release(fake, waves, at, callers: 150, heldMs: 22);
        Assert.Equal(reported, fake.Findings(FindingKind.SlowOpen).Any());
        if (reported)
        {
            PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
            Assert.Equal(15.0 / 65, finding.Figures["openersCompileShare"], 3);
            Assert.Equal(163 - (15.0 / 65 * 65), finding.Figures["netOpenMs"], 3);
            Assert.Contains(
                "65 ms of an open's time (23 % of it on the opening threads themselves)", finding.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_fresh_processs_synchronous_loopback_burst_whose_threads_compiled_their_own_code_stays_its_start_up()
    {
        // tiny-first-burst-sync-8 beside the CPU hog (load 19.5), as the trace measured: 8 synchronous loopback opens of
        // 238 ms while the process compiled 204 ms, 22.6 ms of it on each opening thread (181 of 204: one thread compiles what
        // the others wait for). Netted of that share (0.89) they took 57 ms here (76 in the trace, whose opens saw 182 ms of
        // the wave's compiling each): under the floor, silent.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read, Seen(cpuMs: 76, idleMs: 152, longestIdleMs: 125));
        long at = SyncWave(fake, waves, jit, callers: 8, connectMs: 162, openMs: 238, compileMs: 204, ownCompileEachMs: 22.6);
        Release(fake, waves, at, callers: 8, heldMs: 0.1);
        Assert.Empty(fake.Log.Kept);

        // Async opens move between threads: their own share is not known. Net of all the compiling they took 98 ms, but the
        // process compiled for 65 of their 163 ms while it sat idle 120 ms at a stretch: the server's connect read about
        // 130 ms (the middle of the two), a cold start.
        var awaited = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var asyncJit = new CompileClock();
        var asyncWaves = new ColdStarts(
            awaited.Log, ConnectCount.ProviderMeter, asyncJit.Read, Seen(cpuMs: 300, idleMs: 150, longestIdleMs: 120));
        at = Wave(awaited, asyncWaves, callers: 150, connectMs: 130, openMs: 163, compile: (asyncJit, 65));
        Release(awaited, asyncWaves, at, callers: 150, heldMs: 22);
        PoolFinding finding = Assert.Single(awaited.Findings(FindingKind.SlowOpen));
        Assert.Equal(98, finding.Figures["netOpenMs"], 3);
        Assert.Equal(130.5, finding.Figures["serverConnectMs"], 3);
    }

    [Fact]
    public void A_synchronous_loopback_wave_whose_fastest_tenth_connected_at_once_is_not_a_cold_start_whatever_its_share()
    {
        // sync-first-wave-150-loopback-query20 at load 17, as the trace measured: a 1.1 s wave of 150 synchronous loopback
        // opens, 182 ms on average, the process compiling 576 ms over it, 0.14 of it on the opening threads (the rest beside
        // them): 166 ms net of that share. But a tenth of the opens took 38 ms or less: a server that made every caller wait
        // makes every connecting open wait; these waited on the process. At most the tenth percentile: 38 ms, silent.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read);
        long started = fake.Now;
        for (int i = 0; i < 150; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, started, new ColdOpenThread(ThreadId: i, CompileMs: 0));
        OpenStart start = new(started, 0, 150, PhysicalConnects: 0, CreateSeconds: 0, Async: false);
        fake.Time.Advance(Fake.Ms(1113));
        jit.Advance(576);
        long at = fake.Now;
        for (int i = 0; i < 150; i++) // 20 opens of 38 ms, 130 of 204: 182 ms on average
        {
            double openMs = i < 20 ? 38 : 204;
            var end = new ColdOpenThread(ThreadId: i, CompileMs: 576 * 0.14 / 150);
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(openMs), i + 1, (i + 1) * 150, Queued: false), at, default, end);
        }

        Release(fake, waves, at, callers: 150, heldMs: 20);
        Assert.Empty(fake.Log.Kept);

        // Behind a slow server every open waits its 120 ms connect (sync-first-wave-150-connect120-query20: a tenth of the
        // opens 120 to 125 ms): the tenth percentile, 121 ms, is still over the floor, named.
        var slow = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var slowJit = new CompileClock();
        var slowWaves = new ColdStarts(slow.Log, ConnectCount.ProviderMeter, slowJit.Read);
        started = slow.Now;
        for (int i = 0; i < 150; i++)
            slowWaves.OnFirstWaveOpenStarting(afterLoss: false, started, new ColdOpenThread(ThreadId: i, CompileMs: 0));
        start = new(started, 0, 150, PhysicalConnects: 0, CreateSeconds: 0, Async: false);
        slow.Time.Advance(Fake.Ms(230));
        slowJit.Advance(65);
        at = slow.Now;
        for (int i = 0; i < 150; i++) // 20 opens of 121 ms, 130 of 163: 142 ms net of the share, at most 121
        {
            double openMs = i < 20 ? 121 : 163;
            var end = new ColdOpenThread(ThreadId: i, CompileMs: 0.1);
            var outcome = new OpenOutcome(Fake.Ms(openMs), i + 1, (i + 1) * 130, Queued: false);
            slowWaves.OnFirstWaveOpenCompleted(start, outcome, at, default, end);
        }

        Release(slow, slowWaves, at, callers: 150, heldMs: 20);
        PoolFinding finding = Assert.Single(slow.Findings(FindingKind.SlowOpen));
        Assert.Equal(121, finding.Figures["netOpenMs"], 3);
    }

    [Theory]
    [InlineData(150, 113, 30, 0.1, double.NaN, false)] // not read from the scheduler: 113 - 30 x 0.5 = 98 ms net, silent
    [InlineData(150, 113, 30, 0.1, 102, true)] // blocked 102 ms, 87 net of the openers' half of the compiling: named
    [InlineData(150, 170, 150, 0.91, 160, false)] // plain threads at once over loopback: 23.5 of 160 ms net, silent
    [InlineData(8, 233, 204, 22.6, 126, false)] // a loopback wave beside a CPU hog: openers compiled 181 ms, silent
    public void A_synchronous_wave_read_on_its_threads_is_judged_by_the_time_its_fastest_opens_sat_blocked_on_the_server(
        int callers, double openMs, double compileMs, double ownCompileEachMs, double blockedMs, bool reported)
    {
        // sync-nearfloor-wave-180-connect102-query5 (load 12 to 60), as the trace measured: synchronous callers on 102 ms
        // connects, opens of 113 ms on average during which the process compiled about 30 ms, half of it on the opening
        // threads: netting that share left 97 ms, and the wave went unnamed in 1 of 6 runs. Each open's thread, read from the
        // scheduler, sat blocked 102 to 103 ms at the fastest tenth (off a CPU and not waiting for one: on the server's
        // socket), the process compiling 15 to 75 ms meanwhile, 0.25 to 0.5 of it on the opening threads.
        // threads-floor-wave-150-loopback-query6 (150 plain threads opening at once) sat blocked 161 ms on the thread
        // compiling their connect path, the process compiling for 151 ms of it, 0.91 of its compiling the openers';
        // tiny-first-burst-sync-8 beside the CPU hog sat blocked 126 ms with its openers compiling longer than that. Those
        // two are judged as before: 34 and 52 ms net of the openers' compiling, silent.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read, Seen(cpuMs: 300, idleMs: 10, longestIdleMs: 5));
        long at = SyncWave(fake, waves, jit, callers, connectMs: openMs - 1, openMs, compileMs, ownCompileEachMs, blockedMs);
        Release(fake, waves, at, callers, heldMs: 6);
        Assert.Equal(reported, fake.Findings(FindingKind.SlowOpen).Any());
        if (reported)
        {
            PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
            Assert.Equal(98, finding.Figures["netOpenMs"], 3);
            Assert.Equal(blockedMs, finding.Figures["blockedServerMs"], 3);
            Assert.Equal(blockedMs - (compileMs * 0.5), finding.Figures["lowConnectBlockedNetMs"], 3); // the openers' half
        }
    }

    [Fact]
    public void A_threads_blocked_time_is_its_time_neither_on_a_cpu_nor_waiting_for_one()
    {
        var start = new ColdOpenThread(1, 0, OnCpuMs: 10, RunQueueMs: 5, Timestamp: 1000);
        var end = start with { OnCpuMs = 13, RunQueueMs = 25, Timestamp = 1000 + (Stopwatch.Frequency / 10) }; // 100 ms later
        Assert.Equal(100 - 3 - 20, end.BlockedSinceMs(start), 3);
        Assert.True(double.IsNaN((end with { OnCpuMs = double.NaN }).BlockedSinceMs(start))); // not read: unknown

        if (!OperatingSystem.IsLinux())
            return;
        ColdOpenThread before = ColdOpenThread.Now();
        Thread.Sleep(30); // blocked on nothing but a timer
        ColdOpenThread after = ColdOpenThread.Now();
        Assert.InRange(after.BlockedSinceMs(before), 20, 30_000);
    }

    [Fact]
    public void The_openers_share_is_read_from_opens_that_ended_on_their_own_thread_and_without_any_all_compiling_is_netted()
    {
        // Four synchronous opens of 200 ms while the process compiled 150 ms: two end on the thread they began on, having
        // compiled 10 ms each; two end on other threads (never a synchronous open in practice), whose compile time says
        // nothing of their start. The two measured price the four: 40 of 150 ms, 200 - 150 x 0.27 = 160 ms net, named.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read);
        long at = FourOpens(fake, waves, jit, endThreads: [0, 1, 12, 13]);
        Release(fake, waves, at, callers: 4, heldMs: 1);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.Equal(40.0 / 150, finding.Figures["openersCompileShare"], 3);
        Assert.Equal(200 - 40, finding.Figures["netOpenMs"], 3);

        // None ended on its own thread: the share is not known and all the compiling is netted, 200 - 150 = 50 ms, silent.
        var unknown = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var unknownJit = new CompileClock();
        var unknownWaves = new ColdStarts(unknown.Log, ConnectCount.ProviderMeter, unknownJit.Read);
        at = FourOpens(unknown, unknownWaves, unknownJit, endThreads: [10, 11, 12, 13]);
        Release(unknown, unknownWaves, at, callers: 4, heldMs: 1);
        Assert.Empty(unknown.Log.Kept);
    }

    /// <summary>
    /// Four synchronous opens of 200 ms begun on threads 0 to 3, each connecting in 190 ms, ending on
    /// <paramref name="endThreads"/> with 10 ms of their thread's own compiling, while the process compiled 150 ms.
    /// </summary>
    private static long FourOpens(Fake fake, ColdStarts waves, CompileClock jit, int[] endThreads)
    {
        long started = fake.Now;
        for (int i = 0; i < 4; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, started, new ColdOpenThread(ThreadId: i, CompileMs: 0));
        OpenStart start = new(started, 0, 4, PhysicalConnects: 0, CreateSeconds: 0, Async: false);
        fake.Time.Advance(Fake.Ms(200));
        jit.Advance(150);
        long at = fake.Now;
        for (int i = 0; i < 4; i++)
        {
            var end = new ColdOpenThread(ThreadId: endThreads[i], CompileMs: 10);
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(200), i + 1, (i + 1) * 190, Queued: false), at, default, end);
        }

        return at;
    }

    [Theory]
    [InlineData(121, 28, true)] // heldout2-wave-140-connect105-query8 at load 12 to 40: net of compiling 93 ms; server about 107
    [InlineData(117, 37, false)] // the same wave read 80 ms net: about 99 ms, not past the floor
    [InlineData(109, 21, false)] // cold-25-connect80-query20 (connects of 80 ms): net 88 ms, about 98.5 ms
    [InlineData(200, 110, false)] // about 145 ms, but the process compiled for more than half of each open: its start-up
    public void An_async_wave_just_over_the_floor_is_judged_by_its_fastest_connects_between_raw_and_net_of_compiling(
        double openMs, double compileMs, bool reported)
    {
        // 140 async callers, each one 8 ms statement; the process sat idle 56 ms at a stretch while they connected. The
        // compiling during each open ran beside the server's wait as much as before it (other callers' code, the runtime's
        // tier-up), so netting all of it reads a 105 ms connect as 73 to 96 ms: the server's connect is read between.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read, Seen(cpuMs: 160, idleMs: 70, longestIdleMs: 56));
        long at = Wave(fake, waves, callers: 140, connectMs: openMs - 1, openMs: openMs, compile: (jit, compileMs));
        Release(fake, waves, at, callers: 140, heldMs: 8);
        Assert.Equal(reported, fake.Findings(FindingKind.SlowOpen).Any());
        Assert.True(ColdStartRule.NetOpenMs(new ColdWave(
            140, 140, 140, openMs - 1, openMs, openMs, false, 0, compileMs, openMs, compileMs)) <= 100); // the old reading: silent
    }

    [Fact]
    public void A_burst_that_overflowed_the_servers_backlog_is_judged_by_its_fastest_connects_not_its_mean()
    {
        // first-burst-180-loopback-query100 at load 12 to 40: 180 async loopback callers, 162 of them connected in 60 ms (40
        // of it compiling), 18 a second later (the server's listen backlog overflowed: a SYN retried after 1 s). Their mean,
        // net of compiling, read 162 ms (past the floor); their fastest tenth took 60 ms.
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var jit = new CompileClock();
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter, jit.Read, Seen(cpuMs: 300, idleMs: 900, longestIdleMs: 300));
        for (int i = 0; i < 180; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, fake.Now);
        OpenStart start = new(fake.Now, 0, 180, PhysicalConnects: 0, CreateSeconds: 0, Async: true);
        fake.Time.Advance(Fake.Ms(60));
        jit.Advance(40);
        long fast = fake.Now;
        for (int i = 1; i <= 162; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(60), i, i * 58.0, Queued: false), fast);
        fake.Time.Advance(Fake.Ms(1040));
        long late = fake.Now;
        for (int i = 163; i <= 180; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(1100), i, (162 * 58.0) + ((i - 162) * 1098.0), Queued: false), late);
        fake.Time.Advance(Fake.Ms(100));
        for (int i = 0; i < 162; i++)
            waves.OnHoldReleased(fast, Fake.Ms(1140), kind: 1, fake.Now);
        for (int i = 0; i < 18; i++)
            waves.OnHoldReleased(late, Fake.Ms(100), kind: 1, fake.Now);
        WarmHolds(fake, waves, count: ColdStarts.WarmHolds, heldMs: 100);
        waves.Describe(new ReportFigures());
        Assert.Empty(fake.Log.Kept);
    }

    /// <summary>
    /// <paramref name="callers"/> synchronous opens entering at once on a fresh pool, each on its own thread, each making one
    /// connect of <paramref name="connectMs"/> and taking <paramref name="openMs"/>, while the process compiled
    /// <paramref name="compileMs"/>, <paramref name="ownCompileEachMs"/> of it on each opening thread; returns the
    /// timestamp their holds began at.
    /// </summary>
    private static long SyncWave(
        Fake fake, ColdStarts waves, CompileClock jit, int callers, double connectMs, double openMs, double compileMs,
        double ownCompileEachMs, double blockedMs = double.NaN)
    {
        // Each thread's scheduler figures where given: blockedMs of the open off a CPU, the rest half on one, half queued.
        double scheduled = double.IsNaN(blockedMs) ? double.NaN : 0;
        long ticks = (long)(openMs * Stopwatch.Frequency / 1000);
        long started = fake.Now;
        for (int i = 0; i < callers; i++)
        {
            waves.OnFirstWaveOpenStarting(
                afterLoss: false, started, new ColdOpenThread(ThreadId: i, CompileMs: 1000 + i, scheduled, scheduled, Timestamp: 1));
        }

        OpenStart start = new(started, 0, callers, PhysicalConnects: 0, CreateSeconds: 0, Async: false);
        fake.Time.Advance(Fake.Ms(openMs));
        jit.Advance(compileMs);
        long at = fake.Now;
        for (int i = 0; i < callers; i++)
        {
            double half = (openMs - blockedMs) / 2;
            var end = new ColdOpenThread(ThreadId: i, CompileMs: 1000 + i + ownCompileEachMs, half, half, Timestamp: 1 + ticks);
            var outcome = new OpenOutcome(Fake.Ms(openMs), i + 1, (i + 1) * connectMs, Queued: false);
            waves.OnFirstWaveOpenCompleted(start, outcome, at, default, end);
        }

        return at;
    }

    /// <summary>
    /// <paramref name="callers"/> opens entering at once on a fresh pool, each making one connect of
    /// <paramref name="connectMs"/> (the provider's meter, counted from <paramref name="firstConnect"/>) and taking
    /// <paramref name="openMs"/> while the thread pool ran <paramref name="threadPoolDelayMs"/> late; returns the timestamp
    /// their holds began at.
    /// </summary>
    private static long Wave(
        Fake fake, ColdStarts waves, int callers, double connectMs, double openMs, int firstConnect = 0, double threadPoolDelayMs = 0,
        (CompileClock Clock, double Ms)? compile = null, bool asyncOpens = true)
    {
        for (int i = 0; i < callers; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, fake.Now);
        OpenStart start = new(fake.Now, 0, callers, PhysicalConnects: firstConnect, CreateSeconds: firstConnect, Async: asyncOpens);
        fake.Time.Advance(Fake.Ms(openMs));
        compile?.Clock.Advance(compile.Value.Ms);
        long at = fake.Now;
        for (int i = 1; i <= callers; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(openMs), i, i * connectMs, Queued: false), at, Fake.Ms(threadPoolDelayMs));
        return at;
    }

    /// <summary>What the process is said to have done over every wave: its CPU time, idle in all and at most at a stretch.</summary>
    private static Func<Func<WaveActivity>> Seen(double cpuMs, double idleMs, double longestIdleMs) =>
        () => () => new WaveActivity(cpuMs, idleMs, longestIdleMs);

    /// <summary>The process's compile time, advanced by hand.</summary>
    private sealed class CompileClock
    {
        private TimeSpan _compiled;

        public Func<TimeSpan> Read => () => _compiled;

        public void Advance(double ms) => _compiled += Fake.Ms(ms);
    }

    /// <summary>
    /// <paramref name="callers"/> of the holds begun at <paramref name="at"/> go back after <paramref name="heldMs"/>; then a
    /// report is read, which judges a wave waiting for warm holds with none (its own holds price the work).
    /// </summary>
    private static void Release(Fake fake, ColdStarts waves, long at, int callers, double heldMs, int kind = 1)
    {
        for (int i = 0; i < callers; i++)
            waves.OnHoldReleased(at, Fake.Ms(heldMs), kind, fake.Now);
        waves.Describe(new ReportFigures());
    }

    /// <summary><paramref name="count"/> holds begun after the wave, on warm connections, go back after <paramref name="heldMs"/>.</summary>
    private static void WarmHolds(Fake fake, ColdStarts waves, int count, double heldMs)
    {
        for (int i = 0; i < count; i++)
        {
            long began = fake.Now;
            fake.Time.Advance(Fake.Ms(heldMs));
            waves.OnHoldReleased(began, Fake.Ms(heldMs), kind: 1, fake.Now);
        }
    }

    [Fact]
    public void A_wave_is_followed_for_thirty_seconds_at_most_and_ends_at_its_first_connect()
    {
        var fake = new Fake();
        var waves = new ConnectWaves();
        Assert.True(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30)));
        fake.Time.Advance(TimeSpan.FromSeconds(29));
        Assert.True(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30)));
        fake.Time.Advance(TimeSpan.FromSeconds(2));
        Assert.False(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30))); // a warm pool that never connects

        waves.ConnectionsLost();
        Assert.True(waves.AfterLoss);
        Assert.True(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30)));
        waves.Connected(fake.Now);
        fake.Time.Advance(Fake.Ms(1));
        Assert.False(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30)));
    }
}
