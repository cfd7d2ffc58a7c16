using System.Diagnostics.Tracing;
using System.Globalization;
using Microsoft.Diagnostics.NETCore.Client;

namespace Orseis.Trace;

/// <summary>The EventPipe providers the tool asks for.</summary>
internal static class TraceProviders
{
    /// <summary>The runtime's Threading keyword: thread-pool worker adjustments (injections on starvation).</summary>
    private const long ThreadingKeyword = 0x10000;

    /// <summary>The Orseis EventSource's opens, commands, findings and releases.</summary>
    private const long OrseisKeywords = 0xF;

    /// <summary>The Orseis EventSource's detector facts (Verbose).</summary>
    private const long FactsKeyword = 0x10;

    /// <summary>
    /// The meters (Orseis, System.Runtime for the thread pool, Npgsql and MySqlConnector for the provider's own pool) through
    /// the runtime's metrics provider, every <paramref name="interval"/>; the Orseis EventSource at <paramref name="orseisLevel"/>
    /// (Warning: findings only; Verbose: opens, commands, releases too), with the detectors' facts when <paramref name="facts"/>
    /// (keyword 0x10, for <c>report</c>'s replay); the runtime's thread-pool events.
    /// </summary>
    public static EventPipeProvider[] For(string sessionId, TimeSpan interval, EventLevel orseisLevel, bool facts = false) =>
    [
        new(OrseisEventDecoder.MetricsProvider, EventLevel.Informational, keywords: 0x7, arguments: new Dictionary<string, string>
        {
            ["SessionId"] = sessionId,
            ["Metrics"] = string.Join(',', OrseisEventDecoder.Meters),
            ["RefreshInterval"] = interval.TotalSeconds.ToString(CultureInfo.InvariantCulture),
            ["MaxTimeSeries"] = "1000",
            ["MaxHistograms"] = "100",
        }),
        new("Orseis", orseisLevel, keywords: facts ? OrseisKeywords | FactsKeyword : OrseisKeywords),
        new("Microsoft-Windows-DotNETRuntime", EventLevel.Informational, keywords: ThreadingKeyword),
    ];
}
