using Microsoft.Extensions.Time.Testing;

namespace Orseis.Tests.Execution;

/// <summary>
/// Which sweep gives a database's parked connections back (<see cref="ParkSweep.For"/>): on the system clock one sweep per
/// idle window, shared by every database with that window, whichever window was asked for first; on any other clock a
/// sweep of its own.
/// </summary>
public sealed class ParkSweepForTests
{
    [Fact]
    public void On_the_system_clock_each_window_has_one_sweep_whatever_order_the_windows_come_in()
    {
        // The test process's databases asked for windows already (the default 2 ms first): these come after it.
        TimeSpan standard = TimeSpan.FromMilliseconds(2);
        TimeSpan longer = TimeSpan.FromMilliseconds(7.25);
        TimeSpan other = TimeSpan.FromMilliseconds(9.5);

        ParkSweep first = ParkSweep.For(TimeProvider.System, standard);
        ParkSweep second = ParkSweep.For(TimeProvider.System, longer);
        ParkSweep third = ParkSweep.For(TimeProvider.System, other);

        Assert.Equal(standard, first.Period);
        Assert.Equal(longer, second.Period);
        Assert.Equal(other, third.Period);
        Assert.Same(TimeProvider.System, second.Time);
        Assert.Same(first, ParkSweep.For(TimeProvider.System, standard));
        Assert.Same(second, ParkSweep.For(TimeProvider.System, longer));
        Assert.Same(third, ParkSweep.For(TimeProvider.System, other));
        Assert.Equal(3, new[] { first, second, third }.Distinct().Count());
    }

    [Fact]
    public void Threads_asking_at_once_for_a_new_window_all_get_the_same_sweep()
    {
        for (int round = 0; round < 20; round++)
        {
            TimeSpan window = TimeSpan.FromMilliseconds(3) + TimeSpan.FromTicks(round + 1); // a window no one asked for yet
            const int Threads = 16;
            var sweeps = new ParkSweep[Threads];
            using var start = new Barrier(Threads);
            Thread[] running = [.. Enumerable.Range(0, Threads).Select(i => new Thread(() =>
            {
                start.SignalAndWait();
                sweeps[i] = ParkSweep.For(TimeProvider.System, window);
            }))];
            foreach (Thread thread in running)
                thread.Start();
            foreach (Thread thread in running)
                thread.Join();

            ParkSweep one = Assert.Single(sweeps.Distinct());
            Assert.Equal(window, one.Period);
            Assert.Same(one, ParkSweep.For(TimeProvider.System, window));
        }
    }

    [Fact]
    public void Another_clock_gets_a_sweep_of_its_own_every_time()
    {
        var time = new FakeTimeProvider();
        TimeSpan window = TimeSpan.FromMilliseconds(2);

        ParkSweep one = ParkSweep.For(time, window);
        ParkSweep two = ParkSweep.For(time, window);

        Assert.NotSame(one, two);
        Assert.Same(time, one.Time);
        Assert.Equal(window, two.Period);
        Assert.NotSame(ParkSweep.For(TimeProvider.System, window), one);
    }
}
