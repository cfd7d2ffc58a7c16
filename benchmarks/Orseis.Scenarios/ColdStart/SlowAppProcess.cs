using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;

namespace Orseis.Scenarios.ColdStart;

/// <summary>One configuration of the cold-start study's web app (samples/Orseis.Samples.SlowApp).</summary>
/// <param name="Provider">mysqlconnector or mysql-data.</param>
/// <param name="Calls">async or sync.</param>
/// <param name="MinThreads">ThreadPool.SetMinThreads for worker threads, or null for the runtime's default.</param>
internal sealed record SlowAppConfig(string Provider, string Calls, int? MinThreads)
{
    /// <summary>Reads <c>provider:calls[:minThreads]</c>, e.g. <c>mysql-data:sync:1024</c>.</summary>
    public static SlowAppConfig Parse(string text)
    {
        string[] parts = text.Split(':');
        if (parts.Length is < 2 or > 3 || parts[0] is not ("mysqlconnector" or "mysql-data") || parts[1] is not ("async" or "sync"))
            throw new ArgumentException($"--configs: '{text}' is not provider:calls[:minThreads] (provider mysqlconnector or mysql-data, calls async or sync).");
        int? min = null;
        if (parts.Length == 3)
        {
            min = int.TryParse(parts[2], System.Globalization.CultureInfo.InvariantCulture, out int value) && value > 0
                ? value
                : throw new ArgumentException($"--configs: the minimum thread count in '{text}' must be a positive whole number.");
        }

        return new SlowAppConfig(parts[0], parts[1], min);
    }

    public override string ToString() => $"{(Provider == "mysql-data" ? "MySql.Data" : "MySqlConnector")}, {Calls}{(MinThreads is { } m ? $", SetMinThreads({m})" : "")}";
}

/// <summary>What the app's <c>/report</c> says: Orseis' pool report in a few numbers, its findings, the thread pool's size.</summary>
internal sealed record SlowAppReport(
    long Opens, int PeakInUse, long QueuedOpens, long? PhysicalConnects, int ThreadPoolThreads, string? PoolSizeAdvice, Dictionary<string, long> Errors,
    Dictionary<string, long> FindingCounts, List<SlowAppFinding> Findings);

/// <summary>One finding in <c>/report</c>.</summary>
internal sealed record SlowAppFinding(string Kind, string Message, DateTimeOffset Timestamp);

/// <summary>The web app running in a process of its own on a free loopback port; killed on dispose.</summary>
internal sealed class SlowAppProcess : IAsyncDisposable
{
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);
    private readonly Process _process;
    private readonly HttpClient _http;

    private SlowAppProcess(Process process, Uri root)
    {
        _process = process;
        Root = root;
        _http = new HttpClient { BaseAddress = root, Timeout = TimeSpan.FromSeconds(30) };
    }

    public Uri Root { get; }

    /// <summary>The app's process id.</summary>
    public int Id => _process.Id;

    /// <summary>GETs <paramref name="path"/> (relative to <see cref="Root"/>) and returns the body.</summary>
    public Task<string> GetStringAsync(string path) => _http.GetStringAsync(path);

    /// <summary>
    /// Starts the app built at <paramref name="dll"/> against <paramref name="connectionString"/> (by default the scenarios'
    /// server, ORSEIS_MYSQL) and waits until <c>/health</c> answers (it touches no database).
    /// </summary>
    public static async Task<SlowAppProcess> StartAsync(
        string dll, SlowAppConfig config, int maxPool, string? connectionString = null, IReadOnlyDictionary<string, string>? settings = null)
    {
        int port = FreePort();
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add(dll);
        start.Environment["ORSEIS_MYSQL"] = connectionString ?? Server.ConnectionString;
        start.Environment["SLOWAPP_PROVIDER"] = config.Provider;
        start.Environment["SLOWAPP_CALLS"] = config.Calls;
        start.Environment["SLOWAPP_MAX_POOL"] = maxPool.ToString(System.Globalization.CultureInfo.InvariantCulture);
        if (config.MinThreads is { } min)
            start.Environment["SLOWAPP_MIN_THREADS"] = min.ToString(System.Globalization.CultureInfo.InvariantCulture);
        else
            start.Environment.Remove("SLOWAPP_MIN_THREADS"); // not the caller's own
        start.Environment["ASPNETCORE_URLS"] = $"http://127.0.0.1:{port}";
        foreach ((string name, string value) in settings ?? new Dictionary<string, string>())
            start.Environment[name] = value;
        var app = new SlowAppProcess(Process.Start(start)!, new Uri($"http://127.0.0.1:{port}/"));
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

    public async Task<SlowAppReport> ReportAsync() =>
        JsonSerializer.Deserialize<SlowAppReport>(await _http.GetStringAsync("report"), Json) ?? throw new InvalidDataException("SlowApp's /report was empty.");

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

    /// <summary>Builds samples/Orseis.Samples.SlowApp (Release) and returns its dll.</summary>
    public static string BuildApp()
    {
        string root;
        try
        {
            root = Orseis.Testing.RepositoryRoot.Find();
        }
        catch (InvalidOperationException)
        {
            throw new ScenarioSetupException("The SlowApp studies run from the repository (Orseis.sln not found above the program).");
        }

        string project = Path.Combine(root, "samples", "Orseis.Samples.SlowApp");
        var start = new ProcessStartInfo("dotnet", ["build", "-c", "Release", "--nologo", "-v", "q", project]) { RedirectStandardOutput = true, RedirectStandardError = true };
        using Process build = Process.Start(start)!;
        Task<string> output = build.StandardOutput.ReadToEndAsync();
        _ = build.StandardError.ReadToEndAsync();
        if (!build.WaitForExit(TimeSpan.FromMinutes(5)) || build.ExitCode != 0)
            throw new ScenarioSetupException($"Building {project} failed: {output.Result}");
        return Path.Combine(project, "bin", "Release", "net10.0", "Orseis.Samples.SlowApp.dll");
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
