namespace Orseis.Diagnostics;

/// <summary>Spans: the pool's <see cref="CallSpans"/>, built the first time someone traces.</summary>
internal sealed partial class PoolTelemetry
{
    private CallSpans? _spans;

    /// <summary>This pool's span names and attributes; ask <see cref="OrseisActivitySource.Tracing"/> first.</summary>
    public CallSpans Spans => _spans ??= new CallSpans(SystemName, OperationTags, _options, _operations, _providerSpans);
}
