using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// A result's column names and CLR field types: the key under which a compiled mapper is cached. Read after the first
/// row is positioned, because SQLite only knows a column's type from a value.
/// </summary>
internal sealed class Layout : IEquatable<Layout>
{
    [ThreadStatic]
    private static Type[]? _threadTypes;

    private readonly int _hash;

    private Layout(Type readerType, string[] names, Type[] types, TypeHandlerSet? handlers)
    {
        ReaderType = readerType;
        Names = names;
        Types = types;
        Handlers = handlers;
        var hash = new HashCode();
        hash.Add(readerType);
        hash.Add(handlers);
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
    public bool ProviderRefusesNull => ProviderTraits.For(ReaderType).TypedGettersRefuseNull;

    public string[] Names { get; }

    public Type[] Types { get; }

    /// <summary>The type handlers the mapper compiled for this layout embeds (part of the key, by reference); null for none.</summary>
    public TypeHandlerSet? Handlers { get; }

    /// <summary>The database's <see cref="OrseisOptions.NullKeepsDefault"/>, which the mapper compiled for this layout follows.</summary>
    public bool NullKeepsDefault => Handlers?.NullKeepsDefault == true;

    public static Layout Capture(DbDataReader reader, bool withNames, TypeHandlerSet? handlers = null)
    {
        int count = withNames ? reader.FieldCount : 1;
        var names = new string[count];
        var types = new Type[count];
        for (int i = 0; i < count; i++)
        {
            names[i] = withNames ? reader.GetName(i) : "";
            types[i] = reader.GetFieldType(i);
        }

        return new Layout(reader.GetType(), names, types, handlers);
    }

    /// <summary>The <paramref name="count"/> columns from <paramref name="start"/>: one type's part of a multi-mapped row.</summary>
    public Layout Slice(int start, int count) =>
        new(ReaderType, Names.AsSpan(start, count).ToArray(), Types.AsSpan(start, count).ToArray(), Handlers);

    /// <summary>
    /// Reads the field types of <paramref name="reader"/>'s current row into a buffer of this thread (valid until the
    /// next call on this thread), so several cached layouts can be compared without asking the provider again.
    /// </summary>
    public static Type[] ReadTypes(DbDataReader reader, int count)
    {
        Type[] types = _threadTypes is { } buffer && buffer.Length >= count ? buffer : _threadTypes = new Type[Math.Max(count, 16)];
        Span<Type> span = types.AsSpan(0, count); // stores through a span skip the per-element array covariance check
        for (int i = 0; i < span.Length; i++)
            span[i] = reader.GetFieldType(i);
        return types;
    }

    /// <summary>True when this layout is for <paramref name="readerType"/> and its types are the first <paramref name="count"/> of
    /// <paramref name="types"/>.</summary>
    public bool MatchesTypes(Type readerType, Type[] types, int count)
    {
        Type[] own = Types;
        if (readerType != ReaderType || count != own.Length || types.Length < count)
            return false;
        for (int i = 0; i < own.Length; i++)
        {
            if (types[i] != own[i])
                return false;
        }

        return true;
    }

    /// <summary>True when <paramref name="reader"/>'s column names are this layout's (a provider may allocate a string per name).</summary>
    public bool MatchesNames(DbDataReader reader)
    {
        for (int i = 0; i < Names.Length; i++)
        {
            if (!string.Equals(reader.GetName(i), Names[i], StringComparison.Ordinal))
                return false;
        }

        return true;
    }

    public bool Equals(Layout? other) =>
        other is not null && _hash == other._hash && ReaderType == other.ReaderType && ReferenceEquals(Handlers, other.Handlers) &&
        Names.AsSpan().SequenceEqual(other.Names) && Types.AsSpan().SequenceEqual(other.Types);

    public override bool Equals(object? obj) => Equals(obj as Layout);

    public override int GetHashCode() => _hash;
}
