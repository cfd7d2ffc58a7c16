using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// A result's column names and CLR field types: the key under which a compiled mapper is cached. Read after the first
/// row is positioned, because SQLite only knows a column's type from a value.
/// </summary>
internal sealed class Layout : IEquatable<Layout>
{
    private readonly int _hash;

    private Layout(string[] names, Type[] types)
    {
        Names = names;
        Types = types;
        var hash = new HashCode();
        for (int i = 0; i < names.Length; i++)
        {
            hash.Add(names[i], StringComparer.Ordinal);
            hash.Add(types[i]);
        }

        _hash = hash.ToHashCode();
    }

    public string[] Names { get; }

    public Type[] Types { get; }

    public static Layout Capture(DbDataReader reader, bool withNames)
    {
        int count = withNames ? reader.FieldCount : 1;
        var names = new string[count];
        var types = new Type[count];
        for (int i = 0; i < count; i++)
        {
            names[i] = withNames ? reader.GetName(i) : "";
            types[i] = reader.GetFieldType(i);
        }

        return new Layout(names, types);
    }

    /// <summary>
    /// True when <paramref name="reader"/>'s current result has this layout, checked without allocating arrays. Names
    /// are compared only when <paramref name="checkNames"/> (a provider may allocate a string per name).
    /// </summary>
    public bool Matches(DbDataReader reader, bool checkNames)
    {
        bool scalar = Names.Length == 1 && Names[0].Length == 0;
        if (!scalar && reader.FieldCount != Names.Length)
            return false;
        for (int i = 0; i < Types.Length; i++)
        {
            if (reader.GetFieldType(i) != Types[i] || (checkNames && !scalar && !string.Equals(reader.GetName(i), Names[i], StringComparison.Ordinal)))
                return false;
        }

        return true;
    }

    public bool Equals(Layout? other) =>
        other is not null && _hash == other._hash && Names.AsSpan().SequenceEqual(other.Names) && Types.AsSpan().SequenceEqual(other.Types);

    public override bool Equals(object? obj) => Equals(obj as Layout);

    public override int GetHashCode() => _hash;
}
