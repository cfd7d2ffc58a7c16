using System.Diagnostics;
using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// A call's span is the Client span (the dependency call an APM counts) unless the application also records the
/// provider's own command spans; then it is Internal. The provider's source here is a stand-in of the test's own (the
/// real ones, Npgsql's and MySqlConnector's, are checked in TracingServerTests).
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class ProviderSpanKindTests
{
    [Fact]
    public void The_call_span_is_internal_only_while_the_providers_own_spans_are_recorded()
    {
        string name = "Orseis.Tests.Provider." + Guid.NewGuid().ToString("N");
        using var before = new ActivitySource(name); // created before Orseis watches for it
        var spans = new CallSpans("other_sql", [new("db.system.name", "other_sql")], new DiagnosticsOptions(), providerSpans: name);
        using ActivityListener orseis = Listen(OrseisActivitySource.Name);

        Assert.Equal(ActivityKind.Client, Kind(spans));
        using (ActivityListener provider = Listen(name))
            Assert.Equal(ActivityKind.Internal, Kind(spans));
        Assert.Equal(ActivityKind.Client, Kind(spans));

        // A pool of a provider without spans of its own: always Client.
        var plain = new CallSpans("other_sql", [new("db.system.name", "other_sql")], new DiagnosticsOptions());
        using (ActivityListener provider = Listen(name))
            Assert.Equal(ActivityKind.Client, Kind(plain));
    }

    [Fact]
    public void A_provider_source_created_after_the_pool_is_seen_too()
    {
        string name = "Orseis.Tests.Provider." + Guid.NewGuid().ToString("N");
        var spans = new CallSpans("other_sql", [new("db.system.name", "other_sql")], new DiagnosticsOptions(), providerSpans: name);
        using ActivityListener orseis = Listen(OrseisActivitySource.Name);
        using var later = new ActivitySource(name);
        using ActivityListener provider = Listen(name);
        Assert.Equal(ActivityKind.Internal, Kind(spans));
    }

    private static ActivityKind Kind(CallSpans spans)
    {
        using Activity span = spans.StartCall("select 1", null) ?? throw new InvalidOperationException("no span started");
        return span.Kind;
    }

    private static ActivityListener Listen(string source)
    {
        var listener = new ActivityListener
        {
            ShouldListenTo = s => s.Name == source,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
        };
        ActivitySource.AddActivityListener(listener);
        return listener;
    }
}
