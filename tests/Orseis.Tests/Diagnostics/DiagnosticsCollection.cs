namespace Orseis.Tests.Diagnostics;

/// <summary>
/// EventSource and meter listeners are process-wide: the diagnostics tests run alone so one test's listener never
/// turns on another's (zero-cost) path.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class DiagnosticsCollection
{
    public const string Name = "Diagnostics";
}
