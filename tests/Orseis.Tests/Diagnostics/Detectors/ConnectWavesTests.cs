using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

[Collection(DiagnosticsCollection.Name)] // one test starts a process-wide MeterListener
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

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void A_command_that_found_its_connection_broken_begins_a_new_wave_with_or_without_a_listener(bool listening)
    {
        // The detectors run without any listener; a broken connection is a lost one whether or not the command was timed.
        // A pool whose connects are known (MySQL's connection ids): where none can be, no first wave is followed at all.
        var fake = new Fake(o => o.Detectors = FindingKind.SlowOpen);
        using var telemetry = new PoolTelemetry("pool", "mysql", 5, fake.Options);
        using var meters = listening ? new System.Diagnostics.Metrics.MeterListener() : null;
        if (meters is not null)
        {
            meters.InstrumentPublished = (instrument, l) => l.EnableMeasurementEvents(instrument);
            meters.Start();
        }

        Assert.False(telemetry.OpenStarting(async: true).AfterLoss);
        long started = telemetry.CommandStarting("select 1");
        Assert.Equal(listening, started != 0);
        telemetry.CommandCompleted(started, succeeded: false, new ConnectionBrokenException("broken", false, false, null));
        Assert.True(telemetry.OpenStarting(async: true).AfterLoss);
    }
}
