using System.Data;
using System.Data.Common;
using Orseis.Mapping;

namespace Orseis;

/// <summary>
/// Arguments given one by one, with what an object cannot say: a direction (output, input-output, return value), a
/// <see cref="DbType"/>, a size, and the <see cref="System.Data.CommandType"/> of the call. Pass it as the <c>args</c>
/// of any call; outputs are read back when the call completes and read with <see cref="Get{T}(string)"/>.
/// </summary>
/// <remarks>
/// A buffered call (<c>Execute</c>, <c>Query</c>, <c>Scalar</c>…) has its outputs when it returns. A stream has them once
/// it is finished, a <see cref="GridReader"/> once its last result set is read, because providers send output values
/// after the last result set. <see cref="Output{T}"/> writes an output to an object's member at that moment. One
/// <see cref="ParameterBag"/> serves one call at a time; it can be reused for the next call.
/// </remarks>
/// <example>
/// <code>
/// var p = new ParameterBag { CommandType = CommandType.StoredProcedure }
///     .Add("p_id", 7)
///     .Add("p_name", direction: ParameterDirection.Output, dbType: DbType.String, size: 100);
/// db.Execute("get_name", p);
/// string? name = p.Get&lt;string&gt;("p_name");
/// </code>
/// </example>
public sealed partial class ParameterBag
{
    private readonly List<Entry> _entries = [];
    private TypeHandlerSet? _handlers;
    private bool _ran;
    private Exception? _outputFailed;

    /// <summary>
    /// How the call's text is read: <see cref="CommandType.Text"/> (the default: SQL with <c>@name</c> parameters) or
    /// <see cref="CommandType.StoredProcedure"/> (the text is a procedure's name and every parameter is sent by its name).
    /// </summary>
    public CommandType CommandType { get; set; } = CommandType.Text;

    /// <summary>Adds a parameter.</summary>
    /// <param name="name">Its name, with or without the <c>@</c>; for a procedure, the procedure's parameter name.</param>
    /// <param name="value">The value sent (ignored by providers for <see cref="ParameterDirection.Output"/> and
    /// <see cref="ParameterDirection.ReturnValue"/>).</param>
    /// <param name="dbType">The database type, when the value alone does not say it (an output's type, a NULL).</param>
    /// <param name="direction">Input (the default), output, input-output, or the procedure's return value.</param>
    /// <param name="size">The size of a variable-length output (characters or bytes); null for the provider's default.</param>
    /// <returns>This object, for chaining.</returns>
    /// <exception cref="ArgumentException">The name is empty or already added.</exception>
    public ParameterBag Add(string name, object? value = null, DbType? dbType = null, ParameterDirection direction = ParameterDirection.Input, int? size = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        string bare = Bare(name);
        if (bare.Length == 0)
            throw new ArgumentException($"Parameter name '{name}' has nothing after its prefix.", nameof(name));
        if (Find(bare) is not null)
            throw new ArgumentException($"Parameter '{bare}' was already added to this ParameterBag.", nameof(name));
        if (!Enum.IsDefined(direction))
            throw new ArgumentException($"Parameter '{bare}' has the undefined direction {(int)direction}.", nameof(direction));
        _entries.Add(new Entry(bare, value, dbType, direction, size));
        return this;
    }

    private void AddEntry(Entry entry)
    {
        if (Find(entry.Name) is not null)
            throw new ArgumentException($"Parameter '{entry.Name}' was already added to this ParameterBag.", nameof(entry));
        _entries.Add(entry);
    }

    /// <summary>The value of a parameter: for an output, input-output or return value, as read back after the call; for an input, the value
    /// given.</summary>
    /// <typeparam name="T">The type wanted; converted as a column would be (type handlers included). Ask for a nullable type when NULL is
    /// possible.</typeparam>
    /// <param name="name">The parameter's name, with or without the <c>@</c>.</param>
    /// <returns>The value; <see langword="default"/> for NULL when <typeparamref name="T"/> can hold it.</returns>
    /// <exception cref="ArgumentException">No parameter of that name was added.</exception>
    /// <exception cref="InvalidOperationException">The parameter is an output and no call has completed with these parameters yet; or it is
    /// NULL and <typeparamref name="T"/> cannot hold NULL; or it cannot convert.</exception>
    public T? Get<T>(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        Entry entry = Find(Bare(name)) ?? throw new ArgumentException(
            $"No parameter '{Bare(name)}' was added to this ParameterBag (added: {(_entries.Count == 0 ? "none" : string.Join(", ", _entries.Select(e => e.Name)))}).", nameof(name));
        object? value = entry.Value;
        if (entry.Direction != ParameterDirection.Input)
        {
            if (!_ran)
            {
                throw new InvalidOperationException(
                    $"Parameter '{entry.Name}' ({entry.Direction}) has no value yet: outputs are read back when a call with this ParameterBag completes " +
                    "(for a stream or a GridReader, once it is finished or disposed).");
            }

            value = entry.Result;
        }

        return Convert<T>(entry, value);
    }

