using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>The pool-size advice as the report's line.</summary>
internal sealed partial class PoolSizeAdvisor
{
    /// <summary>The advice as the report's line: the measured figures, then what to do with Max Pool Size, if anything.</summary>
    private string Line(Advice a)
    {
        var c = CultureInfo.InvariantCulture;
        string measured = Measured(a);
        if (a.Starved)
        {
            return measured + "; no advice: the thread pool starved while this load ran, so its throughput measured the threads, " +
                   "not what the load needs (see the ThreadPoolStarvation finding)";
        }

        string law = string.Create(c, $"{measured} -> {a.Recommended}");
        if (a.Raise)
        {
            return law + string.Create(c, $"; {a.QueuedOpens} open(s) queued: ") + Between(a) +
                   string.Create(c, $"raise Max Pool Size from {maxPoolSize} to {a.Recommended}");
        }
        if (a is { CpuBound: true, HeldUp: { } bound, CpuBusy: { } cpu })
        {
            string limit = law +
                string.Create(c, $"; {a.QueuedOpens} open(s) queued, but while they did the releases kept only {bound:P0} of ") +
                string.Create(c, $"Max Pool Size {maxPoolSize} busy at the uncontended hold and the CPUs were {cpu:P0} busy: ") +
                "the CPU is the limit, not the pool: more connections add no CPU and lengthen the holds, though a larger " +
                "pool can still pass more, or less, by what the queue itself and the server's extra connections cost; ";
            return a.Recommended > maxPoolSize
                ? limit + string.Create(c, $"the pool is already half or more of the {a.Recommended} callers that wanted a ") +
                  "connection at once, so the queue is the part a larger pool removes: " +
                  string.Create(c, $"raise Max Pool Size from {maxPoolSize} to {a.Recommended}, the size at which none queues, ") +
                  "and cut the CPU each call costs, or add CPU"
                : limit + string.Create(c, $"keep Max Pool Size at {maxPoolSize} and cut the CPU each call costs, or add CPU");
        }

        if (a is { HeldUp: { } waited, CpuBusy: { } busyCpus, CpuPerRelease: ({ } perRelease, var need) })
        {
            return law + string.Create(c, $"; {a.QueuedOpens} open(s) queued; while they did the releases kept only {waited:P0} of ") +
                   string.Create(c, $"Max Pool Size {maxPoolSize} busy at the uncontended hold and the CPUs were {busyCpus:P0} busy, ") +
                   string.Create(c, $"but this process spent {perRelease.TotalMilliseconds:0.###} ms of CPU per release ") +
                   string.Create(c, $"of the {need.TotalMilliseconds:0.###} ms a connection needs: the connections mostly wait ") +
                   "(on the server, or on CPUs other work takes), and more of them may pass more; " +
                   string.Create(c, $"{a.Recommended} is what the callers wanted at once, the size at which none queues");
        }

        if (a.HeldUp is { } share)
        {
            return law + string.Create(c, $"; {a.QueuedOpens} open(s) queued, but while they did the releases kept only {share:P0} of ") +
                   string.Create(c, $"Max Pool Size {maxPoolSize} busy at the uncontended hold: ") +
                   "connections were held longer than they need " +
                   "(the server or the thread pool saturated, the CPUs not busy), so a larger pool may pass little more; " +
                   string.Create(c, $"{a.Recommended} is what the callers wanted at once, ") +
                   "the size at which none queues and the only one sure not to pass less; " +
                   "shorten what runs while one is held";
        }

        if (a.Lower)
        {
            return law + string.Create(c, $"; Max Pool Size {maxPoolSize} is more than this load uses: {a.Recommended} would do ") +
                   "(a smaller cap protects the server when load spikes)";
        }

        return law;
    }

    /// <summary>
    /// What a raise is judged on: the connections kept busy while callers queued (the releases then, at the uncontended hold,
    /// and the holds under way), of Max Pool Size; empty when not worked out.
    /// </summary>
    private string Evidence(Advice a) =>
        a.BetweenHolds is not null
            ? Between(a)
            : a.QueuedBusy is { } busy && maxPoolSize is { } cap
            ? "while callers queued, the releases and the holds under way kept " +
              string.Create(CultureInfo.InvariantCulture, $"{busy:0.##} of ") +
              string.Create(CultureInfo.InvariantCulture, $"{cap} connections busy ({busy / cap:P0}): the pool held them up; ")
            : "";

    /// <summary>
    /// Why a pool the releases kept short of busy is raised (<see cref="Advice.BetweenHolds"/>): the holds were not
    /// stretched, or stretched but taking under <see cref="FreeBetween"/> of the pool on CPUs other work kept busy, and this
    /// process spent little CPU on each release, so the rest went between holds, waiting; empty otherwise.
    /// </summary>
    private string Between(Advice a)
    {
        if (a.BetweenHolds is not var (median, uncontended, cpu, need) || a.QueuedBusy is not { } busy || maxPoolSize is not { } cap)
            return "";
        var c = CultureInfo.InvariantCulture;
        string holds = median.Ticks <= uncontended.Ticks * Stretch
            ? string.Create(c, $"but the holds were not longer than they need (median {median.TotalMilliseconds:0.###} ms, ") +
              string.Create(c, $"uncontended {uncontended.TotalMilliseconds:0.###} ms) ")
            : string.Create(c, $"and the holds were stretched (median {median.TotalMilliseconds:0.###} ms, ") +
              string.Create(c, $"uncontended {uncontended.TotalMilliseconds:0.###} ms), but even at their own length they took only ") +
              string.Create(c, $"{a.Taken:P0} of the pool: its connections sat free the rest of the time, the CPUs {a.CpuBusy:P0} busy ");
        return string.Create(c, $"while callers queued, the releases and the holds under way kept {busy:0.##} of {cap} ") +
               string.Create(c, $"connections busy ({busy / cap:P0}), ") + holds +
               string.Create(c, $"and this process spent {cpu.TotalMilliseconds:0.###} ms of CPU per release ") +
               string.Create(c, $"of the {need.TotalMilliseconds:0.###} ms a connection needs: the rest went between holds ") +
               "(handing a connection over, the provider's reset inside Open, the woken caller run late), waiting, and more " +
               "connections overlap more of it; ";
    }

    /// <summary>Where the advised size comes from: Little's law with spare connections, or the callers' demand (the larger).</summary>
    private static string Reason(Advice a, int sized) =>
        a.Recommended > sized ? "the callers' demand: the size at which none queues"
        : a.Recommended < sized ? "the most callers that wanted a connection at once: more are never taken"
        : "Little's law's size";

    /// <summary>Little's law as measured: the throughput times every moment a connection is taken per release, by part.</summary>
    private static string Measured(Advice a)
    {
        var c = CultureInfo.InvariantCulture;
        string perSecond = string.Create(c, $"{a.PerSecond:0.##} releases/s x ");
        string hold = string.Create(c, $"{a.Hold.TotalMilliseconds:0.###} ms held");
        string busy = string.Create(c, $" = {a.Busy:0.##} busy");
        if (!a.InOpen.Measured)
            return perSecond + hold + " (mean; time inside Open not measured: every open waited for the pool)" + busy;
        string inOpen = string.Create(c, $"{a.InOpen.Time.TotalMilliseconds:0.###} ms inside Open with a connection taken ") +
                        "(the provider's: its reset or checks)";
        return perSecond + "(" + inOpen + " + " + hold + ", means)" + busy;
    }
}
