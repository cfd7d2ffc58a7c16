using System.ComponentModel;
using System.Linq.Expressions;
using System.Reflection;

namespace Orseis.Mapping;

/// <summary>Objects: a constructor, then each member with a column of its name set, as one block per row.</summary>
internal static partial class MapperCompiler
{
    private static readonly MethodInfo BeginInit = typeof(ISupportInitialize).GetMethod(nameof(ISupportInitialize.BeginInit))!;
    private static readonly MethodInfo EndInit = typeof(ISupportInitialize).GetMethod(nameof(ISupportInitialize.EndInit))!;

    /// <summary>
    /// <c>var o = new T(arguments); o.BeginInit(); o.A = …; o.B = …; o.EndInit(); return o;</c>, the initialization calls
    /// only for a class that implements <see cref="ISupportInitialize"/>. A block of assignments compiles to what an
    /// object initializer does, and leaves room for those calls and for a member left unset when its column is NULL.
    /// </summary>
    private static Expression Construct(Type type, Layout layout, int offset)
    {
        var columns = new ColumnMatcher(layout.Names);
        var used = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        NewExpression creation = ChooseConstructor(type, layout, offset, columns, used);

        ParameterExpression target = Expression.Variable(type, "row");
        var steps = new List<Expression> { Expression.Assign(target, creation) };
        bool initializes = !type.IsValueType && typeof(ISupportInitialize).IsAssignableFrom(type);
        if (initializes)
            steps.Add(Expression.Call(Expression.Convert(target, typeof(ISupportInitialize)), BeginInit));

        int constructorColumns = used.Count;
        foreach (MappedMember member in MappedMember.Of(type))
        {
            if (used.Contains(member.Name))
                continue;
            int ordinal = columns.Find(member.Name);
            if (ordinal < 0)
                continue;
            steps.Add(SetMember(target, member, offset + ordinal, layout.Types[ordinal], $"{type.Name}.{member.Name}", layout));
            used.Add(member.Name);
        }

        if (used.Count == 0)
        {
            throw MappingErrors.NoColumnMatches(type, layout);
        }

        if (initializes)
            steps.Add(Expression.Call(Expression.Convert(target, typeof(ISupportInitialize)), EndInit));
        if (used.Count == constructorColumns && !initializes)
            return creation;
        steps.Add(target);
        return Expression.Block(type, [target], steps);
    }

    /// <summary>
    /// Sets <paramref name="member"/> from its column. Under <see cref="Layout.NullKeepsDefault"/>, a member that cannot hold
    /// NULL is left as constructed when the column is NULL (Dapper's behaviour), so its initializer's value stays.
    /// </summary>
    private static Expression SetMember(
        ParameterExpression target, MappedMember member, int ordinal, Type columnType, string name, Layout layout)
    {
        bool skipNull = layout.NullKeepsDefault && !ColumnRules.AcceptsNull(member.Type);
        Expression value = ReadColumn(ordinal, columnType, member.Type, name, layout, checkedNotNull: skipNull);
        Expression set = member.Assign(target, value);
        return skipNull ? Expression.IfThen(Expression.Not(IsNull(ordinal)), set) : set;
    }

    /// <summary>
    /// The public parameterless constructor; else the public constructor with the most parameters that all have a column;
    /// else a non-public parameterless one (kept for serializers and ORMs, as Dapper uses it); else a clear error.
    /// </summary>
    private static NewExpression ChooseConstructor(Type type, Layout layout, int offset, ColumnMatcher columns, HashSet<string> used)
    {
        if (type.IsValueType || type.GetConstructor(Type.EmptyTypes) is not null)
            return Expression.New(type);

        ConstructorInfo[] candidates = [.. type.GetConstructors().OrderByDescending(c => c.GetParameters().Length)];
        string? firstMiss = null;
        foreach (ConstructorInfo constructor in candidates)
        {
            ParameterInfo[] parameters = constructor.GetParameters();
            var arguments = new Expression[parameters.Length];
            string? missing = null;
            for (int i = 0; i < parameters.Length; i++)
            {
                int ordinal = columns.Find(parameters[i].Name!);
                if (ordinal < 0)
                {
                    missing = parameters[i].Name;
                    break;
                }

                arguments[i] = ReadColumn(
                    offset + ordinal, layout.Types[ordinal], parameters[i].ParameterType, $"{type.Name}({parameters[i].Name})", layout);
            }

            if (missing is null)
            {
                foreach (ParameterInfo parameter in parameters)
                    used.Add(parameter.Name!);
                return Expression.New(constructor, arguments);
            }

            firstMiss ??= $"constructor parameter '{missing}'";
        }

        if (!type.IsAbstract && type.GetConstructor(BindingFlags.Instance | BindingFlags.NonPublic, Type.EmptyTypes) is { } hidden)
            return Expression.New(hidden);

        throw new MappingException(
            $"{type.Name} has no parameterless constructor, and no public constructor has a column for each of its parameters " +
            $"(no column for {firstMiss ?? "any constructor: the type has none that is public"}; " +
            $"columns: {string.Join(", ", layout.Names)}).",
            column: null, member: type.Name);
    }
}
