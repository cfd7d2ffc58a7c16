using System.Data.Common;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Repeated statement: one statement text with arguments run at least <see cref="DiagnosticsOptions.RepeatedStatementThreshold"/>
/// times one after another (none overlapping) within one unit of work: a <see cref="ConnectionScope"/> (a request under
/// <c>UseOrseisScopes</c>), else the caller's flow, where a pause longer than
/// <see cref="DiagnosticsOptions.RepeatedStatementGap"/> ends the unit. With different arguments it is an N+1 candidate (one statement for
/// the list, a join, <c>QueryMultiple</c> would save the round trips); with the same ones each time, a cache candidate.
/// </summary>
/// <remarks>
/// <para>Silent on what only looks like it: a statement without arguments (a poll, a probe: nothing varies per item),
/// an execute-many (one call, already batched), a paging loop (a statement with <c>OFFSET</c>, <c>FETCH</c>, or a
/// <c>LIMIT</c>/<c>TOP</c> other than 1), the same statement in concurrent requests (each scope or flow is its own unit),
/// a retry (failed runs do not count), runs that overlap, and fewer runs than the threshold.</para>
/// <para>Each run costs a hash of its argument values (never kept) and a few field updates on the unit's
/// <see cref="StatementRepeats"/>. A candidate is reported when its streak ends (the scope ends, in the scope's flow and
/// so on the request's span; without a scope, once the gap passes: a 100 ms timer that runs only while a candidate
/// waits), or after a second if it is still running, once per streak and at most once per
/// <see cref="DiagnosticsOptions.FindingInterval"/> for the pool. Its call site is read at the start of the run that
/// makes it a candidate (an async call's end no longer has the caller's frames).</para>
/// </remarks>
internal sealed class RepeatedStatementDetector : PoolObserver, IDisposable
{
    private static readonly TimeSpan Tick = TimeSpan.FromMilliseconds(100);
    private static int _sitesWanted;

    private readonly FindingLog _log;
    private readonly int _threshold;
    private readonly long _gap;
    private readonly long _longRun;
    private readonly double _msPerTimestamp;
    private readonly Lock _lock = new();
    private readonly List<StatementRepeats> _listed = [];
    private readonly StatementRepeats?[] _flowUnits = new StatementRepeats?[32];
    private ITimer? _timer;
    private bool _ticking;
    private bool _disposed;

    public RepeatedStatementDetector(FindingLog log)
    {
        _log = log;
        _threshold = log.Options.RepeatedStatementThreshold;
        double perTick = log.Time.TimestampFrequency / (double)TimeSpan.TicksPerSecond;
        _gap = (long)Math.Floor(log.Options.RepeatedStatementGap.Ticks * perTick);
        _longRun = (long)Math.Round(StillRunningAfter.Ticks * perTick);
        _msPerTimestamp = 1000.0 / log.Time.TimestampFrequency;
    }

    /// <summary>
    /// How long a candidate runs before it is reported while still running: a second. The instruction gate
    /// (benchmarks/Orseis.InstructionCount), whose calls run about 50 times slower under valgrind, stretches it through
    /// the <see cref="AppContext"/> data <c>Orseis.RepeatedStatementStillRunning</c> (a <see cref="TimeSpan"/>), so the
    /// report falls in its warm-up as it would at full speed, not inside the calls it counts. Read as a detector is made.
    /// </summary>
    internal static TimeSpan StillRunningAfter =>
        AppContext.GetData("Orseis.RepeatedStatementStillRunning") is TimeSpan stretched && stretched > TimeSpan.Zero
            ? stretched
            : TimeSpan.FromSeconds(1);

    /// <summary>Whether some unit of some pool wants the call site of its candidate: only then do starts look for it.</summary>
    public static bool SitesWanted => Volatile.Read(ref _sitesWanted) != 0;

    public override HeardFacts Hears =>
        HeardFacts.OpenStarting | HeardFacts.StatementStarting | HeardFacts.StatementEnded | HeardFacts.UnitEnded;

    /// <summary>An open of a flow whose candidate wants its call site: the site is on this stack (a statement run after
    /// an open that completed later is not).</summary>
    public override void OnOpenStarting(in OpenStart start)
    {
        if (start.Flow is not { Repeats: { } repeats } flow || !repeats.OwnedBy(flow))
            return;
        repeats.LastOpenStart = start.Started; // the call began here: its open's time is no pause of the flow
        if (SitesWanted && repeats.WantedSite is not null)
            repeats.PendingSite = CallSites.Caller();
    }

