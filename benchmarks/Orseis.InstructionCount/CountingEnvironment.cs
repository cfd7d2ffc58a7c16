namespace Orseis.InstructionCount;

/// <summary>
/// The environment a process counted under valgrind runs with, in one place: the instruction gate, the scope units
/// (benchmarks/Orseis.ScopeUnits) and the scenarios' <c>instructions</c> command link this file rather than copy it.
/// </summary>
internal static class CountingEnvironment
{
    /// <summary>The knob that keeps the JIT from falling back to unoptimised code under valgrind.</summary>
    public const string OptionalRelocs = "DOTNET_JitEnableOptionalRelocs";

    /// <summary>
    /// The code that runs: compiled fully optimised on first use (no tiering, so no PGO either), the JIT's
    /// write-xor-execute double mapping off (it confuses valgrind), and no optional relocation hints. Under valgrind the
    /// JIT's hint that a call's target is within 2 GB fails one of its own checks (dotnet/runtime#100600), and the JIT
    /// then compiles the method again with minimal optimisation (MinOpts): 430 of the 809 compiles of a
    /// <c>Scalar/per-call/All/off</c> process, 185 of them Orseis' own. Without the hints (the setting the .NET performance lab uses for
    /// repeatable measurements) it compiles the same methods, all optimised, as a process outside valgrind does.
    /// </summary>
    public static readonly (string Name, string Value)[] Jit =
    [
        ("DOTNET_TieredCompilation", "0"),
        ("DOTNET_TieredPGO", "0"),
        ("DOTNET_EnableWriteXorExecute", "0"),
        (OptionalRelocs, "0"),
    ];

    /// <summary>The workstation GC without a background thread, with a gen0 budget larger than a measured path allocates.</summary>
    public static readonly (string Name, string Value)[] Gc =
    [
        ("DOTNET_gcServer", "0"),
        ("DOTNET_gcConcurrent", "0"),
        ("DOTNET_GCgen0size", "0x10000000"),
    ];

    /// <summary>The JIT's and the GC's settings: what the gate's measured process runs with.</summary>
    public static IEnumerable<(string Name, string Value)> All => Jit.Concat(Gc);
}
