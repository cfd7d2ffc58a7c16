using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// A first wave of connects, judged by what it cost the requests it served: the pool's first burst (every new instance
/// of an app after a deploy, a scale-out or a restart), or every caller reconnecting at once after connections were lost
/// (a server restart, a failover). The slow-open detector never judges a first wave as a cold pool; this one follows the
/// wave's opens and then the holds they began, and sums it up once the last of those holds went back (or, for holds
/// still out <see cref="HoldsWait"/> after the last open, at the next release, counting them as held until then).
/// It is reported when its connects and its opens each took longer than <see cref="DiagnosticsOptions.SlowOpenFloor"/>
/// (less is never a finding) and they harmed the requests: the opens were at least <see cref="HarmShare"/> of the
/// requests' time (open and hold), so the requests took at least twice their own work, counting the opens net of how late
/// the thread pool ran work meanwhile (the machine's, not the server's). A wave whose connections ran no statement served
/// no request (a warm-up written by hand) and is not reported; nor is one while the thread pool ran late by its
/// starvation threshold or by half a connect.
/// </summary>
internal sealed class ColdStarts(FindingLog log, ConnectCount connects) : PoolObserver
{
    /// <summary>
    /// The share of the requests' time the opens must take to be a finding: half, the requests took twice their own work.
    /// Loopback connects on a busy machine take a third and more of a first burst's time (60 callers each doing 0.2 s of
    /// work, beside a CPU hog: 111 ms connects, 36 %), and server connects slowed by the load alone as much (150 ms
    /// connects measured 290 ms, 36 % of requests doing 0.5 s): half is clear of both
    /// (docs/results/diagnostics/cold-start-harm.md).
    /// </summary>
    internal const double HarmShare = 0.5;

    /// <summary>How long after the wave's last open its holds still out are waited for before it is judged without them.</summary>
    internal static readonly TimeSpan HoldsWait = TimeSpan.FromSeconds(10);

    private readonly Lock _lock = new();
    private readonly bool _followed = connects != ConnectCount.None; // no connects known: a wave is never reported
    private int _inFlight;
    private int _opens;
    private int _connectingOpens;
    private long _connects;
    private long _meterStart = long.MaxValue;
    private long _meterEnd;
    private double _createStart = double.MaxValue;
    private double _createEnd;
    private double _fastestConnectOpenMs = double.MaxValue;
    private double _openMsSum;
    private double _slowestOpenMs;
    private bool _afterLoss;
    private bool _warmingUp;
    private double _threadPoolDelayMs;

    // The holds the wave's opens began, by the timestamp each began at (its open's completion), until they go back.
    private readonly Dictionary<long, int> _holds = [];
    private int _holdsOut; // read without the lock on every release: 0 whenever no wave is followed
    private int _holdsBack;
    private int _holdsWithStatement;
    private double _heldMsSum;
    private Summary? _ended; // the wave's opens are all done; its holds are not all back
    private long _endedAt;

    /// <summary>
    /// Set on the flow of a warm-up (<see cref="Database.WarmUpAsync"/>) while it opens: a wave that a warm-up's opens
    /// belong to is the cure, not a cold start, and is not reported. Read only for a first wave's opens.
    /// </summary>
    public static AsyncLocal<bool> InWarmUp { get; } = new();

