using System.Diagnostics.CodeAnalysis;
using Orseis.Mapping;

namespace Orseis;

/// <summary>
/// One row read without a type of its own: what <c>Query&lt;dynamic&gt;</c> (and every other call given <c>dynamic</c>,
/// <see cref="object"/> or <see cref="DynamicRow"/> as its row type) returns. Read a column as a member
/// (<c>row.name</c>), by name (<c>row["name"]</c>) or by position (<c>row[0]</c>); names match exactly first, then
/// ignoring case. Values are the provider's own (<see cref="Get{T}(string)"/> converts them), NULL is
/// <see langword="null"/>.
/// </summary>
/// <remarks>
/// The rows of one result share their column names: a row holds only its values. Of several columns with one name,
/// a name reaches the first (a position reaches each); an unknown name throws <see cref="KeyNotFoundException"/>
/// naming the columns. Like Dapper's rows, a row can be changed: setting a column, adding one (<c>row.extra = 1</c>, on
/// this row only) or removing one.
/// </remarks>
[SuppressMessage("Naming", "CA1710:Identifiers should have correct suffix", Justification = "A row, not a collection type.")]
public sealed partial class DynamicRow
{
    /// <summary>Stands for a column removed from this row.</summary>
    private static readonly object Removed = new();

    private RowColumns _columns;
    private object?[] _values;

    internal DynamicRow(RowColumns columns, object?[] values)
    {
        _columns = columns;
        _values = values;
    }

    /// <summary>The number of columns of the row (those removed from it are not counted).</summary>
    public int Count
    {
        get
        {
            int count = 0;
            foreach (object? value in _values)
            {
                if (!ReferenceEquals(value, Removed))
                    count++;
            }

            return count;
        }
    }

    /// <summary>The value of the column at <paramref name="index"/> (0 for the first), <see langword="null"/> for NULL.</summary>
    /// <param name="index">The column's position in the result.</param>
    /// <exception cref="ArgumentOutOfRangeException">The row has no column at <paramref name="index"/>.</exception>
    /// <exception cref="KeyNotFoundException">The column was removed from this row.</exception>
    public object? this[int index]
    {
        get => ValueAt(CheckIndex(index));
        set => _values[CheckIndex(index)] = value;
    }

    /// <summary>The value of the column named <paramref name="column"/>, <see langword="null"/> for NULL; setting a name the
    /// row does not have adds a column to this row.</summary>
    /// <param name="column">The column's name: matched exactly first, then ignoring case.</param>
    /// <exception cref="KeyNotFoundException">The row has no such column (the message names its columns).</exception>
    public object? this[string column]
    {
        get => ValueAt(IndexOrThrow(column));
        set => Set(column, value, adding: false);
    }

    /// <summary>
    /// The value of the column named <paramref name="column"/> converted to <typeparamref name="T"/> as a member of that
    /// type would be (the database's type handlers included): <see langword="null"/> (or <see langword="default"/>) for
    /// NULL where <typeparamref name="T"/> can hold it.
    /// </summary>
    /// <typeparam name="T">The type to read the value as.</typeparam>
    /// <param name="column">The column's name: matched exactly first, then ignoring case.</param>
    /// <returns>The converted value.</returns>
    /// <exception cref="KeyNotFoundException">The row has no such column.</exception>
    /// <exception cref="MappingException">
    /// The value is NULL and <typeparamref name="T"/> cannot hold it, or it does not convert.
    /// </exception>
    public T? Get<T>(string column) => Convert<T>(IndexOrThrow(column));

    /// <inheritdoc cref="Get{T}(string)"/>
    /// <param name="index">The column's position in the result (0 for the first).</param>
    /// <exception cref="ArgumentOutOfRangeException">The row has no column at <paramref name="index"/>.</exception>
    public T? Get<T>(int index) => Convert<T>(CheckIndex(index));

    /// <summary>Gets the value of the column named <paramref name="column"/>, if the row has it.</summary>
    /// <param name="column">The column's name: matched exactly first, then ignoring case.</param>
    /// <param name="value">The value (<see langword="null"/> for NULL), or <see langword="null"/> when there is no such column.</param>
    /// <returns>True when the row has the column.</returns>
    public bool TryGetValue(string column, out object? value)
    {
        ArgumentNullException.ThrowIfNull(column);
        int index = _columns.IndexOf(column);
        if (index < 0 || ReferenceEquals(_values[index], Removed))
        {
            value = null;
            return false;
        }

        value = _values[index];
        return true;
    }

    /// <summary>True when the row has a column named <paramref name="column"/> (exactly, or ignoring case).</summary>
    /// <param name="column">The column's name.</param>
    /// <returns>True when the row has it.</returns>
    public bool ContainsKey(string column) => TryGetValue(column, out _);

