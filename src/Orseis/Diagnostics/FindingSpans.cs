using System.Diagnostics;

namespace Orseis.Diagnostics;

/// <summary>
/// A finding as an event on the span of the call that raised it, where APM users look: an <see cref="ActivityEvent"/>
/// named <see cref="EventName"/> with the kind, the message, the help link, the pool and one tag per figure. Only for a
/// finding raised in the flow of the call (or session) it is about (<see cref="FindingLog.Report"/>'s
/// <c>ofThisFlow</c>): then the current activity is that call's. Orseis' own pool-wait span
/// (<see cref="CallSpans.OpenName"/>) gives way to the call or session span above it; with no Orseis span current (the
/// call was not sampled, or a session's connection is released after its span ended) the event goes on the
/// application's current span (an ASP.NET Core request's), the work that caused it. A span that is not recording gets
/// nothing, and nothing is allocated for it.
/// </summary>
internal static class FindingSpans
{
    /// <summary>The event's name.</summary>
    public const string EventName = "orseis.finding";

    /// <summary>The tag prefix: <c>orseis.finding.kind</c>, <c>.message</c>, <c>.help_link</c>, and one per figure.</summary>
    public const string Prefix = "orseis.finding.";

    /// <summary>Adds <paramref name="finding"/> to the span it belongs on, if that span records.</summary>
    public static void Attach(PoolFinding finding)
    {
        if (SpanOf(Activity.Current) is not { } span)
            return;
        var tags = new ActivityTagsCollection
        {
            [Prefix + "kind"] = finding.Kind.ToString(),
            [Prefix + "message"] = finding.Message,
            [Prefix + "help_link"] = finding.HelpLink.AbsoluteUri,
            ["db.client.connection.pool.name"] = finding.PoolName,
        };
        foreach ((string name, double value) in finding.Figures)
            tags[Prefix + name] = value;
        span.AddEvent(new ActivityEvent(EventName, tags: tags));
    }

    /// <summary>
    /// The span a finding raised under <paramref name="current"/> goes on: the call or session above Orseis' pool-wait
    /// span, else <paramref name="current"/>; null when it is not recording or already ended.
    /// </summary>
    public static Activity? SpanOf(Activity? current)
    {
        if (current is null || current.IsStopped)
            return null;
        if (ReferenceEquals(current.Source, OrseisActivitySource.Source) && current.OperationName == CallSpans.OpenName &&
            current.Parent is { IsStopped: false, IsAllDataRequested: true } parent &&
            ReferenceEquals(parent.Source, OrseisActivitySource.Source))
        {
            return parent;
        }

        return current.IsAllDataRequested ? current : null;
    }
}
