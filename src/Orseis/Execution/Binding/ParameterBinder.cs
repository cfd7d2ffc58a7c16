using System.Collections;
using System.Collections.Concurrent;
using System.Data;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Linq.Expressions;
using System.Reflection;

namespace Orseis.Execution.Binding;

/// <summary>
/// Turns a call's arguments into command parameters. Objects are read through getters compiled once per type;
/// dictionaries, explicit <see cref="DbParameter"/>s and prebuilt lists are taken as they are.
/// </summary>
internal static class ParameterBinder
{
    private static readonly ConcurrentDictionary<Type, Getter[]> Getters = new();

    /// <summary>Adds the parameters to <paramref name="command"/> and returns the SQL text to run (lists expanded).</summary>
    /// <param name="command">The command.</param>
    /// <param name="sql">The SQL as the caller wrote it.</param>
    /// <param name="args">The caller's arguments.</param>
    /// <param name="handlers">The database's type handlers; null when it has none.</param>
    public static string Bind(DbCommand command, string sql, object? args, Mapping.TypeHandlerSet? handlers = null)
    {
        if (args is null)
            return sql;

        // Dapper's {=name}: written into the text first, so a list written there is not also expanded.
        if (Literals.In(sql))
            return BindWithLiterals(command, sql, args, handlers);

        // The type of the last argument object bound (BindArgs' default case), checked here so its common case does
        // not set up BindArgs' frame.
        if (_lastArgs is { } last && last.Type == args.GetType())
            return BindMembers(command, sql, args, last.Getters, handlers);
        return BindArgs(command, sql, args, handlers);
    }

    /// <summary>
    /// <see cref="Bind"/> that also takes the bound values' print
    /// (<see cref="Diagnostics.Detectors.ArgumentPrint"/>: their hash and count) for the repeated-statement detector, where
    /// the values pass through here anyway, when the arguments are the last object type bound (the common loop);
    /// <paramref name="print"/> is <see cref="Diagnostics.Detectors.ArgumentPrint.Unknown"/> otherwise, and the statement's end
    /// reads the command instead.
    /// </summary>
    public static string BindPrinted(
        DbCommand command, string sql, object args, Mapping.TypeHandlerSet? handlers, out Diagnostics.Detectors.ArgumentPrint print)
    {
        if (_lastArgs is { } last && last.Type == args.GetType() && !Literals.In(sql))
            return BindMembersPrinted(command, sql, args, last.Getters, handlers, out print);

        print = Diagnostics.Detectors.ArgumentPrint.Unknown;
        return Bind(command, sql, args, handlers);
    }

    /// <summary>
    /// <see cref="Bind"/> for arguments that are not the last object type bound (<see cref="Bind"/> checks that first: only
    /// types that reached the default case below are remembered), and for the parameter collections of a statement whose
    /// literals are written.
    /// </summary>
    private static string BindArgs(DbCommand command, string sql, object args, Mapping.TypeHandlerSet? handlers)
    {
        switch (args)
        {
            case ParameterList prebuilt:
                foreach (var (name, value) in prebuilt)
                    command.Parameters.Add(Create(command, name, value, handlers));
                return sql;
            case ParameterBag bag:
                return bag.Bind(command, sql, handlers);
            case DbParameter single:
                command.Parameters.Add(single);
                return sql;
            case IEnumerable<DbParameter> explicitParameters:
                foreach (DbParameter p in explicitParameters)
                    command.Parameters.Add(p);
                return sql;
            case IEnumerable<KeyValuePair<string, object?>> pairs:
                foreach (var (name, value) in pairs)
                    sql = Add(command, sql, name, value, handlers);
                return sql;
            case IDictionary dictionary:
                foreach (DictionaryEntry entry in dictionary)
                {
                    if (entry.Key is not string name)
                        throw HotPathErrors.DictionaryKeyNotString(entry.Key.GetType());
                    sql = Add(command, sql, name, entry.Value, handlers);
                }

                return sql;
            default:
                Type type = args.GetType();
                Getter[] getters = Getters.GetOrAdd(type, Compile);
                _lastArgs = new TypeGetters(type, getters);
                return BindMembers(command, sql, args, getters, handlers);
        }
    }

