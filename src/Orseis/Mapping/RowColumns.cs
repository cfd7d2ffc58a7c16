namespace Orseis.Mapping;

/// <summary>
/// The column names of one result, shared by every <see cref="DynamicRow"/> read from it (built once per column layout
/// and cached with its mapper), with the database's type handlers for <see cref="DynamicRow.Get{T}(string)"/>.
/// A name is found by its exact spelling first, then ignoring case; of several columns with one name, the first wins.
/// </summary>
internal sealed class RowColumns
{
    /// <summary>Up to this many columns a name is found by a scan, with no dictionary.</summary>
    private const int ScanLimit = 8;

    private readonly Dictionary<string, int>? _exact;
    private readonly Dictionary<string, int>? _ignoringCase;

    public RowColumns(string[] names, TypeHandlerSet? handlers)
    {
        Names = names;
        Handlers = handlers;
        if (names.Length > ScanLimit)
        {
            _exact = new Dictionary<string, int>(names.Length, StringComparer.Ordinal);
            _ignoringCase = new Dictionary<string, int>(names.Length, StringComparer.OrdinalIgnoreCase);
            for (int i = 0; i < names.Length; i++)
            {
                _exact.TryAdd(names[i], i);
                _ignoringCase.TryAdd(names[i], i);
            }
        }
    }

    public string[] Names { get; }

    public TypeHandlerSet? Handlers { get; }

    /// <summary>The index of the column named <paramref name="name"/>, or -1.</summary>
    public int IndexOf(string name)
    {
        if (_exact is not null)
        {
            return _exact.TryGetValue(name, out int index) || _ignoringCase!.TryGetValue(name, out index) ? index : -1;
        }

        string[] names = Names;
        for (int i = 0; i < names.Length; i++)
        {
            if (string.Equals(names[i], name, StringComparison.Ordinal))
                return i;
        }

        for (int i = 0; i < names.Length; i++)
        {
            if (string.Equals(names[i], name, StringComparison.OrdinalIgnoreCase))
                return i;
        }

        return -1;
    }

    /// <summary>These columns and one more, for a row that was given a column of its own (the shared columns stay as they are).</summary>
    public RowColumns With(string name) => new([.. Names, name], Handlers);

    /// <summary>The names for a message: names are not values, so they may be shown.</summary>
    public string Describe() => Names.Length == 0 ? "none" : string.Join(", ", Names.Select(n => n.Length == 0 ? "''" : n));
}
