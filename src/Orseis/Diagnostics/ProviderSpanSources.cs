using System.Collections.Concurrent;
using System.Diagnostics;

namespace Orseis.Diagnostics;

/// <summary>
/// Whether the application records the spans of a provider's <see cref="ActivitySource"/>, asked of a source of Orseis' own
/// with the same name, on which no span is ever started: every listener decides by the source's name (OpenTelemetry's
/// <c>AddSource</c>), and a provider creates its own source only when it first runs, after the first call's span began.
/// </summary>
/// <remarks>
/// Orseis' span of a call is <see cref="ActivityKind.Internal"/> while the answer is yes: the provider's command span under
/// it is the one client call an APM counts (<see cref="CallSpans.StartCall"/>).
/// </remarks>
internal static class ProviderSpanSources
{
    private static readonly ConcurrentDictionary<string, ActivitySource> Probes = new(StringComparer.Ordinal);

    /// <summary>The probe of the source named <paramref name="name"/>, made once per name and kept for the process.</summary>
    public static ActivitySource For(string name) => Probes.GetOrAdd(name, static n => new ActivitySource(n));
}