    /// <summary><see cref="Bind"/> for SQL with <c>{=name}</c> literals (<see cref="Literals"/>).</summary>
    private static string BindWithLiterals(DbCommand command, string sql, object args, Mapping.TypeHandlerSet? handlers)
    {
        sql = Literals.Replace(sql, args, ProviderTraits.Of(command).Dialect, out HashSet<string>? literal);
        switch (args)
        {
            case ParameterBag bag:
                return bag.Bind(command, sql, handlers, literal);
            case ParameterList or DbParameter or IEnumerable<DbParameter>:
                return BindArgs(command, sql, args, handlers);
            case IEnumerable<KeyValuePair<string, object?>> pairs:
                foreach (var (name, value) in pairs)
                    sql = Add(command, sql, name, value, handlers, literal);
                return sql;
            case IDictionary dictionary:
                foreach (DictionaryEntry entry in dictionary)
                {
                    if (entry.Key is not string name)
                        throw HotPathErrors.DictionaryKeyNotString(entry.Key.GetType());
                    sql = Add(command, sql, name, entry.Value, handlers, literal);
                }

                return sql;
            default:
                return BindMembers(command, sql, args, Getters.GetOrAdd(args.GetType(), Compile), handlers, literal);
        }
    }

    /// <summary>The public members of an argument object with their values, for <see cref="Literals"/>.</summary>
    internal static IEnumerable<KeyValuePair<string, object?>> MembersOf(object args)
    {
        foreach (Getter getter in Getters.GetOrAdd(args.GetType(), Compile))
            yield return new(getter.Name, getter.Read(args));
    }

    /// <summary>Adds a parameter per member of <paramref name="args"/> that the SQL uses (lists expanded).</summary>
    private static string BindMembers(
        DbCommand command, string sql, object args, Getter[] getters, Mapping.TypeHandlerSet? handlers, HashSet<string>? literal = null)
    {
        bool prefixed = ProviderTraits.Of(command).PrefixedParameterNames;
        foreach (Getter getter in getters)
        {
            object? value = getter.Read(args);
            if (value is IEnumerable list && IsList(value, handlers))
            {
                if (!WrittenAsLiteral(sql, getter.Name, literal))
                    sql = ListExpansion.Expand(command, sql, getter.Name, list, handlers);
            }
            else if (getter.SpellingIn(sql, prefixed) is { } spelling)
            {
                command.Parameters.Add(Create(command, spelling, value, handlers));
            }
        }

        return sql;
    }

    /// <summary>
    /// <see cref="BindMembers"/> without literals, taking the print of the values added (<see cref="BindPrinted"/>); a list
    /// expanded leaves no print. A method of its own, so that a call nobody follows binds exactly as before.
    /// </summary>
    private static string BindMembersPrinted(
        DbCommand command, string sql, object args, Getter[] getters, Mapping.TypeHandlerSet? handlers,
        out Diagnostics.Detectors.ArgumentPrint print)
    {
        // The hash and count kept in locals (registers) while the parameters are added, the print written once at the end.
        uint hash = Diagnostics.Detectors.ArgumentHash.Seed;
        int count = 0;
        bool expanded = false;
        bool prefixed = ProviderTraits.Of(command).PrefixedParameterNames;
        foreach (Getter getter in getters)
        {
            object? value = getter.Read(args);
            if (value is IEnumerable list && IsList(value, handlers))
            {
                expanded = true; // a list's parameters are added elsewhere: no print, the end reads the command
                sql = ListExpansion.Expand(command, sql, getter.Name, list, handlers);
            }
            else if (getter.SpellingIn(sql, prefixed) is { } spelling)
            {
                DbParameter parameter = Create(command, spelling, value, handlers);
                command.Parameters.Add(parameter);
                if (!expanded)
                {
                    // The value as the provider holds it: what the end would read.
                    hash = Diagnostics.Detectors.ArgumentHash.Mix(hash, parameter.Value);
                    count++;
                }
            }
        }

        print = expanded ? Diagnostics.Detectors.ArgumentPrint.Unknown : Diagnostics.Detectors.ArgumentPrint.Of(hash, count);
        return sql;
    }

