using System.Collections.Concurrent;
using System.Diagnostics.CodeAnalysis;
using System.Linq.Expressions;
using System.Reflection;

namespace Orseis.Execution.Binding;

/// <summary>
/// The member an output parameter is written back to (<see cref="ParameterBag.Output{T}"/>): a chain of properties or
/// fields off the target (<c>x =&gt; x.Id</c>, <c>x =&gt; x.Address.Name</c>), made once per target type and chain: from what the
/// Orseis source generator wrote for the call (<see cref="Shapes.ShapeRegistry.AddOutput{T, TValue}"/>), else compiled.
/// </summary>
internal sealed class OutputMember
{
    private static readonly ConcurrentDictionary<(Type Target, string Chain), OutputMember> Cache = new();
    private static readonly MethodInfo GetOutput = typeof(ParameterBag).GetMethod(
        nameof(ParameterBag.Get), BindingFlags.Public | BindingFlags.Instance)!;

    private readonly Func<object, object?>[] _owners;
    private readonly Func<object, object?> _read;
    private readonly Action<object, ParameterBag, string> _write;

    private OutputMember(
        string path,
        string name,
        Type type,
        Func<object, object?>[] owners,
        Func<object, object?> read,
        Action<object, ParameterBag, string> write)
    {
        Path = path;
        DefaultName = name;
        Type = type;
        _owners = owners;
        _read = read;
        _write = write;
    }

    /// <summary>The chain as written, from the target's type: <c>Person.Address.Name</c>.</summary>
    public string Path { get; }

    /// <summary>The parameter's name when none is given: the members' names joined (<c>AddressName</c>), as Dapper names it.</summary>
    public string DefaultName { get; }

    /// <summary>The type of the last member.</summary>
    public Type Type { get; }

    /// <summary>The member chain of <paramref name="expression"/>, made once per target type and chain.</summary>
    /// <exception cref="ArgumentException">The expression is not a chain of settable members off its parameter.</exception>
    public static OutputMember For<T>(Expression<Func<T, object?>> expression)
    {
        List<MemberInfo> chain = Chain(expression);
        string key = string.Join("|", chain.Select(m => m.DeclaringType!.FullName + ":" + m.Name));
        return Cache.GetOrAdd((typeof(T), key), static (k, c) => Made(k.Target, c), chain);
    }

    /// <summary>The member's current value on <paramref name="target"/>, sent as an input-output parameter's value.</summary>
    public object? Read(object target, string parameter) => _read(Owner(target, parameter));

    /// <summary>Writes the output parameter <paramref name="parameter"/> of <paramref name="bag"/>, converted, to the member.</summary>
    public void Write(object target, ParameterBag bag, string parameter) => _write(Owner(target, parameter), bag, parameter);

    private object Owner(object target, string parameter)
    {
        object owner = target;
        for (int i = 0; i < _owners.Length; i++)
        {
            owner = _owners[i](owner) ?? throw new InvalidOperationException(
                $"Output parameter '{parameter}' is bound to member {Path}, but {Path[..Prefix(i + 1)]} is null.");
        }

        return owner;
    }

    /// <summary>The length of the path up to and including its <paramref name="members"/>-th member after the type.</summary>
    private int Prefix(int members)
    {
        int end = Path.IndexOf('.', StringComparison.Ordinal);
        for (int i = 0; i < members; i++)
            end = Path.IndexOf('.', end + 1) is var next && next < 0 ? Path.Length : next;
        return end;
    }

