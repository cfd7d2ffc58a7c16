using System.Collections;
using System.Diagnostics.CodeAnalysis;

namespace Orseis;

// The dictionary views of a row, as Dapper's rows offer them: IDictionary<string, object?> (changes reach the row) and
// IReadOnlyDictionary<string, object?>.
public sealed partial class DynamicRow : IDictionary<string, object?>, IReadOnlyDictionary<string, object?>
{
    /// <summary>The column names, in order (removed ones left out; a duplicated name once per column).</summary>
    public ICollection<string> Keys => [.. this.Select(column => column.Key)];

    /// <summary>The values, in column order (removed ones left out).</summary>
    public ICollection<object?> Values => [.. this.Select(column => column.Value)];

    IEnumerable<string> IReadOnlyDictionary<string, object?>.Keys => Keys;

    IEnumerable<object?> IReadOnlyDictionary<string, object?>.Values => Values;

    bool ICollection<KeyValuePair<string, object?>>.IsReadOnly => false;

    /// <summary>Adds a column to this row (other rows are not changed).</summary>
    /// <param name="key">The new column's name.</param>
    /// <param name="value">Its value.</param>
    /// <exception cref="ArgumentException">The row already has a column of that name.</exception>
    public void Add(string key, object? value) => Set(key, value, adding: true);

    void ICollection<KeyValuePair<string, object?>>.Add(KeyValuePair<string, object?> item) => Add(item.Key, item.Value);

    void ICollection<KeyValuePair<string, object?>>.Clear()
    {
        for (int i = 0; i < _values.Length; i++)
            _values[i] = Removed;
    }

    bool ICollection<KeyValuePair<string, object?>>.Contains(KeyValuePair<string, object?> item) =>
        TryGetValue(item.Key, out object? value) && Equals(value, item.Value);

    void ICollection<KeyValuePair<string, object?>>.CopyTo(KeyValuePair<string, object?>[] array, int arrayIndex)
    {
        ArgumentNullException.ThrowIfNull(array);
        foreach (KeyValuePair<string, object?> column in this)
            array[arrayIndex++] = column;
    }

    bool ICollection<KeyValuePair<string, object?>>.Remove(KeyValuePair<string, object?> item) =>
        ((ICollection<KeyValuePair<string, object?>>)this).Contains(item) && Remove(item.Key);

    bool IReadOnlyDictionary<string, object?>.TryGetValue(string key, [MaybeNullWhen(false)] out object? value) =>
        TryGetValue(key, out value);

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