    private static volatile TypeGetters? _lastArgs;

    private sealed record TypeGetters(Type Type, Getter[] Getters);

    /// <summary>
    /// Adds one named argument, spelled as the SQL spells it. An argument the SQL does not use is not sent (an object
    /// may carry more members than one statement needs), except that a list the SQL has no place for is an error.
    /// </summary>
    internal static string Add(
        DbCommand command, string sql, string name, object? value, Mapping.TypeHandlerSet? handlers, HashSet<string>? literal = null)
    {
        if (value is IEnumerable list && IsList(value, handlers))
            return WrittenAsLiteral(sql, name, literal) ? sql : ListExpansion.Expand(command, sql, name, list, handlers);
        if (SqlNames.FindSpelling(sql, name) is { } spelling)
            command.Parameters.Add(Create(command, spelling, value, handlers));
        return sql;
    }

    /// <summary>True for a list written into the SQL as a literal (<c>in {=ids}</c>) and not also used as a parameter.</summary>
    private static bool WrittenAsLiteral(string sql, string name, HashSet<string>? literal)
    {
        string bare = name.TrimStart('@', ':', '?', '$');
        return literal is not null && literal.Contains(bare) && SqlNames.FindSpelling(sql, bare) is null;
    }

    /// <summary>A list to expand, unless a type handler sends the whole value (a collection stored as JSON, say).</summary>
    private static bool IsList(object value, Mapping.TypeHandlerSet? handlers) =>
        ListExpansion.IsList(value) && (handlers is null || handlers.For(value.GetType()) is null);

    /// <summary>
    /// Creates one parameter; enums are sent as their underlying number, null as <see cref="DBNull"/>, and
    /// <see cref="DateOnly"/>/<see cref="TimeOnly"/> as a date-typed <see cref="DateTime"/> and a
    /// <see cref="TimeSpan"/> to providers that predate them (which would otherwise send their culture-formatted text).
    /// </summary>
    public static DbParameter Create(DbCommand command, string name, object? value, Mapping.TypeHandlerSet? handlers = null)
    {
        if (value is TypedNull typedNull)
            return CreateTypedNull(command, name, typedNull.Type);
        DbParameter parameter = command.CreateParameter();
        parameter.ParameterName = name;
        if (handlers is not null && value is not null && handlers.For(value.GetType()) is { } handler)
        {
            SetHandled(parameter, handler, value);
            return parameter;
        }

        switch (value)
        {
            case null:
                parameter.Value = DBNull.Value;
                break;
            case DbStringValue text:
                text.Apply(parameter);
                break;
            case Enum e:
                parameter.Value = Convert.ChangeType(e, Enum.GetUnderlyingType(e.GetType()), CultureInfo.InvariantCulture);
                break;
            case DateOnly date when !ProviderTraits.Of(command).KnowsDateAndTimeOnly:
                parameter.DbType = DbType.Date;
                parameter.Value = date.ToDateTime(TimeOnly.MinValue);
                break;
            case TimeOnly time when !ProviderTraits.Of(command).KnowsDateAndTimeOnly:
                parameter.DbType = DbType.Time;
                parameter.Value = time.ToTimeSpan();
                break;
            default:
                if (!SendableTypes.Accepts(command, value))
                    throw HotPathErrors.UnsendableValue(name, value.GetType());
                parameter.Value = value;
                break;
        }

        return parameter;
    }

    /// <summary>Sets a parameter through its type's handler; a failure names the parameter and the handler, never the value.</summary>
    private static void SetHandled(DbParameter parameter, Mapping.ITypeHandler handler, object value)
    {
        try
        {
            handler.SetBoxedValue(parameter, value);
        }
        catch (Exception error)
        {
            throw HotPathErrors.HandlerFailed(handler.GetType(), parameter.ParameterName, value.GetType(), error);
        }
    }

