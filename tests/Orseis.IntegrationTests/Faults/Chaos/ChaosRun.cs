using System.Data.Common;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using Orseis.IntegrationTests.Retries;

namespace Orseis.IntegrationTests.Faults.Chaos;

/// <summary>What one chaos run saw: hey's two loads, the app's own counts, the rows written, the kills, the retries.</summary>
internal sealed record ChaosResult(
    HeyResult Reads,
    HeyResult Writes,
    int WrongReads,
    int WritesAnswered,
    long Rows,
    long DistinctRows,
    int KillRounds,
    int Killed,
    long Retries,
    string Failures,
    IReadOnlyList<string> Samples,
    IReadOnlyList<Orseis.Diagnostics.PoolFinding> Findings)
{
    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"""
        reads: {Reads.Total} requests, {Reads.Failed} failed, {WrongReads} wrong, p99 {Reads.P99Seconds * 1000:0} ms
        writes: {Writes.Total} requests, {Writes.Status(200)} answered 200 ({WritesAnswered} by the app's count), {Writes.Failed} failed; rows {Rows}, distinct keys {DistinctRows}
        kills: {Killed} connections in {KillRounds} rounds; retries counted: {Retries}
        findings: {(Findings.Count == 0 ? "none" : string.Join(" | ", Findings.Select(f => $"{f.Kind}: {f.Message}")))}
        failures by endpoint and type: {Failures}
        """);
}

/// <summary>
/// The chaos load: the <see cref="ChaosApp"/> on <paramref name="server"/>, hey on its read and write endpoints at once
/// for <see cref="Duration"/>, and every connection of the app ended every <see cref="KillEvery"/> from an
/// administrator's connection. Every <see cref="SampleEvery"/> the process' memory and the app's server connections are
/// sampled (the soak reads them).
/// </summary>
internal sealed class ChaosRun(ChaosServer server, bool retries)
{
    public TimeSpan Duration { get; init; } = TimeSpan.FromSeconds(10);

    public TimeSpan KillEvery { get; init; } = TimeSpan.FromSeconds(2);

    public TimeSpan SampleEvery { get; init; } = TimeSpan.FromSeconds(10);

    public int ReadClients { get; init; } = 16;

    public int WriteClients { get; init; } = 4;

    /// <summary>What each sample line holds, comma-separated.</summary>
    public const string SampleColumns =
        "s,working set MB,GC heap MB,live heap MB,GC committed MB,threads,app connections,reads ok,reads failed,writes ok,writes failed,retries";

    /// <summary>Called with each sample line as it is taken.</summary>
    public Action<string>? OnSample { get; init; }

    /// <summary>
    /// A CSV file each sample line is also appended to as it is taken (<see cref="SampleColumns"/> first): the soak's
    /// samples survive a run that is stopped. <c>ORSEIS_CHAOS_SAMPLES</c> when set.
    /// </summary>
    public string? SampleFile { get; init; } = Environment.GetEnvironmentVariable("ORSEIS_CHAOS_SAMPLES") is { Length: > 0 } f ? f : null;

