using System.Reflection;
using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// <see cref="PoolObserver.Hears"/>: each observer's declared facts are exactly the methods its type overrides, so the
/// dispatch (which reads only the declaration, no reflection: trimming-safe) hands every observer every fact it listens
/// to and no other. Reflection is used here only, to read the overrides.
/// </summary>
public sealed class HearingDeclarationTests
{
    private static readonly (HeardFacts Fact, string Method)[] Methods =
    [
        (HeardFacts.OpenStarting, nameof(PoolObserver.OnOpenStarting)), (HeardFacts.OpenCompleted, nameof(PoolObserver.OnOpenCompleted)),
        (HeardFacts.OpenFailed, nameof(PoolObserver.OnOpenFailed)), (HeardFacts.Acquired, nameof(PoolObserver.OnAcquired)),
        (HeardFacts.Released, nameof(PoolObserver.OnReleased)), (HeardFacts.CommandFailed, nameof(PoolObserver.OnCommandFailed)),
        (HeardFacts.StatementStarting, nameof(PoolObserver.OnStatementStarting)),
        (HeardFacts.StatementEnded, nameof(PoolObserver.OnStatementEnded)), (HeardFacts.UnitEnded, nameof(PoolObserver.OnUnitEnded)),
    ];

    public static TheoryData<Type> ObserverTypes()
    {
        var data = new TheoryData<Type>();
        foreach (Type type in typeof(PoolObserver).Assembly.GetTypes().Where(t => t.IsSubclassOf(typeof(PoolObserver)) && !t.IsAbstract))
            data.Add(type);
        return data;
    }

    [Fact]
    public void Every_fact_method_of_the_base_has_its_flag_and_the_flags_cover_them_all()
    {
        string[] virtuals = [.. typeof(PoolObserver).GetMethods(BindingFlags.Public | BindingFlags.Instance)
            .Where(m => m.IsVirtual && m.DeclaringType == typeof(PoolObserver) && m.Name.StartsWith("On", StringComparison.Ordinal))
            .Select(m => m.Name).Order(StringComparer.Ordinal)];
        Assert.Equal(virtuals, Methods.Select(m => m.Method).Order(StringComparer.Ordinal));
        HeardFacts all = Methods.Aggregate(HeardFacts.None, (sum, m) => sum | m.Fact);
        Assert.Equal(Enum.GetValues<HeardFacts>().Aggregate(HeardFacts.None, (sum, f) => sum | f), all);
        Assert.True(ObserverTypes().Count >= 12, "the observers of the library were found");
    }

    [Theory]
    [MemberData(nameof(ObserverTypes))]
    public void An_observer_declares_exactly_the_facts_whose_methods_it_overrides(Type type)
    {
        HeardFacts overridden = HeardFacts.None;
        foreach ((HeardFacts fact, string method) in Methods)
        {
            MethodInfo declared = typeof(PoolObserver).GetMethod(method)!;
            Type[] parameters = [.. declared.GetParameters().Select(p => p.ParameterType)];
            MethodInfo target = type.GetMethod(method, BindingFlags.Public | BindingFlags.Instance, parameters)!;
            if (target.DeclaringType != typeof(PoolObserver))
                overridden |= fact;
        }

        var observer = (PoolObserver)System.Runtime.CompilerServices.RuntimeHelpers.GetUninitializedObject(type);
        Assert.Equal(overridden, observer.Hears);
    }
}
