using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>Open-per-call loops on one flow: churn, whatever call form the loop uses. The onset is the loop's first call.</summary>
internal static class ChurnScenarios
{
    public static IEnumerable<Scenario> All()
    {
        yield return Scenario.Pathology("churn-sync-loop", "300 sequential Scalar calls, open-per-call", FindingKind.Churn, "back to back", run =>
        {
            Database db = run.Open();
            run.MarkOnset();
            for (int i = 0; i < 300; i++)
                db.Scalar<long>("select 1");
            return Task.CompletedTask;
        });

        yield return Scenario.Pathology("churn-async-single-first", "300 sequential QuerySingleAsync / QueryFirstAsync calls, open-per-call", FindingKind.Churn, "back to back", async run =>
        {
            Database db = run.Open();
            run.MarkOnset();
            for (int i = 0; i < 150; i++)
            {
                await db.QuerySingleAsync<long>("select 1");
                await db.QueryFirstAsync<long>("select 1");
            }
        });
    }
}
