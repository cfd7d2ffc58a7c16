using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;

namespace Orseis.EndToEndTests;

/// <summary>
/// The fleet view end to end: three instances of the fleet sample on loopback, each holding its own number of
/// connections to a real MariaDB, scraped by a real Prometheus (Debian's) with the sample's rules; its HTTP API's
/// fleet-wide connection sum is what the three hold, each connection once. Bounded: everything it starts stops by
/// itself (the samples after --duration, Prometheus under timeout) and is killed when the test ends.
/// </summary>
public sealed class FleetPrometheusTests
{
    [MariaDbWithPrometheusFact]
    public async Task Prometheus_sums_the_connections_of_three_instances_once_each()
    {
        string mysql = Environment.GetEnvironmentVariable("ORSEIS_MYSQL") ?? throw new InvalidOperationException("ORSEIS_MYSQL is not set.");
        string folder = Directory.CreateTempSubdirectory("orseis-fleet-").FullName;
        var started = new List<Process>();
        try
        {
            int[] ports = FreePorts(4);
            string rules = Path.Combine(FleetRulesTests.RulesFolder, "orseis-rules.yml");
            string targets = string.Join(", ", ports.Take(3).Select(p => $"'127.0.0.1:{p}'"));
            File.WriteAllText(Path.Combine(folder, "prometheus.yml"), $"""
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files:
                  - '{rules}'
                scrape_configs:
                  - job_name: fleet
                    static_configs:
                      - targets: [{targets}]
                """);
            started.Add(Start("timeout", "90", "prometheus", $"--config.file={Path.Combine(folder, "prometheus.yml")}",
                $"--storage.tsdb.path={Path.Combine(folder, "data")}", $"--web.listen-address=127.0.0.1:{ports[3]}", "--log.level=warn"));

            // Instance i holds i connections (sessions) and runs no load, so what the fleet holds is known exactly.
            Process[] samples = await Task.WhenAll(Enumerable.Range(1, 3).Select(i => StartSample(
                started, mysql, "--port", ports[i - 1].ToString(CultureInfo.InvariantCulture), "--pool-name", $"fleet-{i}",
                "--sessions", i.ToString(CultureInfo.InvariantCulture), "--workers", "0", "--duration", "60")));
            Assert.Equal(3, samples.Length);

            using var http = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{ports[3]}/"), Timeout = TimeSpan.FromSeconds(5) };
            List<(Dictionary<string, string> Labels, double Value)> byInstance = await Eventually(
                http, "fleet:db_connections:by_instance", result => result.Count == 3);
            Assert.Equal([1.0, 2.0, 3.0], byInstance.Select(r => r.Value).Order());

            // 1 + 2 + 3: MySqlConnector's db_client_connections_usage counts them; Orseis' own count is under
            // orseis_connection_count for a MySqlConnector pool, so neither the sum nor the recorded rule counts them twice.
            Assert.Equal(6, Assert.Single(await Query(http, "sum({__name__=~\"db_client_connection_count|db_client_connections_usage\"})")).Value);
            Assert.Equal(6, Assert.Single(await Eventually(http, "fleet:db_connections:sum", r => r.Count == 1)).Value);
            Assert.Equal(6, (await Query(http, "orseis_connection_count")).Sum(r => r.Value));
            Assert.Equal(3, Assert.Single(await Query(http, "count(up{job=\"fleet\"} == 1)")).Value);
            Assert.Equal(6.0 / 151, Assert.Single(await Query(http, "fleet:db_connections:server_ratio")).Value, 6);
        }
        finally
        {
            foreach (Process process in started)
            {
                try
                {
                    if (!process.HasExited)
                        process.Kill(entireProcessTree: true);
                    process.WaitForExit(10_000);
                }
                finally
                {
                    process.Dispose();
                }
            }

            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>Queries until <paramref name="done"/> holds (Prometheus needs a scrape or two and a rule evaluation), 30 s at most.</summary>
    private static async Task<List<(Dictionary<string, string> Labels, double Value)>> Eventually(
        HttpClient http, string query, Func<List<(Dictionary<string, string> Labels, double Value)>, bool> done)
    {
        var clock = Stopwatch.StartNew();
        List<(Dictionary<string, string>, double)> result = [];
        while (clock.Elapsed < TimeSpan.FromSeconds(30))
        {
            try
            {
                result = await Query(http, query);
                if (done(result))
                    return result;
            }
            catch (HttpRequestException)
            {
                // Prometheus is still starting.
            }

            await Task.Delay(500);
        }

        throw new TimeoutException($"'{query}' still gave {result.Count} series after 30 s.");
    }

    private static async Task<List<(Dictionary<string, string> Labels, double Value)>> Query(HttpClient http, string query)
    {
        using JsonDocument json = JsonDocument.Parse(await http.GetStringAsync($"api/v1/query?query={Uri.EscapeDataString(query)}"));
        Assert.Equal("success", json.RootElement.GetProperty("status").GetString());
        return
        [
            .. json.RootElement.GetProperty("data").GetProperty("result").EnumerateArray().Select(r => (
                r.GetProperty("metric").EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetString() ?? ""),
                double.Parse(r.GetProperty("value")[1].GetString()!, CultureInfo.InvariantCulture))),
        ];
    }

    private static async Task<Process> StartSample(List<Process> started, string mysql, params string[] args)
    {
        Process process = Start("dotnet", [BuiltProgram.Dll("samples", "Orseis.Samples.Fleet"), "--mysql", mysql, .. args]);
        lock (started)
            started.Add(process);
        var ready = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data?.StartsWith("ready ", StringComparison.Ordinal) == true)
                ready.TrySetResult();
        };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        await ready.Task.WaitAsync(TimeSpan.FromSeconds(30));
        return process;
    }

    private static Process Start(string program, params string[] args)
    {
        var info = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string arg in args)
            info.ArgumentList.Add(arg);
        Process process = Process.Start(info) ?? throw new InvalidOperationException($"could not start {program}");
        if (program != "dotnet")
        {
            process.OutputDataReceived += (_, _) => { };
            process.ErrorDataReceived += (_, _) => { };
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
        }

        return process;
    }

    /// <summary>Ports free on loopback now (bound to port 0, then released).</summary>
    private static int[] FreePorts(int count)
    {
        var listeners = Enumerable.Range(0, count).Select(_ => new TcpListener(IPAddress.Loopback, 0)).ToList();
        listeners.ForEach(l => l.Start());
        int[] ports = [.. listeners.Select(l => ((IPEndPoint)l.LocalEndpoint).Port)];
        listeners.ForEach(l => l.Stop());
        return ports;
    }
}
