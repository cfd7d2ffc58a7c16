using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using System.Globalization;
using System.Reflection;
using System.Text.Json;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;
using Orseis.Trace;

namespace Orseis.EndToEndTests;

/// <summary>
/// The Orseis EventSource as a tool outside the process reads it: tests/Orseis.EventsProbe raises every event and logs
/// the values it passed (through an in-process EventListener); the same events are read here over EventPipe and
/// decoded by TraceEvent, as dotnet-trace and PerfView decode them, and compared field by field.
/// </summary>
public sealed class OutOfProcessEventsTests
{
    private const long EtwSessionBits = 0xF00000000000;

    [Fact]
    public void Every_declared_event_decodes_over_EventPipe_to_the_values_the_process_passed()
    {
        IReadOnlyDictionary<int, DeclaredEvent> declared = DeclaredEvent.All();
        // Every keyword Orseis declares, the detectors' facts included, as a 32-bit mask: what docs/diagnostics.md tells users to type.
        (List<LoggedEvent> logged, List<ReceivedEvent> received) = Run(new EventPipeProvider("Orseis", EventLevel.Verbose, keywords: 0x1F));

        // The probe must raise every declared event: an event added later without a case in the probe fails here.
        Assert.Equal(declared.Values.Select(d => d.Name).Order(), logged.Select(e => e.Name).Distinct().Order());
        Assert.True(logged.Count == received.Count,
            $"{logged.Count} events written, {received.Count} read over EventPipe.\nwritten: {string.Join(", ", logged.Select(e => e.Name))}\nread:    {string.Join(", ", received.Select(e => e.Name))}");

        for (int i = 0; i < logged.Count; i++)
        {
            LoggedEvent wrote = logged[i];
            ReceivedEvent read = received[i];
            DeclaredEvent d = declared[wrote.Id];
            string where = $"event #{i} ({d.Name})";
            Assert.True(read.Id == d.Id, $"{where}: read event id {read.Id} ({read.Name})");
            // EventSource adds its legacy ETW session bits (0xF00000000000) to every event's descriptor; besides
            // those, an event must carry exactly its declared keywords (before this was fixed it carried only them).
            Assert.True((read.Keywords & ~EtwSessionBits) == (long)d.Keywords, $"{where}: keywords 0x{read.Keywords:X} over EventPipe, declared 0x{(long)d.Keywords:X}");
            Assert.True(read.Level == d.Level, $"{where}: level {read.Level}, declared {d.Level}");
            Assert.True((wrote.Keywords & ~EtwSessionBits) == (long)d.Keywords, $"{where}: keywords 0x{wrote.Keywords:X} in-process, declared 0x{(long)d.Keywords:X}");
            Assert.Equal(d.Parameters.Select(p => p.Name), read.PayloadNames);
            for (int f = 0; f < d.Parameters.Count; f++)
            {
                ParameterInfo p = d.Parameters[f];
                object expected = wrote.Value(p);
                object? actual = read.Values[f];
                Assert.True(actual is not null && actual.GetType() == p.ParameterType,
                    $"{where}.{p.Name}: decoded as {actual?.GetType().Name ?? "null"} '{actual}', declared {p.ParameterType.Name}");
                Assert.True(expected.Equals(actual), $"{where}.{p.Name}: the process passed '{Show(expected)}', EventPipe decoded '{Show(actual)}'");
            }
        }

        // The workload's cases, so the comparison above covered them: both outcomes of each Stop, captured text.
        Assert.Contains(logged, e => e.Name == "OpenStop" && e.Payload.GetProperty("succeeded").GetBoolean());
        Assert.Contains(logged, e => e.Name == "OpenStop" && !e.Payload.GetProperty("succeeded").GetBoolean());
        Assert.Contains(logged, e => e.Name == "CommandStop" && !e.Payload.GetProperty("succeeded").GetBoolean());
        Assert.Contains(logged, e => e.Name == "CommandStart" && e.Payload.GetProperty("commandText").GetString()!.Contains('✓', StringComparison.Ordinal));
        Assert.Contains(logged, e => e.Name == "Finding" && e.Payload.GetProperty("kind").GetString() == "HeldTooLong");
        Assert.Contains(logged, e => e.Name == "Finding" && e.Payload.GetProperty("kind").GetString() == "ServerUnavailable");
        Assert.Contains(logged, e => e.Name == "Finding" && e.Payload.GetProperty("kind").GetString() == "RepeatedStatement" &&
                                     e.Payload.GetProperty("message").GetString()!.StartsWith("N+1 candidate: one statement ran 5 times", StringComparison.Ordinal));
    }

    [Fact]
    public void A_keyword_mask_selects_exactly_the_events_of_its_keywords()
    {
        const long OpenAndFinding = 0x1 | 0x4;
        IReadOnlyDictionary<int, DeclaredEvent> declared = DeclaredEvent.All();
        (List<LoggedEvent> logged, List<ReceivedEvent> received) = Run(new EventPipeProvider("Orseis", EventLevel.Verbose, keywords: OpenAndFinding));

        List<int> expected = [.. logged.Where(e => ((long)declared[e.Id].Keywords & OpenAndFinding) != 0).Select(e => e.Id)];
        Assert.Equal([1, 2, 5], expected.Distinct().Order());
        Assert.Equal(expected, received.Select(e => e.Id));
    }

