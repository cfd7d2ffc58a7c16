using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// An outage is one finding, with the provider's error, from its first failed connect until a new connection is made (any
/// open that succeeds, where the provider's connects are not seen).
/// </summary>
public sealed class ServerUnavailableDetectorTests
{
    [Fact]
    public void An_outage_is_reported_once_with_its_error_and_the_next_outage_again()
    {
        var fake = new Fake();
        var detector = new ServerUnavailableDetector(fake.Log);
        detector.OnOpened();
        Assert.False(detector.InEpisode);

        for (int i = 0; i < 50; i++)
            detector.OnConnectFailed(new InvalidOperationException("Connection refused 127.0.0.1:3306"));
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ServerUnavailable));
        Assert.Contains("cannot connect", finding.Message, StringComparison.Ordinal);
        Assert.Contains("System.InvalidOperationException: Connection refused 127.0.0.1:3306", finding.Message, StringComparison.Ordinal);
        Assert.True(detector.InEpisode);

        detector.OnOpened();
        Assert.False(detector.InEpisode);
        detector.OnConnectFailed(new TimeoutException("Connect Timeout expired."));
        Assert.Equal(2, fake.Findings(FindingKind.ServerUnavailable).Count());
    }

    [Fact]
    public void An_open_handed_a_pooled_connection_does_not_end_the_outage_a_new_connection_does()
    {
        // MySqlConnector hands out an idle connection without a round trip: while its server was stopped, such opens
        // succeeded between failed connects, and each failed connect after one was reported as a new outage.
        var fake = new Fake();
        var detector = new ServerUnavailableDetector(fake.Log, ConnectCount.ProviderMeter);
        detector.OnConnectFailed(new InvalidOperationException("Connection refused 127.0.0.1:3306"));
        detector.OnOpenCompleted(Completed(fake, physicalConnects: 0));
        Assert.True(detector.InEpisode);
        detector.OnConnectFailed(new InvalidOperationException("Connection refused 127.0.0.1:3306"));
        Assert.Single(fake.Findings(FindingKind.ServerUnavailable));

        detector.OnOpenCompleted(Completed(fake, physicalConnects: 1));
        Assert.False(detector.InEpisode);

        // A provider whose connects are not seen: any open that succeeds ends it, as before.
        var unseen = new ServerUnavailableDetector(fake.Log);
        unseen.OnConnectFailed(new TimeoutException("Connect Timeout expired."));
        unseen.OnOpenCompleted(Completed(fake, physicalConnects: 0));
        Assert.False(unseen.InEpisode);
    }

    private static CompletedOpen Completed(Fake fake, long physicalConnects) =>
        new(fake.Start(demand: 1, inUse: 0), new OpenOutcome(TimeSpan.FromMilliseconds(1), physicalConnects, 0, false), fake.Now, false, TimeSpan.Zero);
}
