using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class ConnectWavesTests
{
    [Fact]
    public void Opens_begun_before_a_waves_first_connect_completed_are_in_it_and_failed_connects_begin_a_new_wave()
    {
        var waves = new ConnectWaves();
        Assert.False(waves.After(100)); // nothing connected yet: the first wave
        waves.Connected(200);
        waves.Connected(300); // only the first connect ends the wave
        Assert.False(waves.After(150)); // begun before the first connect completed
        Assert.True(waves.After(250));

        waves.ConnectionsLost(); // a server restart: every caller reconnects at once
        Assert.False(waves.After(400));
        waves.Connected(500);
        Assert.False(waves.After(450));
        Assert.True(waves.After(600));
    }
}
