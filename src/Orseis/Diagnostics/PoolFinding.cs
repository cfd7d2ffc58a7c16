using System.Globalization;

namespace Orseis.Diagnostics;

/// <summary>
/// One thing a detector noticed about a pool, with the figures it measured. Never carries row or parameter values.
/// </summary>
public sealed class PoolFinding
{
    internal PoolFinding(FindingKind kind, string poolName, string message, IReadOnlyDictionary<string, double> figures, string? location, DateTimeOffset timestamp)
    {
        Kind = kind;
        PoolName = poolName;
        Message = message;
        Figures = figures;
        Location = location;
        Timestamp = timestamp;
        HelpLink = FindingLinks.For(kind);
    }

    /// <summary>Which detector found it.</summary>
    public FindingKind Kind { get; }

    /// <summary>The pool it is about.</summary>
    public string PoolName { get; }

    /// <summary>What was found and what to do, in one readable paragraph.</summary>
    public string Message { get; }

    /// <summary>The measured figures by name (durations in milliseconds, names ending in <c>Ms</c>).</summary>
    public IReadOnlyDictionary<string, double> Figures { get; }

    /// <summary>Where in your code it happened (a call site or an acquiring stack), when the detector captured one.</summary>
    public string? Location { get; }

    /// <summary>When it was found (UTC).</summary>
    public DateTimeOffset Timestamp { get; }

    /// <summary>
    /// The page that explains this kind of finding and its cure: its section of the findings reference,
    /// <c>https://github.com/orseis/orseis/blob/main/docs/findings.md#</c> and the kind in lower case (<c>#pooltimeout</c>).
    /// The logged warning ends with it, and the <c>orseis.finding</c> span event carries it.
    /// </summary>
    public Uri HelpLink { get; }

    /// <summary>The figures as <c>name=value</c> pairs separated by semicolons (invariant culture).</summary>
    /// <returns>The figures as text.</returns>
    public string FormatFigures() =>
        string.Join(";", Figures.Select(f => f.Key + "=" + f.Value.ToString("0.###", CultureInfo.InvariantCulture)));

    /// <summary>The kind, time and message.</summary>
    /// <returns>A one-line summary.</returns>
    public override string ToString() => $"[{Kind}] {Timestamp:HH:mm:ss.fff} {Message}";
}
