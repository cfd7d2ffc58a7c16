using System.Data;
using System.Diagnostics;

namespace Orseis.Diagnostics;

/// <summary>
/// The spans of one pool's calls, as the OpenTelemetry database client span conventions name them. A call's span is
/// named after its <c>db.query.summary</c> when it has one (<c>SELECT orders</c>, <see cref="OperationTagSets"/>), else
/// <c>{db.operation.name} {target}</c>, the target being <c>db.namespace</c> when the connection string names a
/// database, else <c>server.address:server.port</c>; a procedure's span is named after the procedure; with no known
/// operation the span is named after its target, or <c>db.system.name</c>. Names are built once per pool, so a call
/// allocates only its <see cref="Activity"/>. Every span carries <c>db.system.name</c>,
/// <c>db.client.connection.pool.name</c> and, where the connection string gives them, <c>db.namespace</c>,
/// <c>server.address</c> and <c>server.port</c> (given at creation, so samplers see them); <c>db.query.text</c> only
/// with <see cref="DiagnosticsOptions.CaptureCommandText"/>. Opening a connection is a child span,
/// <see cref="OpenName"/>: the pool wait of the call that opened it. A finding the call's open, release or statement
/// raises is an <c>orseis.finding</c> event on the call's span (or the session's), not on the pool wait's
/// (<see cref="FindingSpans"/>).
/// </summary>
internal sealed class CallSpans
{
    /// <summary>The child span around acquiring a connection (Open: pool wait, reset, physical connect).</summary>
    public const string OpenName = "orseis.connection.open";

    /// <summary>The span of <see cref="Database.OpenSession"/>.</summary>
    public const string SessionOpenName = "orseis.session.open";

    private readonly KeyValuePair<string, object?>[] _tags;
    private readonly string[] _names;
    private readonly string _fallbackName;
    private readonly DiagnosticsOptions _options;
    private readonly OperationTagSets? _operations;
    private readonly ActivitySource? _providerSpans;

    /// <summary>
    /// The spans of one pool. <paramref name="providerSpans"/>: the <see cref="ActivitySource"/> that records the provider's own
    /// command spans, if it has one (<see cref="ProviderSpanSources"/>).
    /// </summary>
    public CallSpans(
        string systemName, KeyValuePair<string, object?>[] tags, DiagnosticsOptions options, OperationTagSets? operations = null,
        string? providerSpans = null)
    {
        _tags = tags;
        _options = options;
        _operations = operations;
        _providerSpans = providerSpans is null ? null : ProviderSpanSources.For(providerSpans);
        string? target = Target(tags);
        _fallbackName = target ?? systemName;
        _names = [.. SqlOperation.Names.Select(operation => target is null ? operation : $"{operation} {target}")];
    }

    /// <summary>The attributes every span of this pool carries.</summary>
    public IReadOnlyList<KeyValuePair<string, object?>> Tags => _tags;

    /// <summary>
    /// Starts the span of a call running <paramref name="sql"/>; null when nobody samples it. A Client span, the call to the
    /// database, unless the application also records the provider's own spans: then the provider's command span under it is
    /// that call, and this one is Internal, so an APM counts one dependency call per query, not two.
    /// </summary>
    public Activity? StartCall(string sql, object? args)
    {
        string? procedure = args is ParameterBag { CommandType: CommandType.StoredProcedure } ? sql : null;
        int operation = procedure is null ? SqlOperation.Find(sql) : -1;
        string? summary = operation >= 0 ? _operations?.SummaryOf(sql) : null;
        string name = procedure ?? summary ?? (operation >= 0 ? _names[operation] : _fallbackName);
        ActivityKind kind = _providerSpans?.HasListeners() == true
            ? ActivityKind.Internal
            : ActivityKind.Client;
        Activity? span = Start(name, kind);
        if (span is { IsAllDataRequested: true })
        {
            if (operation >= 0)
                span.SetTag("db.operation.name", SqlOperation.Names[operation]);
            if (summary is not null)
                span.SetTag("db.query.summary", summary);
            if (procedure is not null)
                span.SetTag("db.stored_procedure.name", procedure);
            if (_options.CaptureCommandText)
                span.SetTag("db.query.text", sql);
        }

        return span;
    }

    /// <summary>
    /// Starts the span of acquiring a connection, a child of the call that needs it; null when nobody samples it. Internal,
    /// not Client: it is no call to the database of its own (an APM counts each Client span as a dependency call), and the
    /// provider's own spans under it are the calls it makes.
    /// </summary>
    public Activity? StartOpen() => Start(OpenName, ActivityKind.Internal);

    /// <summary>Starts the span of opening a session (a pool wait too, so Internal); null when nobody samples it.</summary>
    public Activity? StartSessionOpen() => Start(SessionOpenName, ActivityKind.Internal);

    /// <summary>
    /// A span with the pool's attributes; null when nobody samples it or a listener fails (tracing never breaks a call).
    /// </summary>
    private Activity? Start(string name, ActivityKind kind)
    {
        try
        {
            return OrseisActivitySource.Source.StartActivity(name, kind, default(ActivityContext), _tags);
        }
#pragma warning disable CA1031 // tracing must not change what the query does
        catch (Exception)
#pragma warning restore CA1031
        {
            return null;
        }
    }

    private static string? Target(KeyValuePair<string, object?>[] tags)
    {
        object? database = null, address = null, port = null;
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            switch (tag.Key)
            {
                case "db.namespace": database = tag.Value; break;
                case "server.address": address = tag.Value; break;
                case "server.port": port = tag.Value; break;
            }
        }

        if (database is string name)
            return name;
        if (address is string host)
            return port is null ? host : FormattableString.Invariant($"{host}:{port}");
        return null;
    }
}
