using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;

namespace Orseis.Scenarios.Scopes;

/// <summary>What the SlowApp's <c>/report</c> says that the scopes study reads (samples/Orseis.Samples.SlowApp/SlowAppReport.cs).</summary>
internal sealed record WorkReport(
    string Unit, double UptimeSeconds, long Opens, long Commands, int PeakInUse, long QueuedOpens, long ScopeReuses,
    double ParkedMilliseconds, long ProviderPeakUsed, long ProviderPeakTaken, double ProviderUsedSeconds, double ProviderTakenSeconds,
    double CpuSeconds, long WorkRequests, long WorkAnswered, long WorkCalls, int ThreadPoolThreads, Dictionary<string, long> Errors,
    Dictionary<string, long> FindingCounts);

/// <summary>The SlowApp sample in a process of its own on a free loopback port, with one SLOWAPP_UNIT; killed on dispose.</summary>
internal sealed class WorkAppProcess : IAsyncDisposable
{
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);
    private readonly Process _process;
    private readonly HttpClient _http;

    private WorkAppProcess(Process process, Uri root)
    {
        _process = process;
        Root = root;
        _http = new HttpClient { BaseAddress = root, Timeout = TimeSpan.FromSeconds(30) };
    }

    public Uri Root { get; }

    /// <summary>The app's process id.</summary>
    public int Id => _process.Id;

    /// <summary>Starts the app built at <paramref name="dll"/> and waits until <c>/health</c> answers (it touches no database).</summary>
    public static async Task<WorkAppProcess> StartAsync(string dll, string unit, int maxPool, bool detectors)
    {
        int port = FreePort();
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add(dll);
        start.Environment["ORSEIS_MYSQL"] = Server.ConnectionString;
        start.Environment["SLOWAPP_PROVIDER"] = "mysqlconnector";
        start.Environment["SLOWAPP_CALLS"] = "async";
        start.Environment["SLOWAPP_UNIT"] = unit;
        start.Environment["SLOWAPP_DETECTORS"] = detectors ? "all" : "none";
        start.Environment["SLOWAPP_MAX_POOL"] = maxPool.ToString(CultureInfo.InvariantCulture);
        start.Environment.Remove("SLOWAPP_MIN_THREADS");
        start.Environment["ASPNETCORE_URLS"] = $"http://127.0.0.1:{port}";
        var app = new WorkAppProcess(Process.Start(start)!, new Uri($"http://127.0.0.1:{port}/"));
        _ = app._process.StandardOutput.ReadToEndAsync();
        Task<string> errors = app._process.StandardError.ReadToEndAsync();
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < TimeSpan.FromSeconds(30))
        {
            if (app._process.HasExited)
                throw new InvalidOperationException($"SlowApp exited with code {app._process.ExitCode}: {await errors}");
            try
            {
                if ((await app._http.GetStringAsync("health")) == "ok")
                    return app;
            }
            catch (HttpRequestException)
            {
                await Task.Delay(100);
            }
        }

        await app.DisposeAsync();
        throw new TimeoutException("SlowApp did not answer /health within 30 s.");
    }

    /// <summary>The app's report; <paramref name="resetPeak"/>: then start the provider's used-connection peak anew.</summary>
    public async Task<WorkReport> ReportAsync(bool resetPeak = false) =>
        JsonSerializer.Deserialize<WorkReport>(await _http.GetStringAsync(resetPeak ? "report?resetPeak=true" : "report"), Json)
        ?? throw new InvalidDataException("SlowApp's /report was empty.");

    public async ValueTask DisposeAsync()
    {
        _http.Dispose();
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
