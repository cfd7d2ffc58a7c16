using System.ComponentModel;
using System.Data.Common;

namespace Orseis.Shapes;

/// <summary>
/// For generated code: the values of one row for a constructor or a value tuple, read on demand by position. A generated
/// factory is <c>static a =&gt; new User(a.Get&lt;long&gt;(0), a.Get&lt;string&gt;(1))</c>.
/// </summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public readonly struct RowArguments
{
    private readonly DbDataReader _reader;
    private readonly ShapeColumn[] _columns;

    internal RowArguments(DbDataReader reader, ShapeColumn[] columns)
    {
        _reader = reader;
        _columns = columns;
    }

    /// <summary>The value for parameter or element <paramref name="index"/>, read from its column.</summary>
    /// <typeparam name="T">The parameter's or element's type, as its <see cref="ShapeValue"/> declared it.</typeparam>
    /// <param name="index">The parameter's or element's position.</param>
    /// <returns>The value.</returns>
    public T Get<T>(int index) => ((ShapeColumn<T>)_columns[index]).Read(_reader);
}
