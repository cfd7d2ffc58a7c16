using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace Orseis.Mapping;

/// <summary>
/// Whether Orseis may read a type by reflection and compile its mapper or binder at run time (the fallback for a type with
/// no generated shape). True under the JIT; false under Native AOT, where a type with no shape is refused by an error
/// naming it (<see cref="NoShape"/>) rather than mapped by reflection over members the trimmer may have removed.
/// </summary>
internal static class CompiledMapping
{
    /// <summary>The feature switch: set it false (<c>RuntimeHostConfigurationOption</c>, <c>Trim="true"</c>) to refuse every type
    /// without a shape under the JIT too, as Native AOT does, e.g. to check a JIT build before publishing it native.</summary>
    public const string Switch = "Orseis.CompiledMapping.IsSupported";

    /// <summary>What the fallback needs, for the annotations of the methods that are the fallback.</summary>
    public const string Needs =
        "Reads the type by reflection and compiles a mapper or binder at run time (a type without a generated shape).";

    /// <summary>True when the compiled fallback may run: dynamic code is supported and the switch is not off.</summary>
    /// <remarks>Under Native AOT, false (dynamic code is not supported), so nothing it guards runs. Under the JIT the members
    /// the fallback reads are there unless the app is trimmed, and a trimmed JIT app is told (docs/aot.md) to set the switch
    /// off: the guard the trim analyzer cannot prove from the body alone.</remarks>
    [UnconditionalSuppressMessage("Trimming", "IL4000", Justification =
        "False under Native AOT; a trimmed JIT app sets the switch off (docs/aot.md), which the trimmer substitutes.")]
    [FeatureSwitchDefinition(Switch)]
    [FeatureGuard(typeof(RequiresDynamicCodeAttribute))]
    [FeatureGuard(typeof(RequiresUnreferencedCodeAttribute))]
    public static bool IsSupported =>
        RuntimeFeature.IsDynamicCodeSupported && !(AppContext.TryGetSwitch(Switch, out bool on) && !on);

    /// <summary>The error for a type the generator wrote no shape for, where nothing may be compiled.</summary>
    /// <param name="type">The row or argument type.</param>
    /// <param name="use">What it was used as: "rows", "arguments", "output members".</param>
    public static NotSupportedException NoShape(Type type, string use) => new(
        $"{type} has no generated shape, and this process cannot compile one (Native AOT, or the '{Switch}' switch is off), " +
        $"so it cannot be used for {use}. The Orseis source generator writes shapes for the types it sees at the calls in " +
        "your code: name the type there (Query<T>, a typeof() constant, an args object), or see docs/aot.md for what it " +
        "cannot describe.");
}
