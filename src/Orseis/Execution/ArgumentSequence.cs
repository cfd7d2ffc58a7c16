using System.Collections;
using System.Data.Common;
using Orseis.Mapping;

namespace Orseis.Execution;

/// <summary>
/// Recognises Dapper's execute-many: <c>Execute(sql, new[] { new { id = 1 }, new { id = 2 } })</c>, a sequence of
/// argument objects, runs the statement once per item. Anything that is one set of arguments (an object, a dictionary,
/// explicit <see cref="DbParameter"/>s) is not a sequence.
/// </summary>
internal static class ArgumentSequence
{
    /// <summary>The items when <paramref name="args"/> is a sequence of argument objects; null when it is one set of arguments.</summary>
    /// <exception cref="ArgumentException"><paramref name="args"/> is a sequence of plain values, which cannot be anyone's arguments.</exception>
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
                throw new ArgumentException($"Item {index} of the argument sequence is null; each item must be an object holding one statement's arguments.", nameof(args));
            if (ScalarTypes.IsScalar(item.GetType()) || item is string)
            {
                throw new ArgumentException(
                    $"The arguments are a sequence of {ScalarTypes.Describe(item.GetType())} values. A sequence runs the statement once per item " +
                    "and each item must be an object holding that run's arguments (new[] { new { id = 1 }, new { id = 2 } }). " +
                    "To pass a list for 'in @ids', wrap it in an object: new { ids }.", nameof(args));
            }

            items.Add(item);
            index++;
        }

        return items;
    }
}
