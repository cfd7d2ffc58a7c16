namespace Orseis.Diagnostics;

/// <summary>
/// Where each kind of finding is explained: <c>docs/findings.md</c>, one heading per kind, its anchor the kind's name in
/// lower case (<c>#pooltimeout</c>). The links are made once per kind.
/// </summary>
internal static class FindingLinks
{
    /// <summary>The findings page; a kind's section is this plus <c>#</c> and the kind in lower case.</summary>
    public const string Page = "https://github.com/orseis/orseis/blob/main/docs/findings.md";

    private static readonly Uri[] Links = Build();

    /// <summary>
    /// The section of <paramref name="kind"/>: one detector's kind, never <see cref="FindingKind.None"/>,
    /// <see cref="FindingKind.All"/> or a combination.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="kind"/> is not one detector's kind.</exception>
    public static Uri For(FindingKind kind)
    {
        if (!IsOneKind(kind))
        {
            throw new ArgumentOutOfRangeException(
                nameof(kind),
                kind,
                $"A finding's help link is for one detector's kind (such as {nameof(FindingKind.PoolTimeout)}), not '{kind}'.");
        }

        return Links[System.Numerics.BitOperations.TrailingZeroCount((int)kind)];
    }

    /// <summary>
    /// The section of a kind named as the EventSource's <c>Finding</c> event names it (<c>PoolTimeout</c>); null for a
    /// name that is no kind this version knows.
    /// </summary>
    public static Uri? For(string kind) =>
        Enum.TryParse(kind, ignoreCase: false, out FindingKind parsed) && IsOneKind(parsed) && parsed.ToString() == kind
            ? For(parsed)
            : null;

    /// <summary>The links by the kind's bit (the index of <see cref="FindingLog"/>'s counts).</summary>
    private static Uri[] Build()
    {
        var links = new Uri[32];
        foreach (FindingKind kind in Enum.GetValues<FindingKind>().Where(IsOneKind))
            links[System.Numerics.BitOperations.TrailingZeroCount((int)kind)] = new Uri(Page + "#" + kind.ToString().ToLowerInvariant());
        return links;
    }

    private static bool IsOneKind(FindingKind kind) =>
        kind is not FindingKind.None && System.Numerics.BitOperations.IsPow2((int)kind) && Enum.IsDefined(kind);
}
