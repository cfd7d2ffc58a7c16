using System.Data.Common;
using Orseis.Execution;

namespace Orseis.Mapping;

/// <summary>
/// A result's column names and CLR field types: the key under which a compiled mapper is cached. Read after the first
/// row is positioned, because SQLite only knows a column's type from a value.
/// </summary>
internal sealed class Layout : IEquatable<Layout>
{
    private readonly int _hash;

    private Layout(Type readerType, string[] names, Type[] types)
    {
        ReaderType = readerType;
        Names = names;
        Types = types;
        var hash = new HashCode();
        hash.Add(readerType);
        for (int i = 0; i < names.Length; i++)
        {
            hash.Add(names[i], StringComparer.Ordinal);
            hash.Add(types[i]);
        }

        _hash = hash.ToHashCode();
    }

    /// <summary>The provider's reader type: a mapper compiled for one provider is never used for another's reader.</summary>
    public Type ReaderType { get; }

    /// <summary>
    /// True when this provider's typed getters (GetInt32, GetDateTime, …) throw on NULL, as Microsoft.Data.Sqlite and
    /// Npgsql do (tested): mappers then skip their own IsDBNull test for members that cannot hold NULL and explain the
    /// NULL only when a getter fails. Other providers are tested for NULL before every such read.
    /// </summary>
    public bool ProviderRefusesNull => ProviderInfo.TypedGettersRefuseNull(ReaderType);

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

        return new Layout(reader.GetType(), names, types);
    }

    /// <summary>
    /// True when <paramref name="reader"/>'s current result has this layout, checked without allocating arrays. Names
    /// are compared only when <paramref name="checkNames"/> (a provider may allocate a string per name).
    /// </summary>
    public bool Matches(DbDataReader reader, bool checkNames)
    {
        if (reader.GetType() != ReaderType)
            return false;
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
        other is not null && _hash == other._hash && ReaderType == other.ReaderType && Names.AsSpan().SequenceEqual(other.Names) && Types.AsSpan().SequenceEqual(other.Types);

    public override bool Equals(object? obj) => Equals(obj as Layout);

    public override int GetHashCode() => _hash;
}