    public override void OnOpenStarting(in OpenStart start)
    {
        if (start.FirstWave && _followed)
            OnFirstWaveOpenStarting(start.AfterLoss);
    }

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        if (open.Start.FirstWave && _followed)
            OnFirstWaveOpenCompleted(open.Start, open.Outcome, open.At, open.ThreadPoolDelay);
    }

    public override void OnOpenFailed(in FailedOpen open)
    {
        if (open.Start.FirstWave && _followed)
            OnFirstWaveOpenCompleted(open.Start, null, 0);
    }

    public override void OnReleased(in Release release)
    {
        // Every release of the pool comes here: while no wave's hold is out, one read and nothing else.
        if (Volatile.Read(ref _holdsOut) != 0)
            OnHoldReleased(release.Holder.Started, release.Held, release.Holder.Kind, release.At);
    }

    /// <summary>A first-wave open began; <paramref name="afterLoss"/> when its wave began because connections were lost.</summary>
    public void OnFirstWaveOpenStarting(bool afterLoss)
    {
        Verdict? done = null;
        lock (_lock)
        {
            // A new wave while the last one's holds are still out (connections lost again): judge that one as it stands.
            if (_ended is not null)
                done = Settle(log.Time.GetTimestamp());
            _inFlight++;
            _afterLoss |= afterLoss;
            _warmingUp |= InWarmUp.Value;
        }

        if (done is { } verdict)
            Judge(verdict);
    }

    /// <summary>
    /// A first-wave open that began with <paramref name="start"/> completed at <paramref name="at"/> (the timestamp its
    /// hold begins at, 0 for none), or failed (<paramref name="outcome"/> null). When none is left in flight the wave's
    /// opens are summed up, and it is judged once the holds they began are back. With a provider meter, the wave's
    /// connects and their time are the meter's totals from the wave's first open to its last (each open's own figures
    /// count every connect made while it ran).
    /// </summary>
    /// <param name="start">How the open began.</param>
    /// <param name="outcome">How it ended; null when it failed.</param>
    /// <param name="at">When it completed, as its hold's start.</param>
    /// <param name="threadPoolDelay">How late the thread pool ran work while it ran: an async connect waits that long for its
    /// continuations, and the provider counts it in its connect time.</param>
    public void OnFirstWaveOpenCompleted(in OpenStart start, in OpenOutcome? outcome, long at, TimeSpan threadPoolDelay = default)
    {
        Verdict? done = null;
        lock (_lock)
        {
            _threadPoolDelayMs = Math.Max(_threadPoolDelayMs, threadPoolDelay.TotalMilliseconds);
            if (outcome is { } o)
            {
                if (connects == ConnectCount.ProviderMeter && start.PhysicalConnects >= 0)
                {
                    _meterStart = Math.Min(_meterStart, start.PhysicalConnects);
                    _meterEnd = Math.Max(_meterEnd, start.PhysicalConnects + o.PhysicalConnectsDuring);
                    _createStart = Math.Min(_createStart, start.CreateSeconds);
                    _createEnd = Math.Max(_createEnd, start.CreateSeconds + (o.CreateMsDuring / 1000));
                }

                _opens++;
                _openMsSum += o.Elapsed.TotalMilliseconds;
                _slowestOpenMs = Math.Max(_slowestOpenMs, o.Elapsed.TotalMilliseconds);
                if (o.PhysicalConnectsDuring > 0)
                {
                    _connectingOpens++;
                    _connects += o.PhysicalConnectsDuring;
                    _fastestConnectOpenMs = Math.Min(_fastestConnectOpenMs, o.Elapsed.TotalMilliseconds);
                }

                if (at != 0)
                {
                    _holds[at] = _holds.GetValueOrDefault(at) + 1;
                    Volatile.Write(ref _holdsOut, _holdsOut + 1);
                }
            }

            if (--_inFlight > 0)
                return;
            if (_opens > 0 && !_warmingUp)
            {
                long made = connects == ConnectCount.ProviderMeter ? Math.Max(0, _meterEnd - _meterStart) : _connects;
                _ended = new Summary(
                    _opens, _connectingOpens, made, ConnectMs(made), _openMsSum / _opens, _slowestOpenMs, _afterLoss, _threadPoolDelayMs);
                _endedAt = log.Time.GetTimestamp();
            }
            else
            {
                _holds.Clear();
                Volatile.Write(ref _holdsOut, 0);
                _holdsBack = _holdsWithStatement = 0;
                _heldMsSum = 0;
            }

            ResetOpens();
            if (_ended is not null && _holdsOut == 0)
                done = Settle(_endedAt);
        }

        if (done is { } verdict)
            Judge(verdict);
    }

    /// <summary>
    /// A hold went back: one of the wave's when it began at <paramref name="started"/> as one of its opens completed.
    /// <paramref name="kind"/> is the statement that labelled it (<see cref="HoldKinds"/>), 0 when none ran on it.
    /// </summary>
    public void OnHoldReleased(long started, TimeSpan held, int kind, long at)
    {
        Verdict? done = null;
        lock (_lock)
        {
            if (_holds.TryGetValue(started, out int count))
            {
                if (count > 1)
                    _holds[started] = count - 1;
                else
                    _holds.Remove(started);
                Volatile.Write(ref _holdsOut, _holdsOut - 1);
                _holdsBack++;
                _heldMsSum += held.TotalMilliseconds;
                if (kind != 0)
                    _holdsWithStatement++;
            }

            if (_ended is not null && (_holdsOut == 0 || log.Time.GetElapsedTime(_endedAt, at) >= HoldsWait))
                done = Settle(at);
        }

        if (done is { } verdict)
            Judge(verdict);
    }

    /// <summary>
    /// The ended wave with its holds as they stand at <paramref name="now"/> (those still out held until then); under the lock.
    /// </summary>
    private Verdict Settle(long now)
    {
        double heldMs = _heldMsSum;
        int holds = _holdsBack;
        foreach ((long began, int count) in _holds)
        {
            heldMs += count * Math.Max(0, log.Time.GetElapsedTime(began, now).TotalMilliseconds);
            holds += count;
        }

        var verdict = new Verdict(_ended!.Value, holds, holds > 0 ? heldMs / holds : 0, _holdsWithStatement > 0 || _holdsBack < holds);
        _ended = null;
        _holds.Clear();
        Volatile.Write(ref _holdsOut, 0);
        _holdsBack = _holdsWithStatement = 0;
        _heldMsSum = 0;
        return verdict;
    }

    /// <summary>Ready for the next wave's opens (its holds are followed apart, until it ends); under the lock.</summary>
    private void ResetOpens()
    {
        _inFlight = 0;
        _opens = _connectingOpens = 0;
        _connects = 0;
        _openMsSum = _slowestOpenMs = 0;
        _fastestConnectOpenMs = double.MaxValue;
        _meterStart = long.MaxValue;
        _meterEnd = 0;
        _createStart = double.MaxValue;
        _createEnd = 0;
        _afterLoss = false;
        _warmingUp = false;
        _threadPoolDelayMs = 0;
    }

    /// <summary>
    /// What one connect cost: the provider's own connect time where it has a meter; otherwise the fastest open that made
    /// a connection (callers connecting at once wait behind each other inside MySql.Data, so the others overstate it).
    /// </summary>
    private double ConnectMs(long made) => made <= 0
        ? 0
        : connects == ConnectCount.ProviderMeter ? (_createEnd - _createStart) * 1000 / made : _fastestConnectOpenMs;

    private void Judge(Verdict verdict)
    {
        Summary wave = verdict.Wave;
        double floorMs = log.Options.SlowOpenFloor.TotalMilliseconds;
        if (wave.Connects < 2 || wave.ConnectMs <= floorMs || wave.MeanOpenMs <= floorMs)
            return; // what the floor says: nothing faster is ever a finding
        if (!verdict.RanStatements)
            return; // no request: a warm-up written by hand (opened, and given back unused)

        // The thread pool ran work late while the wave connected, by its starvation threshold or by half a connect: it, not
        // the server, explains the time (the starvation detector speaks for it).
        if (wave.ThreadPoolDelayMs >= log.Options.ThreadPoolDelayThreshold.TotalMilliseconds ||
            wave.ThreadPoolDelayMs * 2 >= wave.ConnectMs)
        {
            return;
        }

        // Judged net of the thread pool's lateness, which an async connect waits for and the server did not cause.
        double netOpenMs = wave.MeanOpenMs - wave.ThreadPoolDelayMs;
        if (netOpenMs < HarmShare * (netOpenMs + verdict.MeanHeldMs))
            return; // the requests' own work was the larger part of their time
        double requestMs = wave.MeanOpenMs + verdict.MeanHeldMs;
        double share = wave.MeanOpenMs / requestMs;
        Report(wave, verdict.MeanHeldMs, requestMs, share);
    }

    private void Report(Summary wave, double heldMs, double requestMs, double share)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        double slowdown = heldMs > 0 ? requestMs / heldMs : double.PositiveInfinity;
        string cost = string.Create(c, $"the first {wave.Opens} requests took {requestMs:0} ms on average ") +
                      string.Create(c, $"where their own work took {heldMs:0} ms") +
                      (double.IsFinite(slowdown) && slowdown < 1000 ? string.Create(c, $" ({slowdown:0.0#}x)") : "") +
                      string.Create(c, $": opening was {share * 100:0} % of their time. ");
        string head = wave.AfterLoss
            ? string.Create(c, $"Reconnect wave on pool '{log.PoolName}' after connections were lost (a server restart or a failover): ") +
              cost +
              "Expected once per outage, and not a pool-size problem: every caller reconnected at once to a server that had just " +
              "come back; " +
              "where connects are this slow, a warm-up after recovery (db.WarmUpAsync) spares the first requests. "
            : string.Create(c, $"Cold start of pool '{log.PoolName}': ") + cost +
              string.Create(c, $"Warm the pool before traffic: await db.WarmUpAsync({wave.Connects}) at start-up ") +
              "(or services.AddOrseisWarmUp), and keep it warm with Min Pool Size; every new instance of the application pays this " +
              "on its first requests (a deploy, a scale-out, a restart). Its first burst found no warm connection: ";
        log.Report(FindingKind.SlowOpen,
            head + string.Create(c,
                $"{wave.Opens} open(s) made {wave.Connects} new physical connection(s) taking about {wave.ConnectMs:0.#} ms each ") +
            (connects == ConnectCount.ProviderMeter ? "(the provider's own connect time)" : "(the fastest open that made one)") +
            string.Create(c, $"; the opens took {wave.MeanOpenMs:0.#} ms on average (the slowest {wave.SlowestOpenMs:0.#} ms)."),
            new Dictionary<string, double>
            {
                ["opens"] = wave.Opens,
                ["connectingOpens"] = wave.ConnectingOpens,
                ["physicalConnects"] = wave.Connects,
                ["connectMs"] = wave.ConnectMs,
                ["meanOpenMs"] = wave.MeanOpenMs,
                ["slowestOpenMs"] = wave.SlowestOpenMs,
                ["meanHeldMs"] = heldMs,
                ["openShare"] = share,
                ["afterLoss"] = wave.AfterLoss ? 1 : 0,
            },
            null, rateLimited: true);
    }

    private readonly record struct Summary(
        int Opens, int ConnectingOpens, long Connects, double ConnectMs, double MeanOpenMs, double SlowestOpenMs, bool AfterLoss,
        double ThreadPoolDelayMs);

    /// <summary>
    /// A wave with its holds: how many, how long on average, and whether any ran a statement (a hold still out when the
    /// wave was judged is counted as one that did).
    /// </summary>
    private readonly record struct Verdict(Summary Wave, int Holds, double MeanHeldMs, bool RanStatements);
}
