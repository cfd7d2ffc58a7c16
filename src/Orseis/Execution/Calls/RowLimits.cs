namespace Orseis.Execution.Calls;

/// <summary>
/// The rules of a <see cref="RowLimit"/> and their messages, once for the calls (<c>SqlRunner.RowBody</c>) and the grids
/// (<c>GridReader.ReadRowAsync</c>).
/// </summary>
internal static class RowLimits
{
    /// <summary>Whether no row is an error (First, Single) rather than <see langword="default"/>.</summary>
    public static bool NeedsRow(this RowLimit limit) => limit is RowLimit.First or RowLimit.Single;

    /// <summary>Whether a second row is an error (Single, SingleOrDefault); First reads no further.</summary>
    public static bool AtMostOne(this RowLimit limit) => limit is RowLimit.Single or RowLimit.SingleOrDefault;

    /// <summary>The error of no row, for <paramref name="call"/> ("Query" or "Read") over <paramref name="source"/>.</summary>
    public static InvalidOperationException NoRow(this RowLimit limit, string call, string source) =>
        new($"{call}{limit} expected a row, but {source} none.");

    /// <summary>The error of a second row, for <paramref name="call"/> ("Query" or "Read") over <paramref name="source"/>.</summary>
    public static InvalidOperationException MoreThanOne(this RowLimit limit, string call, string source) =>
        new($"{call}{limit} expected at most one row, but {source} more than one.");
}
