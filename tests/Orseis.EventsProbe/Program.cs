// Orseis.EventsProbe: raises every event of the Orseis EventSource and logs the values each one carried.
//
//   dotnet Orseis.EventsProbe.dll LOG.jsonl
//
// 1. Enables the Orseis EventSource in-process (an EventListener at Verbose, every keyword by name: 0x1F) and prints "ready pid=N".
// 2. Waits for a line "go" on standard input: the end-to-end test sends it once its EventPipe session is running.
// 3. Runs a small SQLite workload on this one thread (so the in-process order is the order the events were written),
//    writes one JSON line per event to LOG.jsonl: id, name, keywords, level, opcode and the payload by name, each
//    value as its own JSON type, then prints "done" and exits at end of input or on a line "exit".
//
// The workload raises each event the EventSource declares: opens that succeed and one that fails (a file in a folder
// that does not exist), commands that succeed and one that fails, command text (captured on purpose, with non-ASCII
// characters), releases, a HeldTooLong finding (threshold 1 ms, a session held 30 ms), a Churn one (a streak of two), a
// RepeatedStatement one (five lookups in a scope) and a ServerUnavailable one (the open that failed); and, as detectors are on, the detectors' facts of each of those steps
// (FactPool to FactChurnSite). And a ConnectionScope that parks its connection while a session holds another (pool
// "probe-parks"): the releases of its parked calls, and its reuses on the meter (orseis.scope.reuses).
//
//   dotnet Orseis.EventsProbe.dll --parked-scopes MYSQL-CONNECTION-STRING
//
// runs ParkedScopes instead: a MariaDB pool taken whole by a session and two scopes that parked, and a caller that times out.
using System.Diagnostics.Tracing;
using System.Text.Json;
using Microsoft.Data.Sqlite;
using Orseis;
using Orseis.Diagnostics;

// The second workload: a MariaDB pool exhausted by a session and two scopes that park (ParkedScopes.cs).
if (args is ["--parked-scopes", var parkedOn])
    return await ParkedScopes.RunAsync(parkedOn);

if (args.Length != 1)
{
    Console.Error.WriteLine("usage: Orseis.EventsProbe LOG.jsonl | --parked-scopes MYSQL-CONNECTION-STRING");
    return 2;
}

using var listener = new OrseisEventLog();
Console.WriteLine($"ready pid={Environment.ProcessId}");
if (Console.ReadLine() != "go")
    return 1;