    private static List<MemberInfo> Chain<T>(Expression<Func<T, object?>> expression)
    {
        Expression body = expression.Body is UnaryExpression { NodeType: ExpressionType.Convert } convert
            ? convert.Operand
            : expression.Body;
        var chain = new List<MemberInfo>();
        while (body is MemberExpression { Member: PropertyInfo or FieldInfo } member)
        {
            chain.Insert(0, member.Member);
            body = member.Expression!;
        }

        if (chain.Count == 0 || body != expression.Parameters[0])
        {
            throw new ArgumentException(
                $"The output member must be a property or field of the {typeof(T).Name} (x => x.Id, or a chain: x => x.Address.Id).",
                nameof(expression));
        }

        for (int i = 0; i < chain.Count; i++)
        {
            MemberInfo member = chain[i];
            Type type = MemberType(member);
            if (i < chain.Count - 1 && type.IsValueType)
            {
                throw new ArgumentException(
                    $"Member {member.DeclaringType!.Name}.{member.Name} is a struct ({type.Name}): an output could only be " +
                    "written to a copy.",
                    nameof(expression));
            }

            if (i == chain.Count - 1 && !Settable(member))
            {
                throw new ArgumentException(
                    $"Member {member.DeclaringType!.Name}.{member.Name} cannot be set (no setter, or a read-only field), " +
                    "so an output cannot be written to it.", nameof(expression));
            }
        }

        return chain;
    }

    private static bool Settable(MemberInfo member) =>
        member is PropertyInfo { CanWrite: true } || member is FieldInfo { IsInitOnly: false, IsLiteral: false };

    private static Type MemberType(MemberInfo member) => member is PropertyInfo p ? p.PropertyType : ((FieldInfo)member).FieldType;

    /// <summary>The member over its generated shape when the generator wrote one; else compiled, where this process may compile.</summary>
    private static OutputMember Made(Type target, List<MemberInfo> chain)
    {
        string names = string.Join(".", chain.Select(m => m.Name));
        if (Shapes.ShapeRegistry.OutputOf(target, names) is { } shape)
        {
            return new OutputMember(
                target.Name + "." + names, string.Concat(chain.Select(m => m.Name)), shape.Type, shape.Owners, shape.Read, shape.Write);
        }

        return Mapping.CompiledMapping.IsSupported
            ? Compile(target, chain)
            : throw Mapping.CompiledMapping.NoShape(target, "output members");
    }

    [RequiresDynamicCode(Mapping.CompiledMapping.Needs)]
    [RequiresUnreferencedCode(Mapping.CompiledMapping.Needs)]
    private static OutputMember Compile(Type target, List<MemberInfo> chain)
    {
        var owners = new Func<object, object?>[chain.Count - 1];
        for (int i = 0; i < owners.Length; i++)
            owners[i] = CompileRead(chain[i]);
        MemberInfo last = chain[^1];
        Type type = MemberType(last);

        ParameterExpression owner = Expression.Parameter(typeof(object), "owner");
        ParameterExpression bag = Expression.Parameter(typeof(ParameterBag), "bag");
        ParameterExpression name = Expression.Parameter(typeof(string), "name");
        Expression member = Expression.MakeMemberAccess(Expression.Convert(owner, last.DeclaringType!), last);
        Expression value = Expression.Call(bag, GetOutput.MakeGenericMethod(type), name);
        Action<object, ParameterBag, string> write = Expression.Lambda<Action<object, ParameterBag, string>>(
            Expression.Assign(member, value), owner, bag, name).Compile();

        string path = target.Name + "." + string.Join(".", chain.Select(m => m.Name));
        string defaultName = string.Concat(chain.Select(m => m.Name));
        return new OutputMember(path, defaultName, type, owners, CompileRead(last), write);
    }

    [RequiresDynamicCode(Mapping.CompiledMapping.Needs)]
    [RequiresUnreferencedCode(Mapping.CompiledMapping.Needs)]
    private static Func<object, object?> CompileRead(MemberInfo member)
    {
        ParameterExpression owner = Expression.Parameter(typeof(object), "owner");
        Expression read = Expression.MakeMemberAccess(Expression.Convert(owner, member.DeclaringType!), member);
        return Expression.Lambda<Func<object, object?>>(Expression.Convert(read, typeof(object)), owner).Compile();
    }
}