    /// <summary>A statement starts on the caller's stack (heard only while a site is wanted).</summary>
    public override void OnStatementStarting(in StatementStart start)
    {
        if (start.Repeats is { WantedSite: { } wanted } repeats && string.Equals(wanted, start.Sql, StringComparison.Ordinal) &&
            CallSites.Caller() is { } site)
        {
            repeats.PendingSite = site;
        }
    }

    public override void OnStatementEnded(in StatementRun run) =>
        Ended(run.Sql, run.Command, run.Scope, run.Flow, run.Started, run.Ended, run.Succeeded);

    /// <summary>
    /// <see cref="OnStatementEnded"/> given the fact's parts: the telemetry calls it directly while this detector is the only
    /// observer of statements, without building the fact. <paramref name="scope"/> is the statement's scope, else
    /// <paramref name="flow"/> its flow (else it ran in no unit of work); <paramref name="started"/> and
    /// <paramref name="ended"/> are timestamps of the pool's clock. <paramref name="print"/> is the arguments' hash and count as
    /// the binder took them, when it did (the same hash <see cref="ArgumentHash.Of"/> reads from the command).
    /// </summary>
    public void Ended(
        string sql, DbCommand command, ScopeSlot? scope, FlowState? flow, long started, long ended, bool succeeded,
        ArgumentPrint print = default)
    {
        int arguments = print.Count;
        int hash = print.Taken ? (int)print.Hash : ArgumentHash.Of(command, out arguments);
        if (arguments == 0)
            return; // a poll or a probe: nothing varies per item
        Ran(sql, scope, flow, started, ended, succeeded, hash);
    }

    /// <summary>
    /// A run of a statement with arguments (their hash <paramref name="hash"/>) ended: <see cref="Ended"/> once the hash is
    /// known, and what the telemetry calls for a statement whose print the binder took
    /// (<see cref="PoolTelemetry.StatementCompleted"/>, which inlines it). The steady case (a streak under way, nothing to
    /// decide at this run: <see cref="TryCount"/>) is a few field updates here; anything else is <see cref="Heard"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Ran(string sql, ScopeSlot? scope, FlowState? flow, long started, long ended, bool succeeded, int hash)
    {
        // The unit's repetition state, made (or lent, a flow's) on its first statement; none for a statement in no unit, or
        // in a scope that already ended. A flow's own unit, the usual case, is checked in place.
        StatementRepeats? unit = scope is not null ? StatementRepeats.Of(scope)
            : flow is null ? null
            : flow.Repeats is { } own && own.OwnedBy(flow) ? own
            : StatementRepeats.ForFlow(flow, _flowUnits, ended, _gap);
        if (unit is null || !unit.TryEnter())
            return;
        if (!unit.OwnedBy((object?)scope ?? flow) || (succeeded && TryCount(unit, sql, started, ended, hash)))
        {
            // Given to another flow meanwhile (not counted), or counted: neither can throw.
            unit.Exit();
            return;
        }

        HeardHeld(unit, sql, started, ended, succeeded, hash);
    }

    /// <summary><see cref="Heard"/> on a unit the caller holds (<see cref="StatementRepeats.TryEnter"/>), which it leaves.</summary>
    private void HeardHeld(StatementRepeats unit, string sql, long started, long ended, bool succeeded, int hash)
    {
        try
        {
            Heard(unit, sql, started, ended, succeeded, hash);
        }
        finally
        {
            unit.Exit();
        }
    }

    /// <summary>
    /// <see cref="Heard"/> for a successful run when it decides nothing: the text's streak is under way in this unit (found
    /// by reference), the run follows it (no pause past the gap, no overlap), no call site waits to be taken, and the run
    /// neither makes the streak a candidate, nor asks for its site, nor reports it. Then it does exactly what
    /// <see cref="Heard"/> would (the unit's last end, then the streak's count and last end when it is done, else
    /// <see cref="Streak.AddLater"/>), and returns true; false, having changed nothing, for <see cref="Heard"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryCount(StatementRepeats unit, string sql, long started, long ended, int hash)
    {
        int slot = unit.FollowedSlot(sql);
        if (slot < 0 || unit.PendingSite is not null)
            return false;
        ref Streak streak = ref unit.At(slot);
        long last = streak.LastEnd;
        long lastOpen = unit.LastOpenStart;
        long began = lastOpen > last && lastOpen < started ? lastOpen : started;
        if (streak.Count == 0 || (!unit.Scoped && began - last > _gap) || started < last)
            return false;
        if (streak.Done)
        {
            Volatile.Write(ref unit.LastEnd, ended);
            streak.Count++;
            streak.LastEnd = ended;
            return true;
        }

        int count = streak.Count + 1; // after this run
        if (count <= 2 || count == _threshold - 1 || count == _threshold || streak.Detail is not { } detail ||
            (streak.Open && ended - streak.FirstStart >= _longRun))
        {
            return false;
        }

        Volatile.Write(ref unit.LastEnd, ended);
        streak.AddLater(detail, hash, started, ended, (ended - started) * _msPerTimestamp);
        return true;
    }

