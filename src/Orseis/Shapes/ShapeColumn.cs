using System.Data.Common;
using Orseis.Mapping;

namespace Orseis.Shapes;

/// <summary>One column's read, bound to its ordinal for one layout; boxed for a caller that does not know its type.</summary>
internal abstract class ShapeColumn
{
    public abstract object? ReadBoxed(DbDataReader reader);
}

/// <summary>
/// One column's read into <typeparamref name="T"/> for one layout: NULL tested (or left to the provider's typed getter),
/// a NULL into a type that cannot hold it explained, and any failure wrapped with the column, member and type, as
/// <see cref="MapperCompiler"/>'s ReadColumn does.
/// </summary>
internal sealed class ShapeColumn<T>(
    int ordinal, Func<DbDataReader, int, T> read, bool testsNull, bool acceptsNull, string? member, ITypeHandler? handler)
    : ShapeColumn
{
    public int Ordinal { get; } = ordinal;

    public T Read(DbDataReader reader)
    {
        try
        {
            if (testsNull && reader.IsDBNull(Ordinal))
                return acceptsNull ? default! : throw MappingErrors.NullColumn(reader, Ordinal, member, typeof(T));
            return read(reader, Ordinal);
        }
        catch (Exception error)
        {
            throw handler is null
                ? MappingErrors.Column(error, reader, Ordinal, member, typeof(T))
                : MappingErrors.Handler(error, reader, Ordinal, member, typeof(T), handler.GetType());
        }
    }

    public override object? ReadBoxed(DbDataReader reader) => Read(reader);
}