string folder = Path.Combine(Path.GetTempPath(), $"orseis-events-probe-{Environment.ProcessId}");
Directory.CreateDirectory(folder);
try
{
    var options = new OrseisOptions
    {
        PoolName = "probe",
        Diagnostics =
        {
            CaptureCommandText = true,
            Detectors = FindingKind.HeldTooLong | FindingKind.Churn,
            HeldTooLongThreshold = TimeSpan.FromMilliseconds(1),
            // The first calls on this one flow are a churn streak of two: its call site is a fact of its own.
            ChurnThreshold = 2,
            ChurnGap = TimeSpan.FromMinutes(1),
        },
    };
    using (var db = new Database(SqliteFactory.Instance, $"Data Source={Path.Combine(folder, "probe.db")};Pooling=True", options))
    {
        db.Execute("create table items (id integer primary key, name text not null)");
        db.Execute("insert into items (id, name) values (1, 'héllo ✓')");
        db.Query<string>("select name from items where id = @id", new { id = 1 });
        try
        {
            db.Execute("select * from no_such_table");
        }
        catch (OrseisException)
        {
        }
        catch (SqliteException)
        {
        }

        using (Session session = db.OpenSession())
        {
            session.Scalar<long>("select count(*) from items");
            Thread.Sleep(30);
        }
    }

    // An N+1 loop in a scope: the RepeatedStatement finding, raised on this thread as the scope ends.
    var repeats = new OrseisOptions { PoolName = "probe-repeats", Diagnostics = { Detectors = FindingKind.RepeatedStatement } };
    using (var db = new Database(SqliteFactory.Instance, $"Data Source={Path.Combine(folder, "probe.db")};Pooling=True", repeats))
    {
        using (db.BeginScope())
        {
            foreach (long id in db.Query<long>("select id from items"))
            {
                for (int round = 0; round < 5; round++)
                    db.QuerySingleOrDefault<string>("select name from items where id = @id", new { id = id + round });
            }
        }
    }

    // A scope that parks its connection while a session holds another: each of its three calls ends its hold as the connection
    // parks (a Released event, counting in use the session's connection and not the parked one), the second and third take the
    // parked connection (no open: the scope's reuses). A window of 10 s: no sweep gives it back between the calls.
    var parks = new OrseisOptions { PoolName = "probe-parks", ScopeIdleWindow = TimeSpan.FromSeconds(10) };
    using (var db = new Database(SqliteFactory.Instance, $"Data Source={Path.Combine(folder, "probe.db")};Pooling=True", parks))
    {
        using Session held = db.OpenSession();
        held.Scalar<long>("select count(*) from items");
        using (db.BeginScope())
        {
            for (int call = 0; call < 3; call++)
                db.Scalar<long>("select count(*) from items");
        }
    }

    // A file that cannot be opened: the failed open, and the ServerUnavailable finding it raises.
    var unreachable = new OrseisOptions { PoolName = "probe-missing", Diagnostics = { Detectors = FindingKind.ServerUnavailable } };
    using (var missing = new Database(SqliteFactory.Instance, $"Data Source={Path.Combine(folder, "no-such-folder", "x.db")};Mode=ReadOnly", unreachable))
    {
        try
        {
            missing.Execute("select 1");
        }
        catch (SqliteException)
        {
        }
    }
}
finally
{
    SqliteConnection.ClearAllPools();
    Directory.Delete(folder, recursive: true);
}

listener.WriteTo(args[0]);
Console.WriteLine($"done events={listener.Count}");
while (Console.ReadLine() is { } line && line != "exit")
{
}

return 0;

/// <summary>Every Orseis event written in this process, with the values it carried, in the order written.</summary>
internal sealed class OrseisEventLog : EventListener
{
    private readonly List<string> _lines = [];

    public int Count
    {
        get
        {
            lock (_lines)
                return _lines.Count;
        }
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Orseis")
            EnableEvents(eventSource, EventLevel.Verbose, (EventKeywords)0x1F); // every keyword, the facts' (0x10) by name
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        if (e.EventSource.Name != "Orseis")
            return;
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer))
        {
            json.WriteStartObject();
            json.WriteNumber("id", e.EventId);
            json.WriteString("name", e.EventName);
            json.WriteNumber("keywords", (long)e.Keywords);
            json.WriteNumber("level", (int)e.Level);
            json.WriteNumber("opcode", (int)e.Opcode);
            json.WriteStartObject("payload");
            for (int i = 0; i < (e.PayloadNames?.Count ?? 0); i++)
            {
                json.WritePropertyName(e.PayloadNames![i]);
                switch (e.Payload![i])
                {
                    case string s: json.WriteStringValue(s); break;
                    case int n: json.WriteNumberValue(n); break;
                    case long n: json.WriteNumberValue(n); break;
                    case double d: json.WriteNumberValue(d); break;
                    case bool b: json.WriteBooleanValue(b); break;
                    case var other: throw new NotSupportedException($"{e.EventName}.{e.PayloadNames[i]}: add a case for {other?.GetType()}");
                }
            }

            json.WriteEndObject();
            json.WriteEndObject();
        }

        lock (_lines)
            _lines.Add(System.Text.Encoding.UTF8.GetString(buffer.ToArray()));
    }

    public void WriteTo(string path)
    {
        lock (_lines)
            File.WriteAllLines(path, _lines);
    }
}
