using System.Diagnostics;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class HeldTooLongDetectorTests
{
    [Fact]
    public void A_holder_past_the_threshold_is_reported_once_with_where_it_was_acquired()
    {
        var fake = new Fake(o => o.HeldTooLongThreshold = TimeSpan.FromSeconds(30));
        var holders = new HolderTable(fake.Time);
        var detector = new HeldTooLongDetector(fake.Log, holders);
        using var connection = new Microsoft.Data.Sqlite.SqliteConnection();
        holders.Add(connection, "session on 'pool'", heldByDesign: false, new StackTrace());
        fake.Time.Advance(TimeSpan.FromSeconds(29));
        detector.MaybeScan(force: true);
        Assert.Empty(fake.Log.Kept);

        fake.Time.Advance(TimeSpan.FromSeconds(2));
        detector.MaybeScan(force: true);
        detector.MaybeScan(force: true);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.HeldTooLong));
        Assert.Equal(31_000, finding.Figures["heldMs"], 0);
        Assert.Contains(nameof(A_holder_past_the_threshold_is_reported_once_with_where_it_was_acquired), finding.Location, StringComparison.Ordinal);
    }

    [Fact]
    public void Scans_between_checks_cost_nothing_and_a_connection_held_by_design_is_never_a_suspect()
    {
        var fake = new Fake(o => o.HeldTooLongThreshold = TimeSpan.FromSeconds(4));
        var holders = new HolderTable(fake.Time);
        var detector = new HeldTooLongDetector(fake.Log, holders);
        using var shared = new Microsoft.Data.Sqlite.SqliteConnection();
        holders.Add(shared, "the shared connection", heldByDesign: true, null);
        detector.MaybeScan();
        fake.Time.Advance(TimeSpan.FromMinutes(5));
        detector.MaybeScan();
        Assert.Empty(fake.Log.Kept);
    }
}
