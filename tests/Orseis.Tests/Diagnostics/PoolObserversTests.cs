using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;
using Orseis.Tests.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// <see cref="PoolObservers"/>: which detectors a pool's options turn on, in which order each fact reaches them, which
/// facts that cost something they ask for, and that a fact goes only to the observers that implement its method.
/// </summary>
public sealed class PoolObserversTests
{
    [Fact]
    public void Every_detector_hears_only_the_facts_it_implements_in_table_order()
    {
        PoolObservers all = Make(FindingKind.All);
        PoolObservers.Steps observers = all.Traced;
        try
        {
            Assert.Equal(
                [typeof(FactRecorder), typeof(SaturationDetector), typeof(SlowOpenDetector), typeof(ColdStarts), typeof(ChurnDetector),
                 typeof(FactRecorder.ChurnSites), typeof(ServerUnavailableDetector), typeof(PoolTimeoutDetector), typeof(HeldTooLongDetector),
                 typeof(RepeatedStatementDetector), typeof(LockConflictDetector), typeof(ThreadPoolStarvationDetector), typeof(PoolSizeAdvisor)],
                Types(all.All));
            Assert.Equal(
                [typeof(FactRecorder), typeof(ColdStarts), typeof(ChurnDetector), typeof(FactRecorder.ChurnSites), typeof(RepeatedStatementDetector),
                 typeof(ThreadPoolStarvationDetector), typeof(PoolSizeAdvisor)],
                Types(observers.OpenStarting));
            Assert.Equal(
                [typeof(FactRecorder), typeof(SaturationDetector), typeof(SlowOpenDetector), typeof(ColdStarts), typeof(ChurnDetector),
                 typeof(ServerUnavailableDetector), typeof(PoolSizeAdvisor)],
                Types(observers.OpenCompleted));
            Assert.Equal(
                [typeof(FactRecorder), typeof(ColdStarts), typeof(ChurnDetector), typeof(ServerUnavailableDetector), typeof(PoolTimeoutDetector),
                 typeof(PoolSizeAdvisor)],
                Types(observers.OpenFailed));
            Assert.Equal([typeof(FactRecorder), typeof(HeldTooLongDetector)], Types(observers.Acquired));
            Assert.Equal([typeof(FactRecorder), typeof(ColdStarts), typeof(ChurnDetector), typeof(HeldTooLongDetector), typeof(PoolSizeAdvisor)],
                Types(observers.Released));
            Assert.Equal([typeof(FactRecorder), typeof(LockConflictDetector)], Types(observers.CommandFailed));
            Assert.Equal([typeof(RepeatedStatementDetector)], Types(observers.StatementStarting));
            Assert.Equal([typeof(RepeatedStatementDetector)], Types(observers.StatementEnded));
            Assert.Equal([typeof(RepeatedStatementDetector)], Types(observers.UnitEnded));
            Assert.Equal(
                CostlyFacts.Flow | CostlyFacts.FirstWave | CostlyFacts.ThreadPoolDelay | CostlyFacts.AcquirerStack | CostlyFacts.Statements,
                all.Needs);

            // While nobody traces, the steps go to the same observers without those that only write for a trace.
            PoolObservers.Steps quiet = all.Quiet;
            foreach ((PoolObserver[] traced, PoolObserver[] untraced) in new[]
            {
                (observers.OpenStarting, quiet.OpenStarting), (observers.OpenCompleted, quiet.OpenCompleted),
                (observers.OpenFailed, quiet.OpenFailed), (observers.Acquired, quiet.Acquired),
                (observers.Released, quiet.Released), (observers.CommandFailed, quiet.CommandFailed),
            })
            {
                Assert.Equal(traced.Where(o => o is not FactRecorder and not FactRecorder.ChurnSites), untraced);
            }

            Assert.Equal([typeof(HeldTooLongDetector)], Types(quiet.Acquired));
        }
        finally
        {
            foreach (IDisposable disposable in all.All.OfType<IDisposable>())
                disposable.Dispose();
        }
    }

    [Fact]
    public void Without_detectors_only_the_report_s_advice_is_kept_and_no_costly_fact_is_asked_for()
    {
        PoolObservers observers = Make(FindingKind.None);
        Assert.Equal([typeof(PoolSizeAdvisor)], Types(observers.All));
        Assert.Equal(CostlyFacts.None, observers.Needs);
    }

    [Fact]
    public void Any_detector_turns_the_saturation_count_on_and_each_asks_only_for_its_own_facts()
    {
        PoolObservers churn = Make(FindingKind.Churn);
        Assert.Equal(
            [typeof(FactRecorder), typeof(SaturationDetector), typeof(ChurnDetector), typeof(FactRecorder.ChurnSites), typeof(PoolSizeAdvisor)],
            Types(churn.All));
        Assert.Equal(CostlyFacts.Flow, churn.Needs);
        Assert.Equal(CostlyFacts.AcquirerStack, Make(FindingKind.HeldTooLong).Needs);
        Assert.Equal(CostlyFacts.FirstWave | CostlyFacts.ThreadPoolDelay, Make(FindingKind.SlowOpen).Needs);
    }

    [Fact]
    public void A_pool_whose_connects_cannot_be_known_follows_no_first_wave()
    {
        // A first wave is summed up from its physical connects: without any (SQLite, an unknown provider) it never has
        // one to report, so neither the cold-start observer nor the first-wave fact is kept.
        PoolObservers unknown = Make(FindingKind.SlowOpen, ConnectCount.None);
        Assert.Equal([typeof(FactRecorder), typeof(SaturationDetector), typeof(SlowOpenDetector), typeof(PoolSizeAdvisor)], Types(unknown.All));
        Assert.Equal(CostlyFacts.ThreadPoolDelay, unknown.Needs);
        Assert.Contains(typeof(ColdStarts), Types(Make(FindingKind.SlowOpen, ConnectCount.ProviderMeter).All));
    }

    private static PoolObservers Make(FindingKind detectors, ConnectCount connects = ConnectCount.ConnectionId)
    {
        var fake = new Fake(o => o.Detectors = detectors);
        return PoolObservers.For(new ObserverContext(fake.Log, 10, new HolderTable(fake.Time, 10), connects, null, null));
    }

    private static Type[] Types(PoolObserver[] observers) => [.. observers.Select(o => o.GetType())];
}
