using System.Collections;
using System.Data.Common;
using Orseis.Mapping;

namespace Orseis.Execution.Binding;

/// <summary>
/// Recognises Dapper's execute-many: <c>Execute(sql, new[] { new { id = 1 }, new { id = 2 } })</c>, a sequence of
/// argument objects, runs the statement once per item. Anything that is one set of arguments (an object, a dictionary,
/// explicit <see cref="DbParameter"/>s) is not a sequence.
/// </summary>
internal static class ArgumentSequence
{
    /// <summary>The items when <paramref name="args"/> is a sequence of argument objects; null when it is one set of arguments.</summary>
    /// <exception cref="ArgumentException"><paramref name="args"/> is a sequence of plain values, which cannot be anyone's
    /// arguments.</exception>
    public static List<object>? Items(object? args)
    {
        if (args is null or string or byte[] or ParameterList or DbParameter or IEnumerable<DbParameter> or IDictionary
            or IEnumerable<KeyValuePair<string, object?>> || args is not IEnumerable sequence)
        {
            return null;
        }

        var items = new List<object>();
        int index = 0;
        foreach (object? item in sequence)
        {
            if (item is null)
                throw HotPathErrors.NullArgumentItem(index);
            if (ScalarTypes.IsScalar(item.GetType()) || item is string)
                throw HotPathErrors.ScalarArgumentItems(ScalarTypes.Describe(item.GetType()));

            items.Add(item);
            index++;
        }

        return items;
    }
}
