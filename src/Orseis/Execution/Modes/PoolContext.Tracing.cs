using System.Diagnostics;
using Orseis.Diagnostics;

namespace Orseis.Execution.Modes;

/// <summary>The pool wait as a span: a child of the call (or session) that opens a connection, while someone traces.</summary>
internal sealed partial class PoolContext
{
    private async ValueTask<Lease> OpenTracedAsync(
        bool async, string owner, bool heldByDesign, bool heldAcrossCalls, Diagnostics.Detectors.FlowState? flow,
        CancellationToken cancellationToken)
    {
        Activity? span = Telemetry.Spans.StartOpen();
        try
        {
            return await OpenCoreAsync(async, owner, heldByDesign, heldAcrossCalls, flow, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception error)
        {
            OrseisActivitySource.Failed(span, error);
            throw;
        }
        finally
        {
            OrseisActivitySource.Stop(span);
        }
    }
}
