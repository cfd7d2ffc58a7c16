using Orseis.Scenarios.Scenarios;

namespace Orseis.Scenarios;

/// <summary>Every scenario of the suite, clean ones first.</summary>
internal static class Catalog
{
    public static IReadOnlyList<Scenario> All { get; } =
    [
        .. CleanScenarios.All(),
        .. ChurnScenarios.All(),
        .. ColdScenarios.All(),
        .. ColdSizeScenarios.All(),
        .. ColdHarmScenarios.All(),
        .. HangScenarios.All(),
        .. UntriedWaveScenarios.All(),
        .. ProbeWaveScenarios.All(),
        .. HeldOutScenarios.All(),
        .. HeldOutSecondScenarios.All(),
        .. NearFloorProbeScenarios.All(),
        .. HeldOutThirdScenarios.All(),
        .. SyncFloorProbeScenarios.All(),
        .. HeldOutFourthScenarios.All(),
        .. HeldOutFifthScenarios.All(),
        .. PoolScenarios.All(),
        .. SaturationSizeScenarios.All(),
        .. StarvationScenarios.All(),
        .. CpuContentionScenarios.All(),
        .. RepeatedStatementScenarios.All(),
    ];
}
