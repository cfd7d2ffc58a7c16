using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// A first wave of connects that was slow: the pool's first burst (every new instance of an app after a deploy, a
/// scale-out or a restart), or every caller reconnecting at once after connections were lost (a server restart, a
/// failover). The slow-open detector never judges a first wave as a cold pool; this one sums it up once it is over (its
/// last open completed) and reports it when its physical connects took longer than twice
/// <see cref="DiagnosticsOptions.SlowOpenFloor"/> each (200 ms by default): how many, how long, what the waiting callers paid, and the cure
/// (a warm-up before traffic). Fast connects cost nothing worth a finding, and are not reported.
/// </summary>
internal sealed class ColdStarts(FindingLog log, ConnectCount connects) : PoolObserver
{
    private readonly Lock _lock = new();
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

    /// <summary>
    /// Set on the flow of a warm-up (<see cref="Database.WarmUpAsync"/>) while it opens: a wave that a warm-up's opens
    /// belong to is the cure, not a cold start, and is not reported. Read only for a first wave's opens.
    /// </summary>
    public static AsyncLocal<bool> InWarmUp { get; } = new();

    public override void OnOpenStarting(in OpenStart start)
    {
        if (start.FirstWave)
            OnFirstWaveOpenStarting(start.AfterLoss);
    }

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        if (open.Start.FirstWave)
            OnFirstWaveOpenCompleted(open.Start, open.Outcome, open.ThreadPoolDelay);
    }

    public override void OnOpenFailed(in FailedOpen open)
    {
        if (open.Start.FirstWave)
            OnFirstWaveOpenCompleted(open.Start, null);
    }

    /// <summary>A first-wave open began; <paramref name="afterLoss"/> when its wave began because connections were lost.</summary>
    public void OnFirstWaveOpenStarting(bool afterLoss)
    {
        lock (_lock)
        {
            _inFlight++;
            _afterLoss |= afterLoss;
            _warmingUp |= InWarmUp.Value;
        }
    }

    /// <summary>
    /// A first-wave open that began with <paramref name="start"/> completed, or failed (<paramref name="outcome"/> null); the
    /// wave is judged when none is left. With a provider meter, the wave's connects and their time are the meter's totals
    /// from the wave's first open to its last (each open's own figures count every connect made while it ran).
    /// </summary>
    /// <param name="start">How the open began.</param>
    /// <param name="outcome">How it ended; null when it failed.</param>
    /// <param name="threadPoolDelay">How late the thread pool ran work while it ran: an async connect waits that long for its
    /// continuations, and the provider counts it in its connect time.</param>
    public void OnFirstWaveOpenCompleted(in OpenStart start, in OpenOutcome? outcome, TimeSpan threadPoolDelay = default)
    {
        Summary? done = null;
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
            }

            if (--_inFlight > 0)
                return;
            if (_opens > 0 && !_warmingUp)
            {
                long made = connects == ConnectCount.ProviderMeter ? Math.Max(0, _meterEnd - _meterStart) : _connects;
                done = new Summary(
                    _opens, _connectingOpens, made, ConnectMs(made), _openMsSum / _opens, _slowestOpenMs, _afterLoss, _threadPoolDelayMs);
            }

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

        if (done is { } wave)
            Judge(wave);
    }

    /// <summary>
    /// What one connect cost: the provider's own connect time where it has a meter; otherwise the fastest open that made
    /// a connection (callers connecting at once wait behind each other inside MySql.Data, so the others overstate it).
    /// </summary>
    private double ConnectMs(long made) => made <= 0
        ? 0
        : connects == ConnectCount.ProviderMeter ? (_createEnd - _createStart) * 1000 / made : _fastestConnectOpenMs;

    private void Judge(Summary wave)
    {
        // Twice the floor: a burst of parallel handshakes on a busy client stretches even fast connects past it (the
        // detector suite measured 60 loopback connects at 111 ms each beside a CPU hog, 5 to 20 ms without).
        double barMs = 2 * log.Options.SlowOpenFloor.TotalMilliseconds;
        if (wave.Connects < 2 || wave.ConnectMs <= barMs || wave.MeanOpenMs <= barMs)
            return;

        // The thread pool ran work late while the wave connected, by its starvation threshold or by half a connect: it, not
        // the server, explains the time (the starvation detector speaks for it).
        if (wave.ThreadPoolDelayMs >= log.Options.ThreadPoolDelayThreshold.TotalMilliseconds ||
            wave.ThreadPoolDelayMs * 2 >= wave.ConnectMs)
        {
            return;
        }
        CultureInfo c = CultureInfo.InvariantCulture;
        string what = wave.AfterLoss
            ? string.Create(c, $"Reconnect wave on pool '{log.PoolName}': after connections were lost (a server restart or a failover), ") +
              string.Create(c, $"{wave.Opens} ")
            : string.Create(c, $"Cold start of pool '{log.PoolName}': its first burst found no warm connection, and {wave.Opens} ");
        string cure = wave.AfterLoss
            ? "Every caller reconnected at once to a server that had just come back: expected once per outage, " +
              "and not a pool-size problem. " +
              "Where connects are this slow, a warm-up after recovery (db.WarmUpAsync) spares the first requests."
            : "Every new instance of the application pays this on its first requests (a deploy, a scale-out, a restart). " +
              string.Create(c, $"Warm the pool before traffic: await db.WarmUpAsync({wave.Connects}) at start-up ") +
              "(or services.AddOrseisWarmUp), " +
              "and keep it warm with Min Pool Size.";
        log.Report(FindingKind.SlowOpen,
            what + string.Create(c,
                $"open(s) made {wave.Connects} new physical connection(s) taking about {wave.ConnectMs:0.#} ms each ") +
            (connects == ConnectCount.ProviderMeter ? "(the provider's own connect time)" : "(the fastest open that made one)") +
            string.Create(c, $"; the opens took {wave.MeanOpenMs:0.#} ms on average (the slowest {wave.SlowestOpenMs:0.#} ms), ") +
            "paid by each waiting request on top of its own work. " + cure,
            new Dictionary<string, double>
            {
                ["opens"] = wave.Opens,
                ["connectingOpens"] = wave.ConnectingOpens,
                ["physicalConnects"] = wave.Connects,
                ["connectMs"] = wave.ConnectMs,
                ["meanOpenMs"] = wave.MeanOpenMs,
                ["slowestOpenMs"] = wave.SlowestOpenMs,
                ["afterLoss"] = wave.AfterLoss ? 1 : 0,
            },
            null, rateLimited: true);
    }

    private readonly record struct Summary(
        int Opens, int ConnectingOpens, long Connects, double ConnectMs, double MeanOpenMs, double SlowestOpenMs, bool AfterLoss,
        double ThreadPoolDelayMs);
}
