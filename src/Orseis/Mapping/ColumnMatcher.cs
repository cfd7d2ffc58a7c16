namespace Orseis.Mapping;

/// <summary>
/// Matches result columns to members: exact name first, then case-insensitive, then ignoring underscores
/// (<c>user_id</c> matches <c>UserId</c>). The first column wins when a result repeats a name.
/// </summary>
internal sealed class ColumnMatcher
{
    private readonly string[] _columns;

    public ColumnMatcher(string[] columns) => _columns = columns;

    public int Find(string memberName)
    {
        int found = IndexOf(memberName, static (c, m) => string.Equals(c, m, StringComparison.Ordinal));
        if (found < 0)
            found = IndexOf(memberName, static (c, m) => string.Equals(c, m, StringComparison.OrdinalIgnoreCase));
        if (found < 0)
            found = IndexOf(Normalize(memberName), static (c, m) => string.Equals(Normalize(c), m, StringComparison.OrdinalIgnoreCase));
        return found;
    }

    private int IndexOf(string name, Func<string, string, bool> equal)
    {
        for (int i = 0; i < _columns.Length; i++)
        {
            if (equal(_columns[i], name))
                return i;
        }

        return -1;
    }

    private static string Normalize(string name) => name.Replace("_", "", StringComparison.Ordinal);
}