    /// <summary>Removes the column named <paramref name="column"/> from this row (other rows keep theirs).</summary>
    /// <param name="column">The column's name.</param>
    /// <returns>True when the row had it.</returns>
    public bool Remove(string column)
    {
        ArgumentNullException.ThrowIfNull(column);
        int index = _columns.IndexOf(column);
        if (index < 0 || ReferenceEquals(_values[index], Removed))
            return false;
        _values[index] = Removed;
        return true;
    }

    /// <summary>The columns and values, in the result's order (a duplicated column name appears once per column).</summary>
    /// <returns>An enumerator over the row's columns.</returns>
    public IEnumerator<KeyValuePair<string, object?>> GetEnumerator()
    {
        string[] names = _columns.Names;
        for (int i = 0; i < names.Length; i++)
        {
            object? value = _values[i];
            if (!ReferenceEquals(value, Removed))
                yield return new KeyValuePair<string, object?>(names[i], value);
        }
    }

    /// <summary>The columns and values, as <c>{DynamicRow id = 1, name = 'Ada', note = NULL}</c>: for debugging.</summary>
    /// <returns>The row as text.</returns>
    public override string ToString()
    {
        var text = new System.Text.StringBuilder("{DynamicRow");
        bool first = true;
        foreach (KeyValuePair<string, object?> column in this)
        {
            text.Append(first ? " " : ", ").Append(column.Key).Append(" = ");
            first = false;
            string? value = System.Convert.ToString(column.Value, System.Globalization.CultureInfo.InvariantCulture);
            text.Append(column.Value is null ? "NULL" : $"'{value}'");
        }

        return text.Append('}').ToString();
    }

    /// <summary>Sets (or adds) a column: what a dynamic member assignment calls.</summary>
    internal object? Set(string column, object? value, bool adding)
    {
        ArgumentNullException.ThrowIfNull(column);
        int index = _columns.IndexOf(column);
        if (index < 0)
        {
            // A column of this row only: the shared names are never changed.
            _columns = _columns.With(column);
            Array.Resize(ref _values, _values.Length + 1);
            index = _values.Length - 1;
        }
        else if (adding && !ReferenceEquals(_values[index], Removed))
        {
            throw new ArgumentException($"The row already has a column '{_columns.Names[index]}'.", nameof(column));
        }

        return _values[index] = value;
    }

    /// <summary>The value of a column by name: what a dynamic member read calls.</summary>
    internal object? GetByName(string column) => ValueAt(IndexOrThrow(column));

    private object? ValueAt(int index)
    {
        object? value = _values[index];
        return ReferenceEquals(value, Removed) ? throw Missing($"Column '{_columns.Names[index]}' was removed from this row.") : value;
    }

    private int IndexOrThrow(string column)
    {
        ArgumentNullException.ThrowIfNull(column);
        int index = _columns.IndexOf(column);
        return index >= 0
            ? index
            : throw Missing(
                $"The row has no column '{column}' (its columns: {_columns.Describe()}). Names match exactly, then ignoring case.");
    }

    private int CheckIndex(int index) =>
        (uint)index < (uint)_values.Length
            ? index
            : throw new ArgumentOutOfRangeException(
                nameof(index), index, $"The row has {_values.Length} columns (0 to {_values.Length - 1}).");

    private static KeyNotFoundException Missing(string message) => new(message);

    private T? Convert<T>(int index)
    {
        object? value = ValueAt(index);
        string name = _columns.Names[index];
        ITypeHandler? handler = _columns.Handlers?.For(typeof(T));
        if (value is null)
        {
            // As a member: default where T can hold NULL, or where the database keeps defaults for NULL (NullKeepsDefault).
            return default(T) is null || _columns.Handlers?.NullKeepsDefault == true
                ? default
                : throw new MappingException(
                    $"Column '{name}' is NULL in this row, but the requested type {ScalarTypes.Describe(typeof(T))} cannot hold NULL. " +
                    $"Ask for {ScalarTypes.Describe(typeof(T))}? (nullable).",
                    name, member: null);
        }

        if (handler is null && value is T typed)
            return typed;
        try
        {
            return handler is null ? ValueConverter.To<T>(value) : (T?)handler.ParseBoxed(value);
        }
        catch (Exception error) when (handler is not null || error is InvalidCastException or OverflowException or FormatException)
        {
            string how = handler is null
                ? error switch
                {
                    OverflowException => "the value is out of the type's range",
                    InvalidCastException => error.Message.TrimEnd('.'),
                    _ => "the value could not be parsed as that type",
                }
                : $"type handler {handler.GetType().Name} threw {error.GetType().Name} (the inner exception)";
            throw new MappingException(
                $"Cannot read column '{name}' (held as {value.GetType().Name}) as {ScalarTypes.Describe(typeof(T))}: {how}.",
                name, member: null, handler is null && error is FormatException ? null : error);
        }
    }
}
