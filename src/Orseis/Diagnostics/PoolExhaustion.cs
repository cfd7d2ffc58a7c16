using System.Globalization;

namespace Orseis.Diagnostics;

/// <summary>
/// Turns a provider's open timeout (a wait for a pooled connection, or a connect that never completed) into one
/// <see cref="PoolExhaustedException"/> with the same message for both, telling apart a pool full of <b>held</b>
/// connections (callers keep them) from one whose free slots were taken by <b>connects in progress</b> (the server did
/// not complete new connections: down, overloaded, or packets dropped). Whatever the detectors: this is what the caller
/// is told. The <see cref="Detectors.PoolTimeoutDetector"/> reports it as a finding too.
/// </summary>
internal static class PoolExhaustion
{
    /// <summary>
    /// The exception for <paramref name="error"/>, a timeout of <paramref name="kind"/> on pool <paramref name="poolName"/>:
    /// <paramref name="held"/> connections were held by calls, <paramref name="parked"/> more were parked in connection scopes
    /// between their calls (taken from the pool all the same), <paramref name="waiting"/> callers were inside Open (this one
    /// included), the provider counted <paramref name="idle"/> idle; <paramref name="longest"/> is the longest current holder;
    /// <paramref name="lost"/> says whether the server completed other connects while this one's timed out (then it was lost
    /// on the way, not unanswered: <see cref="Detectors.ConnectsAnswered"/>).
    /// </summary>
    public static PoolExhaustedException Explain(
        Exception error, OpenTimeout kind, string poolName, int? maxPoolSize, int held, int parked, int waiting, long? idle,
        (TimeSpan? Held, string? Where) longest, LostConnect lost = default)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        parked = Math.Max(0, parked);
        int taken = held + parked;
        int connecting = maxPoolSize is { } max ? Math.Clamp(max - taken - (int)Math.Max(0, idle ?? 0), 0, waiting) : 0;
        string what = kind == OpenTimeout.Connect
            ? "the provider timed out making a new connection"
            : "the provider timed out waiting for a free connection";
        string parkedNow = parked > 0 ? string.Create(c, $"{parked} more were parked in connection scopes, ") : "";
        string snapshot = string.Create(c,
            $"Pool '{poolName}' gave no connection in time ({what}). At that moment callers held {held} connection(s), {parkedNow}" +
            $"{waiting} caller(s) were inside Open, Max Pool Size is {maxPoolSize?.ToString(c) ?? "unknown"}.");
        string cause;
        if (maxPoolSize is { } full && taken >= full && parked > 0)
        {
            cause = string.Create(c,
                $" Every connection was taken: {held} held by calls and {parked} parked in connection scopes, kept between a " +
                $"scope's calls until the scope ends or sits idle for ScopeIdleWindow. ") +
                "End scopes as soon as their work is done (dispose them; a request scope ends with its request), shorten " +
                "ScopeIdleWindow, raise Max Pool Size, or lower concurrency; the server is not the cause." + Holder(longest);
        }
        else if (maxPoolSize is { } m && taken >= m)
        {
            cause = " Every connection was held by callers: the pool is exhausted. " +
                    "Return connections sooner (dispose sessions and streams), raise Max Pool Size, or lower concurrency." +
                    Holder(longest);
        }
        else if (maxPoolSize is not null)
        {
            string alsoParked = parked > 0 ? string.Create(c, $", {parked} parked in connection scopes,") : "";
            cause = string.Create(c,
                $" The pool was not full of held connections: {held} of {maxPoolSize} were held{alsoParked} and about {connecting} " +
                $"open(s) were making new connections that did not complete. ") +
                (lost.IsLost
                    ? LostOnTheWay(lost)
                    : "The server is not answering new connections (down, overloaded, or the network drops packets): " +
                      "check the server and the network; raising Max Pool Size will not help.");
        }
        else if (lost.IsLost)
        {
            cause = " " + LostOnTheWay(lost);
        }
        else
        {
            cause = " Max Pool Size is unknown, so held connections cannot be told from connects that did not complete." + Holder(longest);
        }

        return new PoolExhaustedException(
            snapshot + cause, error, poolName, held, waiting, maxPoolSize, longest.Held, longest.Where, connecting, parked);
    }

    /// <summary>A connect that timed out while the server completed others: lost on the way, most likely at its listen queue.</summary>
    private static string LostOnTheWay(LostConnect lost) =>
        BurstCure + string.Create(CultureInfo.InvariantCulture,
            $" The server is up: it completed {lost.Answered} other connect(s) while this one waited, the latest ") +
        string.Create(CultureInfo.InvariantCulture, $"{lost.LatestAfter.TotalSeconds:0.0} s after it began, so this connect was ") +
        "most likely lost at its listen queue (more connects arriving at once than it queues), and the client waited for an " +
        "answer until its Connect Timeout.";

    /// <summary>The cure for connects lost at the server's listen queue (this exception's and the pool-timeout finding's).</summary>
    internal const string BurstCure =
        "Let bursts of new connections reach the server a few at a time: warm the pool before traffic with db.WarmUpAsync at " +
        "start-up (it connects eight at a time), make the first burst smaller, or let the server queue more connects at once " +
        "(MariaDB's and MySQL's back_log, PostgreSQL's listen backlog, the kernel's net.core.somaxconn); raising Max Pool Size " +
        "will not help.";

    private static string Holder((TimeSpan? Held, string? Where) longest) => longest.Held is { } h
        ? string.Create(CultureInfo.InvariantCulture, $" The longest current holder has had its connection for {h.TotalSeconds:0.###} s") +
          (longest.Where is null ? "." : $", acquired at:{Environment.NewLine}{longest.Where}")
        : "";
}

/// <summary>
/// Whether a connect that timed out was lost on the way: how many other connects to the same server completed while it
/// waited (0: none, or not known: detectors off) and how long after it began the latest did
/// (<see cref="Detectors.ConnectsAnswered.Lost"/>).
/// </summary>
internal readonly record struct LostConnect(int Answered, TimeSpan LatestAfter)
{
    /// <summary>Whether the connect was lost on the way: the server completed others while it waited.</summary>
    public bool IsLost => Answered > 0;
}