    /// <summary>The scope <paramref name="unit"/> belonged to ended: its candidates are reported now, in its flow.</summary>
    public override void OnUnitEnded(StatementRepeats unit)
    {
        if (!unit.TryEnter())
            return;
        try
        {
            for (int i = 0; i < StatementRepeats.Kept; i++)
            {
                ref Streak streak = ref unit.At(i);
                if (streak.Open)
                    Report(unit, ref streak, running: false, inFlow: true);
                streak.Clear();
            }

            ForgetSite(unit);
            if (unit.Listed)
            {
                lock (_lock)
                {
                    unit.Listed = false;
                    _listed.Remove(unit);
                }
            }
        }
        finally
        {
            unit.Exit();
        }

        StatementRepeats.Return(unit); // a scope's unit serves the next scope
    }

    /// <summary>
    /// A run of <paramref name="sql"/> in <paramref name="unit"/>, which the caller holds (<see cref="StatementRepeats.TryEnter"/>)
    /// and which belongs to the run's scope or flow: every case, the steady one (<see cref="TryCount"/>) included. Internal
    /// for the tests that compare <see cref="Ran"/> with it run by run.
    /// </summary>
    internal void Heard(StatementRepeats unit, string sql, long started, long ended, bool succeeded, int hash)
    {
        Volatile.Write(ref unit.LastEnd, ended);
        int slot = unit.SlotOf(sql);
        if (slot < 0)
            return;
        ref Streak streak = ref unit.At(slot);
        long began = unit.LastOpenStart > streak.LastEnd && unit.LastOpenStart < started ? unit.LastOpenStart : started;
        if (streak.Count > 0 && ((!unit.Scoped && began - streak.LastEnd > _gap) || started < streak.LastEnd))
        {
            // A pause of a flow without a scope (or runs at the same time): the streak ended before this run. A scope is
            // the unit of work whatever its pauses: its streaks end with it.
            if (streak.Open)
                Report(unit, ref streak, running: false, inFlow: false);
            if (ReferenceEquals(unit.WantedSite, streak.Sql))
                ForgetSite(unit);
            streak.Restart(streak.Sql);
        }

        if (unit.PendingSite is { } pending)
        {
            if (ReferenceEquals(unit.WantedSite, streak.Sql))
            {
                streak.Site = pending;
                ForgetSite(unit);
            }

            unit.PendingSite = null;
        }

        if (!succeeded)
            return; // a retry's failed attempt is no repeat
        if (streak.Done)
        {
            // Reported (or a paging loop): nothing of its figures is read again before it ends and restarts, which needs
            // only its count and its last end. No hash bit, run time or busy sum is kept for it.
            streak.Count++;
            streak.LastEnd = ended;
            return;
        }

        streak.Add(hash, started, ended, (ended - started) * _msPerTimestamp);
        if (streak.Count == _threshold - 1 && streak.Site is null && unit.WantedSite is null)
        {
            // The next run makes it a candidate: its start (on the caller's stack, unlike an async call's end) reads the site.
            unit.WantedSite = streak.Sql;
            Interlocked.Increment(ref _sitesWanted);
        }

        if (streak.Count == _threshold && !streak.Done)
        {
            if (SqlWords.Pages(streak.Sql!))
            {
                streak.Done = true; // a paging loop: each run reads the next page
                return;
            }

            streak.Open = true;
            streak.Site ??= CallSites.Caller(); // a sync call's stack still has the caller; an async one's does not
            if (streak.Site is not null && ReferenceEquals(unit.WantedSite, streak.Sql))
            {
                ForgetSite(unit);
            }
            else if (streak.Site is null && unit.WantedSite is null)
            {
                unit.WantedSite = streak.Sql;
                Interlocked.Increment(ref _sitesWanted);
            }

            if (!unit.Listed)
                List(unit);
        }
        else if (streak.Open && ended - streak.FirstStart >= _longRun)
        {
            Report(unit, ref streak, running: true, inFlow: true);
        }
    }

    private static void ForgetSite(StatementRepeats unit)
    {
        if (unit.WantedSite is not null)
        {
            unit.WantedSite = null;
            Interlocked.Decrement(ref _sitesWanted);
        }

        unit.PendingSite = null;
    }

