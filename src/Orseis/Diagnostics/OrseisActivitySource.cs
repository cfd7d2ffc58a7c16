using System.Diagnostics;

namespace Orseis.Diagnostics;

/// <summary>
/// The <c>Orseis</c> <see cref="ActivitySource"/>: one span per call (see <see cref="CallSpans"/>), following the
/// OpenTelemetry database client span conventions. Every hook asks <see cref="Tracing"/> first, so with no listener
/// nothing is allocated and no clock is read (an <see cref="Activity"/> reads the clock only when it is created).
/// Nothing here may throw into a query: a listener's failure is swallowed.
/// </summary>
internal static class OrseisActivitySource
{
    public const string Name = "Orseis";

    public static readonly ActivitySource Source = new(Name, typeof(OrseisActivitySource).Assembly.GetName().Version?.ToString(3));

    /// <summary>
    /// Whether anyone listens to the source (an OpenTelemetry tracer with <c>AddSource("Orseis")</c>, an <see cref="ActivityListener"/>).
    /// </summary>
    public static bool Tracing => Source.HasListeners();

    /// <summary>
    /// Marks <paramref name="span"/> failed: status Error, <c>error.type</c> (and <c>db.response.status_code</c>) as
    /// <see cref="ErrorType"/> gives them. The status description is the error type too, never a message.
    /// </summary>
    public static void Failed(Activity? span, Exception error)
    {
        if (span is null)
            return;
        try
        {
            string type = ErrorType(error, out string? statusCode);
            span.SetStatus(ActivityStatusCode.Error, type);
            if (span.IsAllDataRequested)
            {
                span.SetTag("error.type", type);
                if (statusCode is not null)
                    span.SetTag("db.response.status_code", statusCode);
            }
        }
#pragma warning disable CA1031 // tracing must not change what the query does
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>
    /// <see cref="Failed"/>, returning false: for an exception filter that marks the span and lets the exception pass
    /// untouched (where a <c>throw;</c> is not allowed, in a <c>finally</c>).
    /// </summary>
    public static bool FailedPassing(Activity? span, Exception error)
    {
        Failed(span, error);
        return false;
    }

    /// <summary>
    /// Ends <paramref name="span"/>. A span ended where it is not the current activity (a stream's or a grid reader's,
    /// ended by the caller's own code) leaves the caller's current activity as it was.
    /// </summary>
    public static void Stop(Activity? span)
    {
        if (span is null)
            return;
        try
        {
            Activity? current = Activity.Current;
            span.Stop();
            if (!ReferenceEquals(current, span))
                Activity.Current = current;
        }
#pragma warning disable CA1031 // tracing must not change what the query does
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>The <c>error.type</c> of a failure and its <c>db.response.status_code</c> (<see cref="DbErrorType"/>).</summary>
    public static string ErrorType(Exception error, out string? statusCode) => DbErrorType.Of(error, out statusCode);
}