    public async Task<ChaosResult> RunAsync()
    {
        string suffix = Guid.NewGuid().ToString("N")[..10];
        string items = "chaos_items_" + suffix, writes = "chaos_writes_" + suffix, pool = "orseis_chaos_" + suffix;
        using var probe = new RetryProbe(pool, keepEvents: false);
        var options = new OrseisOptions { PoolName = pool, CommandTimeout = TimeSpan.FromSeconds(10) };
        options.Retry.Enabled = retries;
        options.Retry.Budget = TimeSpan.FromSeconds(5);
        options.Diagnostics.Detectors = Orseis.Diagnostics.FindingKind.FrequentRetries;
        await using var db = new Database(server.Factory, server.AppConnectionString, options);
        foreach (string sql in server.CreateTablesSql(items, writes))
            await db.ExecuteAsync(sql);

        await using DbConnection admin = await server.OpenAdminAsync();
        try
        {
            await using ChaosApp app = await ChaosApp.StartAsync(db, server.ReadSql(items), server.WriteSql(writes));
            using var stop = new CancellationTokenSource();
            var samples = new List<string>();
            if (SampleFile is { } file)
                await File.WriteAllTextAsync(file, SampleColumns + "\n");
            (int rounds, int killed) kills = (0, 0);
            Task killing = Task.Run(async () =>
            {
                long started = Stopwatch.GetTimestamp();
                TimeSpan nextKill = KillEvery / 2, nextSample = SampleEvery;
                while (!stop.IsCancellationRequested)
                {
                    TimeSpan now = Stopwatch.GetElapsedTime(started);
                    if (now >= nextKill)
                    {
                        kills = (kills.rounds + 1, kills.killed + await server.KillAppConnectionsAsync(admin));
                        nextKill += KillEvery;
                    }

                    if (now >= nextSample)
                    {
                        string line = await SampleAsync(admin, now, app, probe);
                        samples.Add(line);
                        OnSample?.Invoke(line);
                        if (SampleFile is { } file)
                            await File.AppendAllTextAsync(file, line + "\n");
                        nextSample += SampleEvery;
                    }

                    await Task.Delay(50, CancellationToken.None);
                }
            });

            Task<HeyResult> reading = HeyResult.RunAsync(app.Url + "/read", Duration, ReadClients);
            Task<HeyResult> writing = HeyResult.RunAsync(app.Url + "/write", Duration, WriteClients, "POST");
            HeyResult readResult = await reading, writeResult = await writing;
            stop.Cancel();
            await killing;

            // The counts are read after the load, on the administrator's connection: nothing of the app runs any more.
            long rows = await ChaosServer.ScalarAsync(admin, $"select count(*) from {writes}");
            long distinct = await ChaosServer.ScalarAsync(admin, $"select count(distinct req) from {writes}");
            string failures = app.Failures.IsEmpty
                ? "none"
                : string.Join(", ", app.Failures.OrderBy(f => f.Key, StringComparer.Ordinal).Select(f => $"{f.Key} {f.Value}"));
            if (!app.FailedReads.IsEmpty)
                failures += "\nfailed reads (ms after the call began: error): " + string.Join(" | ", app.FailedReads);
            return new ChaosResult(
                readResult, writeResult, app.Wrong, app.WritesAnswered, rows, distinct, kills.rounds, kills.killed, probe.Total, failures, samples,
                db.GetPoolReport().Findings);
        }
        finally
        {
            await using DbCommand drop = admin.CreateCommand();
            drop.CommandText = $"drop table {items}, {writes}";
            await drop.ExecuteNonQueryAsync();
        }
    }

    private async Task<string> SampleAsync(DbConnection admin, TimeSpan at, ChaosApp app, RetryProbe probe)
    {
        using Process self = Process.GetCurrentProcess();
        long connections = await ChaosServer.ScalarAsync(admin, server.AppConnectionCountSql);
        const double MB = 1024 * 1024;
        var line = new StringBuilder();
        line.Append(CultureInfo.InvariantCulture, $"{at.TotalSeconds:0},{self.WorkingSet64 / MB:0.0},{GC.GetTotalMemory(false) / MB:0.0},");
        // The live heap: what a full, blocking collection leaves (a few milliseconds every 10 s on this heap).
        line.Append(CultureInfo.InvariantCulture, $"{GC.GetTotalMemory(forceFullCollection: true) / MB:0.0},");
        line.Append(CultureInfo.InvariantCulture, $"{GC.GetGCMemoryInfo().TotalCommittedBytes / MB:0.0},{self.Threads.Count},{connections},");
        line.Append(CultureInfo.InvariantCulture, $"{app.ReadsAnswered},{app.ReadsFailed},{app.WritesAnswered},{app.WritesFailed},{probe.Total}");
        return line.ToString();
    }
}