    /// <summary>A typed NULL parameter, so that servers with strict typing (PostgreSQL) accept it in any position.</summary>
    public static DbParameter CreateTypedNull(DbCommand command, string name, Type elementType)
    {
        DbParameter parameter = command.CreateParameter();
        parameter.ParameterName = name;
        parameter.Value = DBNull.Value;
        if (DbTypes.TryGet(elementType, out DbType dbType))
            parameter.DbType = dbType;
        return parameter;
    }

    private static Getter[] Compile(Type type)
    {
        // Members of these would be bound as parameters (SyncRoot, Item1) without a word: refused, saying what to pass.
        if (type != typeof(string) && typeof(IEnumerable).IsAssignableFrom(type))
            throw HotPathErrors.SequenceNotExecute(type);
        if (typeof(System.Runtime.CompilerServices.ITuple).IsAssignableFrom(type))
            throw HotPathErrors.TupleArguments(type);
        var getters = new List<Getter>();
        if (Shapes.ShapeRegistry.ArgumentsOf(type) is { } shape)
        {
            for (int i = 0; i < shape.Names.Length; i++)
            {
                int index = i;
                Func<object, int, object?> read = shape.Read;
                getters.Add(new Getter(shape.Names[i], args => read(args, index)));
            }
        }
        else if (Mapping.CompiledMapping.IsSupported)
        {
            Reflect(type, getters);
        }
        else
        {
            throw Mapping.CompiledMapping.NoShape(type, "arguments");
        }

        if (getters.Count == 0)
        {
#pragma warning disable CA2208 // the error is about the public call's 'args', not this method's parameters
            throw new ArgumentException(
                $"Arguments of type {type} have no public properties or fields to send as parameters. Pass an anonymous object, " +
                "a class or record, a dictionary, or DbParameter instances.", PublicParameters.Args);
#pragma warning restore CA2208
        }

        return [.. getters];
    }

    /// <summary>The getters of <paramref name="type"/>'s public properties (with a public getter, not indexers), then fields.</summary>
    [RequiresDynamicCode(Mapping.CompiledMapping.Needs)]
    [RequiresUnreferencedCode(Mapping.CompiledMapping.Needs)]
    private static void Reflect(Type type, List<Getter> getters)
    {
        foreach (PropertyInfo property in type.GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            if (property.GetIndexParameters().Length != 0 || property.GetMethod is not { IsPublic: true })
                continue;
            getters.Add(new Getter(property.Name, CompileRead(type, property)));
        }

        foreach (FieldInfo field in type.GetFields(BindingFlags.Public | BindingFlags.Instance))
            getters.Add(new Getter(field.Name, CompileRead(type, field)));
    }

    [RequiresDynamicCode(Mapping.CompiledMapping.Needs)]
    [RequiresUnreferencedCode(Mapping.CompiledMapping.Needs)]
    private static Func<object, object?> CompileRead(Type type, MemberInfo member)
    {
        ParameterExpression boxed = Expression.Parameter(typeof(object), "args");
        Expression read = Expression.PropertyOrField(Expression.Convert(boxed, type), member.Name);
        return Expression.Lambda<Func<object, object?>>(Expression.Convert(read, typeof(object)), boxed).Compile();
    }

    /// <summary>One member of an argument type, with how the last SQL text it was bound into spells it.</summary>
    private sealed class Getter(string name, Func<object, object?> read)
    {
        private volatile Spelling? _last;

        public string Name { get; } = name;

        public Func<object, object?> Read { get; } = read;

        /// <summary>
        /// <see cref="SqlNames.FindSpelling(string, string)"/> for this member (with the SQL's prefix when
        /// <paramref name="prefixed"/>), remembered for the last text, which a repeated call passes again.
        /// </summary>
        public string? SpellingIn(string sql, bool prefixed)
        {
            Spelling? last = _last;
            if (last is null || !(ReferenceEquals(last.Sql, sql) || string.Equals(last.Sql, sql, StringComparison.Ordinal)))
            {
                string? spelling = SqlNames.FindSpelling(sql, Name, out char prefix);
                last = new Spelling(sql, spelling, spelling is null || prefix == '?' ? spelling : prefix + spelling);
                _last = last;
            }

            return prefixed ? last.Prefixed : last.Name;
        }
    }

    private sealed record Spelling(string Sql, string? Name, string? Prefixed);
}