    private T? Convert<T>(Entry entry, object? value)
    {
        if (value is null or DBNull)
        {
            return default(T) is null
                ? default
                : throw new InvalidOperationException($"Parameter '{entry.Name}' is NULL, but {ScalarTypes.Describe(typeof(T))} cannot hold NULL; ask for {typeof(T).Name}?.");
        }

        ITypeHandler? handler = _handlers?.For(typeof(T));
        try
        {
            if (handler is not null)
                return (T?)handler.ParseBoxed(value);
            return value is T typed ? typed : ValueConverter.To<T>(value);
        }
        catch (Exception error) when (handler is not null || error is InvalidCastException or OverflowException or FormatException)
        {
            string how = handler is null ? error.GetType().Name : $"type handler {handler.GetType().Name} threw {error.GetType().Name}";
            throw new InvalidOperationException(
                $"Parameter '{entry.Name}' (a {value.GetType().Name}) cannot be read as {ScalarTypes.Describe(typeof(T))}: {how} (the inner exception).", error);
        }
    }

    /// <summary>
    /// True when a call with these parameters needs a command of its own (outputs to read back, or not plain text), never a batch's.
    /// </summary>
    internal bool NeedsOwnCommand => CommandType != CommandType.Text || _entries.Exists(e => e.Direction != ParameterDirection.Input);

    /// <summary>Adds these parameters to <paramref name="command"/>, sets its command type and returns the text to run.</summary>
    internal string Bind(DbCommand command, string sql, TypeHandlerSet? handlers, HashSet<string>? literal = null)
    {
        _ran = false;
        _outputFailed = null;
        _handlers = handlers;
        bool text = CommandType == CommandType.Text;
        SqlDialect dialect = ProviderTraits.Of(command).Dialect;
        foreach (Entry entry in _entries)
        {
            entry.Parameter = null;
            entry.Result = null;
            if (text && entry is { Direction: ParameterDirection.Input, DbType: null, Size: null })
            {
                // As a dictionary's entry: spelled as the SQL spells it, lists expanded, left out when the SQL does not use it.
                sql = ParameterBinder.Add(command, sql, entry.Name, entry.Value, handlers, literal);
                continue;
            }

            string name = text ? SqlNames.FindSpelling(sql, entry.Name, dialect, out _) ?? entry.Name : entry.Name;
            object? value = entry.Member is { } member
                ? entry.Direction == ParameterDirection.InputOutput ? member.Read(entry.Target!, entry.Name) : null
                : entry.Value;
            DbParameter parameter = ParameterBinder.Create(command, name, value, handlers);
            SetDirection(parameter, entry);
            if (entry.DbType is { } dbType)
                parameter.DbType = dbType;
            if (entry.Size is { } size)
                parameter.Size = size;
            command.Parameters.Add(parameter);
            entry.Parameter = parameter;
        }

        if (command.CommandType != CommandType)
            command.CommandType = CommandType;
        return sql;
    }

    /// <summary>
    /// Sets the parameter's direction; a provider that has no outputs (Microsoft.Data.Sqlite refuses any direction but
    /// Input, without naming the parameter) is reported with the parameter's name.
    /// </summary>
    private static void SetDirection(DbParameter parameter, Entry entry)
    {
        try
        {
            parameter.Direction = entry.Direction;
        }
        catch (Exception error) when (error is ArgumentException or NotSupportedException)
        {
            throw new NotSupportedException(
                $"Parameter '{entry.Name}' is {entry.Direction}, which the provider ({parameter.GetType().Name}) refused: it has no " +
                "output parameters (SQLite has none, nor procedures). The provider's error is the inner exception.", error);
        }
    }

    /// <summary>Reads the outputs back from the command's parameters once the call has completed (and its reader is closed).</summary>
    internal void ReadBack()
    {
        foreach (Entry entry in _entries)
        {
            if (entry.Parameter is { } parameter && entry.Direction != ParameterDirection.Input)
                entry.Result = parameter.Value;
            entry.Parameter = null;
        }

        _ran = true;
        WriteTargets();
    }

    /// <summary>The value of the input <paramref name="name"/> (a literal's, <c>{=name}</c>); false when there is no such input.</summary>
    internal bool TryGetInput(string name, out object? value)
    {
        Entry? entry = Find(Bare(name));
        value = entry?.Value;
        return entry is { Direction: ParameterDirection.Input };
    }

    private Entry? Find(string bare)
    {
        foreach (Entry entry in _entries)
        {
            if (string.Equals(entry.Name, bare, StringComparison.OrdinalIgnoreCase))
                return entry;
        }

        return null;
    }

    private static string Bare(string name) => name.TrimStart('@', ':', '?', '$');

    private sealed class Entry(string name, object? value, DbType? dbType, ParameterDirection direction, int? size)
    {
        /// <summary>The member an output is written back to (<see cref="Output{T}"/>); null for a plain entry.</summary>
        public OutputMember? Member { get; init; }

        /// <summary>The object that holds <see cref="Member"/>.</summary>
        public object? Target { get; init; }

        public string Name { get; } = name;

        public object? Value { get; } = value;

        public DbType? DbType { get; } = dbType;

        public ParameterDirection Direction { get; } = direction;

        public int? Size { get; } = size;

        /// <summary>The parameter sent in the current call, until <see cref="ReadBack"/>.</summary>
        public DbParameter? Parameter { get; set; }

        public object? Result { get; set; }
    }
}