    /// <summary>Puts <paramref name="unit"/> in the list the timer checks for streaks that ended.</summary>
    private void List(StatementRepeats unit)
    {
        lock (_lock)
        {
            if (_disposed || unit.Listed)
                return;
            unit.Listed = true;
            _listed.Add(unit);
            if (!_ticking)
            {
                _ticking = true;
                (_timer ??= _log.Time.CreateTimer(static s => ((RepeatedStatementDetector)s!).Check(), this, Tick, Tick))
                    .Change(Tick, Tick);
            }
        }
    }

    /// <summary>The timer: reports the listed candidates whose streak ended (no run within the gap) or has run a second.</summary>
    internal void Check()
    {
        StatementRepeats[] units;
        lock (_lock)
            units = [.. _listed];
        long now = _log.Time.GetTimestamp();
        foreach (StatementRepeats unit in units)
        {
            if (!unit.TryEnter())
                continue;
            bool open = false;
            try
            {
                for (int i = 0; i < StatementRepeats.Kept; i++)
                {
                    ref Streak streak = ref unit.At(i);
                    if (!streak.Open)
                        continue;
                    if (!unit.Scoped && now - streak.LastEnd > _gap)
                        Report(unit, ref streak, running: false, inFlow: false);
                    else if (now - streak.FirstStart >= _longRun)
                        Report(unit, ref streak, running: true, inFlow: false);
                    else
                        open = true;
                }
            }
            finally
            {
                unit.Exit();
            }

            if (!open)
            {
                lock (_lock)
                {
                    unit.Listed = false;
                    _listed.Remove(unit);
                }
            }
        }

        lock (_lock)
        {
            if (_listed.Count == 0 && _ticking && !_disposed)
            {
                _ticking = false;
                _timer?.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
            }
        }
    }

    private void Report(StatementRepeats unit, ref Streak streak, bool running, bool inFlow)
    {
        streak.Open = false;
        streak.Done = true;
        if (ReferenceEquals(unit.WantedSite, streak.Sql))
            ForgetSite(unit);
        int runs = streak.Count;
        int distinct = streak.DistinctArguments();
        double busyMs = streak.Busy * _msPerTimestamp;
        double spanMs = (streak.LastEnd - streak.FirstStart) * _msPerTimestamp;
        double medianMs = streak.MedianMs();
        double savedMs = (runs - 1) * medianMs;
        CultureInfo c = CultureInfo.InvariantCulture;
        string where = unit.Scoped ? "in one scope" : "on one flow (no scope)";
        string count = running ? $"has run {runs} times so far" : $"ran {runs} times";
        string site = streak.Site is null ? "" : $" from {streak.Site}";
        string statement = _log.Options.CaptureCommandText ? $" Statement: {Shorten(streak.Sql!)}" : "";
        string message = distinct == 1
            ? string.Create(c,
                $"Cache candidate: one statement {count} one after another {where} of pool '{_log.PoolName}'{site}, " +
                $"with the same arguments each time, taking {busyMs:0.###} ms of {spanMs:0.###} ms. ") +
              "Reading it once for the unit of work (or caching its result) " +
              Saving(runs, savedMs, medianMs) +
              statement
            : string.Create(c,
                $"N+1 candidate: one statement {count} one after another {where} of pool '{_log.PoolName}'{site}, " +
                $"with {distinct} distinct argument sets, taking {busyMs:0.###} ms of {spanMs:0.###} ms. ") +
              (SqlWords.Writes(streak.Sql!)
                  ? "One execute-many for all of them (db.Execute(sql, items): batched where the provider can) "
                  : "One statement for all of them (a list: where id in {ids}), a join read with multi-mapping, or QueryMultiple ") +
              Saving(runs, savedMs, medianMs) +
              statement;
        _log.Report(FindingKind.RepeatedStatement, message, new Dictionary<string, double>
        {
            ["runs"] = runs,
            ["distinctArguments"] = distinct,
            ["busyMs"] = busyMs,
            ["spanMs"] = spanMs,
            ["medianMs"] = medianMs,
            ["savedMs"] = savedMs,
            ["scoped"] = unit.Scoped ? 1 : 0,
            ["running"] = running ? 1 : 0,
        }, streak.Site, rateLimited: true, ofThisFlow: inFlow);
    }

    private static string Saving(int runs, double savedMs, double medianMs) => string.Create(CultureInfo.InvariantCulture,
        $"would save {runs - 1} round trips, about {savedMs:0.###} ms at the measured median of {medianMs:0.###} ms.");

    private static string Shorten(string sql) => sql.Length <= 200 ? sql : string.Concat(sql.AsSpan(0, 200), "...");

    public void Dispose()
    {
        lock (_lock)
        {
            _disposed = true;
            _ticking = false;
            _listed.Clear();
        }

        _timer?.Dispose();
    }
}
