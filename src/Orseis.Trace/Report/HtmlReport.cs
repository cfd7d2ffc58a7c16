namespace Orseis.Trace.Report;

/// <summary><c>report --format html</c>.</summary>
internal static class HtmlReport
{
    public static string Write(TraceReport r) => "<!doctype html><pre>" + System.Net.WebUtility.HtmlEncode(TextReport.Write(r)) + "</pre>\n";
}