    [Fact]
    public void A_scope_that_parks_its_connection_shows_each_calls_in_use_and_its_reuses_over_EventPipe()
    {
        // The probe's pool "probe-parks": a session holds one connection; a scope's three calls open one more, park it as each
        // ends and take it back for the next, and the scope ends; then the session. As dotnet-counters and orseis-trace read it.
        using EventsProbeProcess probe = EventsProbeProcess.Start();
        var events = new ConcurrentQueue<PoolEvent>();
        var reuses = new ConcurrentQueue<MetricValue>();
        using (var session = new OrseisTraceSession(probe.Id, TimeSpan.FromSeconds(1), allEvents: true))
        {
            session.PoolEvent += e =>
            {
                if (e.Pool == "probe-parks")
                    events.Enqueue(e);
            };
            session.Metric += m =>
            {
                if (m.Instrument == "orseis.scope.reuses" && m.Tags.Contains("db.client.connection.pool.name=probe-parks", StringComparison.Ordinal))
                    reuses.Enqueue(m);
            };
            probe.RunWorkload();
            // The events arrive as written; the counter's increase once a second: wait for both, at most 30 s.
            var deadline = DateTime.UtcNow.AddSeconds(30);
            while (DateTime.UtcNow < deadline && (events.Count(e => e.Name == "Released") < 4 || reuses.Sum(m => m.Value) < 2))
                Thread.Sleep(100);
        }

        // Each call's hold ends as its connection parks: in use after it, the session's connection only (taken less parked), not
        // the parked one; the session's own release leaves none.
        Assert.Equal([1, 1, 1, 0], events.Where(e => e.Name == "Released").Select(e => e.InUse));
        // Two opens (the session's, the scope's first call's); the scope's second and third calls took the parked connection.
        Assert.Equal([0, 1], events.Where(e => e.Name == "Open/Start").Select(e => e.InUse));
        Assert.Equal(2, reuses.Sum(m => m.Value));
        Assert.All(reuses, m => Assert.Equal("Rate", m.Kind));
    }

    /// <summary>Runs the probe's workload while an EventPipe session with <paramref name="provider"/> reads it.</summary>
    private static (List<LoggedEvent> Logged, List<ReceivedEvent> Received) Run(EventPipeProvider provider)
    {
        using EventsProbeProcess probe = EventsProbeProcess.Start();
        var received = new List<ReceivedEvent>();
        EventPipeSession session = new DiagnosticsClient(probe.Id).StartEventPipeSession([provider], requestRundown: false);
        using (session)
        {
            using var source = new EventPipeEventSource(session.EventStream);
            source.Dynamic.All += e =>
            {
                if (e.ProviderName == "Orseis")
                    received.Add(ReceivedEvent.From(e));
            };
            var reader = new Thread(() => source.Process()) { IsBackground = true, Name = "EventPipe reader" };
            reader.Start();
            probe.RunWorkload();
            session.Stop();
            Assert.True(reader.Join(TimeSpan.FromSeconds(30)), "the EventPipe stream did not end within 30 s of stopping the session");
        }

        return (LoggedEvent.Read(probe.LogPath), received);
    }

    private static string Show(object? value) => value switch
    {
        double d => d.ToString("R", CultureInfo.InvariantCulture),
        string s => s.Length > 80 ? s[..80] + "…" : s,
        _ => Convert.ToString(value, CultureInfo.InvariantCulture) ?? "null",
    };

    /// <summary>An event the Orseis EventSource declares: an [Event] method of OrseisEventSource, read by reflection.</summary>
    private sealed record DeclaredEvent(int Id, string Name, EventKeywords Keywords, int Level, IReadOnlyList<ParameterInfo> Parameters)
    {
        public static IReadOnlyDictionary<int, DeclaredEvent> All()
        {
            Type source = typeof(Database).Assembly.GetType("Orseis.Diagnostics.OrseisEventSource", throwOnError: true)!;
            var events = new Dictionary<int, DeclaredEvent>();
            foreach (MethodInfo method in source.GetMethods(BindingFlags.Instance | BindingFlags.Public | BindingFlags.DeclaredOnly))
            {
                if (method.GetCustomAttribute<EventAttribute>() is { } attribute)
                    events.Add(attribute.EventId, new DeclaredEvent(attribute.EventId, method.Name, attribute.Keywords, (int)attribute.Level, method.GetParameters()));
            }

            Assert.NotEmpty(events);
            return events;
        }
    }

    /// <summary>One line of the probe's log: an event as written in-process, with the values passed.</summary>
    private sealed record LoggedEvent(int Id, string Name, long Keywords, JsonElement Payload)
    {
        public static List<LoggedEvent> Read(string path) =>
            [.. File.ReadLines(path).Select(line => JsonDocument.Parse(line).RootElement).Select(e => new LoggedEvent(
                e.GetProperty("id").GetInt32(), e.GetProperty("name").GetString()!, e.GetProperty("keywords").GetInt64(), e.GetProperty("payload")))];

        /// <summary>The logged value of <paramref name="p"/>, as the parameter's declared type.</summary>
        public object Value(ParameterInfo p)
        {
            JsonElement v = Payload.GetProperty(p.Name!);
            return p.ParameterType switch
            {
                var t when t == typeof(string) => v.GetString()!,
                var t when t == typeof(int) => v.GetInt32(),
                var t when t == typeof(long) => v.GetInt64(),
                var t when t == typeof(double) => v.GetDouble(),
                var t when t == typeof(bool) => v.GetBoolean(),
                var t => throw new NotSupportedException($"{Name}.{p.Name}: add a comparison for {t.Name}"),
            };
        }
    }

    /// <summary>An Orseis event as TraceEvent decoded it from the EventPipe stream (copied: TraceEvent reuses its objects).</summary>
    private sealed record ReceivedEvent(int Id, string Name, long Keywords, int Level, string[] PayloadNames, object?[] Values)
    {
        public static ReceivedEvent From(TraceEvent e) =>
            new((int)e.ID, e.EventName, (long)e.Keywords, (int)e.Level, e.PayloadNames, [.. Enumerable.Range(0, e.PayloadNames.Length).Select(e.PayloadValue)]);
    }
}
