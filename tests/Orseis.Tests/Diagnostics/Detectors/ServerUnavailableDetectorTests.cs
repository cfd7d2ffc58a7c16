using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>An outage is one finding, with the provider's error, from its first failed connect until an open succeeds.</summary>
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
}
