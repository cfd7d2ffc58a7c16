using System.ComponentModel;
using System.Data.Common;
using Orseis.Shapes;

namespace Orseis.Mapping;

/// <summary>
/// Row mappers over a generated <see cref="RowShape{T}"/>: the rules of <see cref="MapperCompiler"/> (constructor choice,
/// column matching, which members are set, NULL handling, the errors and their messages) applied to the shape's
/// constructors and members, with the typed reads of <see cref="ShapeReads{T}"/> instead of a compiled expression tree.
/// </summary>
internal static class ShapeMappers
{
    private static int _built;

    /// <summary>How many mappers were built over shapes in this process (tests tell the two modes apart by it).</summary>
    internal static int Built => _built;

    public static Func<DbDataReader, T> Build<T>(RowShape<T> shape, Layout layout, int offset, bool nullWhenFirstIsNull = false)
    {
        Interlocked.Increment(ref _built);
        Func<DbDataReader, T> map = shape.Elements is { } elements
            ? Tuple(shape, elements, layout, offset)
            : Object(shape, layout, offset);
        return nullWhenFirstIsNull ? reader => reader.IsDBNull(offset) ? default! : map(reader) : map;
    }

    /// <summary>
    /// A <c>Nullable&lt;T&gt;</c> struct row (<c>Query&lt;Point?&gt;</c>) as <see cref="MapperCompiler"/> maps it: the struct mapped by
    /// its members over its shape, wrapped, so a row is never null (all its columns NULL included); with
    /// <paramref name="nullWhenFirstIsNull"/>, a NULL first column gives null (a multi-mapped part an outer join did not find).
    /// </summary>
    public static Func<DbDataReader, T?> Nullable<T>(RowShape<T> shape, Layout layout, int offset, bool nullWhenFirstIsNull)
        where T : struct
    {
        Func<DbDataReader, T> map = Build(shape, layout, offset);
        return nullWhenFirstIsNull ? reader => reader.IsDBNull(offset) ? null : map(reader) : reader => map(reader);
    }

    /// <summary>A one-column row, read as the compiled mapper reads it (the same guarded column read, no member name).</summary>
    public static Func<DbDataReader, T> Scalar<T>(ShapeValue<T> value, Layout layout, int offset, bool nullWhenFirstIsNull = false)
    {
        Interlocked.Increment(ref _built);
        ShapeColumn<T> column = value.Column(offset, layout.Types[0], member: null, layout);
        return nullWhenFirstIsNull ? reader => reader.IsDBNull(offset) ? default! : column.Read(reader) : column.Read;
    }

    private static Func<DbDataReader, T> Tuple<T>(RowShape<T> shape, ShapeValue[] elements, Layout layout, int offset)
    {
        if (elements.Length > layout.Names.Length)
        {
            string described = TupleElements.Describe(typeof(T));
            throw new MappingException(
                $"The value tuple {described} has {elements.Length} elements, but the result has only " +
                $"{layout.Names.Length} column(s) ({string.Join(", ", layout.Names)}). A value tuple is mapped by position " +
                "(column 1 to Item1, and so on); select one column per element.",
                column: null, member: described);
        }

        var columns = new ShapeColumn[elements.Length];
        for (int i = 0; i < elements.Length; i++)
            columns[i] = elements[i].Bind(offset + i, layout.Types[i], $"Item{i + 1}", layout);
        Func<RowArguments, T> create = shape.CreateTuple!;
        return reader => create(new RowArguments(reader, columns));
    }

    private static Func<DbDataReader, T> Object<T>(RowShape<T> shape, Layout layout, int offset)
    {
        Type type = typeof(T);
        var matcher = new ColumnMatcher(layout.Names);
        var used = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        (Func<RowArguments, T> create, ShapeColumn[] arguments) = ChooseConstructor(shape, layout, offset, matcher, used);

        int constructorColumns = used.Count;
        var members = new List<ShapeMember<T>.Bound>();
        foreach (ShapeMember<T> member in shape.Members)
        {
            if (used.Contains(member.Name))
                continue;
            int ordinal = matcher.Find(member.Name);
            if (ordinal < 0)
                continue;
            bool skipNull = layout.NullKeepsDefault && !ColumnRules.AcceptsNull(member.Value.Type);
            members.Add(member.Bind(offset + ordinal, layout.Types[ordinal], $"{type.Name}.{member.Name}", layout, skipNull));
            used.Add(member.Name);
        }

        if (used.Count == 0)
        {
            throw MappingErrors.NoColumnMatches(type, layout);
        }

        bool initializes = !type.IsValueType && typeof(ISupportInitialize).IsAssignableFrom(type);
        ShapeMember<T>.Bound[] sets = [.. members];
        if (sets.Length == 0 && !initializes)
            return reader => create(new RowArguments(reader, arguments));
        return reader =>
        {
            T row = create(new RowArguments(reader, arguments));
            if (initializes)
                ((ISupportInitialize)row!).BeginInit();
            foreach (ShapeMember<T>.Bound set in sets)
                set.Set(ref row, reader);
            if (initializes)
                ((ISupportInitialize)row!).EndInit();
            return row;
        };
    }

    /// <summary>As <see cref="MapperCompiler"/>: the parameterless constructor (always for a struct); else the public one
    /// with the most parameters that all have a column; else a non-public parameterless one; else the same error.</summary>
    private static (Func<RowArguments, T>, ShapeColumn[]) ChooseConstructor<T>(
        RowShape<T> shape, Layout layout, int offset, ColumnMatcher columns, HashSet<string> used)
    {
        Type type = typeof(T);
        if (Array.Find(shape.Constructors, c => c.Parameters.Count == 0) is { } parameterless)
            return (parameterless.Create, []);

        string? firstMiss = null;
        foreach (ShapeConstructor<T> constructor in shape.Constructors.OrderByDescending(c => c.Parameters.Count))
        {
            var arguments = new ShapeColumn[constructor.Parameters.Count];
            string? missing = null;
            for (int i = 0; i < arguments.Length; i++)
            {
                ShapeParameter parameter = constructor.Parameters[i];
                int ordinal = columns.Find(parameter.Name);
                if (ordinal < 0)
                {
                    missing = parameter.Name;
                    break;
                }

                arguments[i] = parameter.Value.Bind(offset + ordinal, layout.Types[ordinal], $"{type.Name}({parameter.Name})", layout);
            }

            if (missing is null)
            {
                foreach (ShapeParameter parameter in constructor.Parameters)
                    used.Add(parameter.Name);
                return (constructor.Create, arguments);
            }

            firstMiss ??= $"constructor parameter '{missing}'";
        }

        if (shape.HiddenConstructor is { } hidden)
            return (_ => hidden(), []);

        throw new MappingException(
            $"{type.Name} has no parameterless constructor, and no public constructor has a column for each of its parameters " +
            $"(no column for {firstMiss ?? "any constructor: the type has none that is public"}; " +
            $"columns: {string.Join(", ", layout.Names)}).",
            column: null, member: type.Name);
    }
}
