using System.Diagnostics.Tracing;
using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

[Collection(DiagnosticsCollection.Name)]
public sealed class EventSourceTests : DiagTest
{
    [Fact]
    public void Open_and_command_have_start_and_stop_events_with_pool_and_figures()
    {
        using var events = new EventCollector();
        using (Database db = Open())
            db.Query<string>("select name from items where id = @id", new { id = 2 });

        IReadOnlyList<EventWrittenEventArgs> mine = events.For(Pool);
        Assert.Equal(["OpenStart", "OpenStop", "CommandStart", "CommandStop", "Released"], mine.Select(e => e.EventName));
        EventWrittenEventArgs openStop = mine[1];
        Assert.Equal(EventOpcode.Stop, openStop.Opcode);
        Assert.True((bool)EventCollector.Field(openStop, "succeeded")!);
        Assert.InRange((double)EventCollector.Field(openStop, "durationMs")!, 0, 30_000);
        Assert.Equal(1, (int)EventCollector.Field(mine[0], "pending")!);
        Assert.Equal("", EventCollector.Field(mine[2], "commandText"));
        Assert.InRange((double)EventCollector.Field(mine[4], "heldMs")!, 0, 30_000);
    }

    [Fact]
    public void Command_text_only_when_opted_in_and_parameter_values_never()
    {
        using var events = new EventCollector();
        using (Database db = Open(diagnostics: d => d.CaptureCommandText = true))
            db.Query<string>("select name from items where name = @secret", new { secret = "secret-value-42" });

        EventWrittenEventArgs start = Assert.Single(events.For(Pool), e => e.EventName == "CommandStart");
        Assert.Equal("select name from items where name = @secret", EventCollector.Field(start, "commandText"));
        Assert.DoesNotContain(events.For(Pool).SelectMany(e => e.Payload!), p => p?.ToString()?.Contains("secret-value-42", StringComparison.Ordinal) == true);
    }

    [Fact]
    public void A_failed_command_stops_with_succeeded_false()
    {
        using var events = new EventCollector();
        using (Database db = Open())
            Assert.ThrowsAny<Exception>(() => db.Execute("select * from no_such_table"));

        EventWrittenEventArgs stop = Assert.Single(events.For(Pool), e => e.EventName == "CommandStop");
        Assert.False((bool)EventCollector.Field(stop, "succeeded")!);
    }

    [Fact]
    public async Task A_stream_stops_with_succeeded_true_when_read_or_left_early_and_false_when_it_fails()
    {
        using var events = new EventCollector();
        using (Database db = Open())
        {
            Assert.Equal(3, db.Stream<string>("select name from items").Count());
            foreach (string _ in db.Stream<string>("select name from items"))
                break;
            Assert.Throws<MappingException>(() => db.Stream<int>("select name from items").ToList());
            await foreach (string _ in db.StreamAsync<string>("select name from items"))
                break;
            await Assert.ThrowsAsync<MappingException>(async () =>
            {
                await foreach (int _ in db.StreamAsync<int>("select name from items"))
                {
                }
            });
            Assert.ThrowsAny<Exception>(() => db.Stream<int>("select * from no_such_table").ToList());
            Assert.ThrowsAny<Exception>(() => db.Stream<long>("select case when id = 2 then abs(-9223372036854775807 - 1) else id end from items order by id").ToList());
        }

        // Read to the end, left early, mapping failure, left early (async), mapping failure (async), execute failure,
        // read failure on the second row.
        bool[] succeeded = events.For(Pool).Where(e => e.EventName == "CommandStop").Select(e => (bool)EventCollector.Field(e, "succeeded")!).ToArray();
        Assert.Equal([true, true, false, true, false, false, false], succeeded);
    }

    [Fact]
    public async Task A_grid_stops_once_when_disposed_succeeded_unless_the_server_failed_it_and_gives_its_connection_back()
    {
        using var events = new EventCollector();
        const string Two = "select name from items order by id; select count(*) from items";
        const string Overflow = "select 1; select case when id = 2 then abs(-9223372036854775807 - 1) else id end from items order by id";
        using (Database db = Open())
        {
            using (GridReader grids = db.QueryMultiple(Two))
            {
                Assert.Equal(3, grids.Read<string>().Count);
                Assert.Equal(3L, grids.ReadSingle<long>());
            }

            await using (GridReader grids = await db.QueryMultipleAsync(Two))
                Assert.Equal(3, (await grids.ReadAsync<string>()).Count);
            using (GridReader grids = db.QueryMultiple(Two))
            {
                Assert.Throws<MappingException>(() => grids.Read<int>());
                Assert.Equal(3L, grids.ReadSingle<long>());
            }

            Assert.ThrowsAny<Exception>(() => db.QueryMultiple("select * from no_such_table"));
            await using (GridReader grids = await db.QueryMultipleAsync(Overflow))
            {
                Assert.Equal(1L, await grids.ReadSingleAsync<long>());
                await Assert.ThrowsAnyAsync<Exception>(() => grids.ReadAsync<long>());
            }

            Assert.Equal(0, db.GetPoolReport().InUse);
        }

        // Read to the end, left early (async), a mapping failure that moved on, an execute failure, a read failure.
        IReadOnlyList<EventWrittenEventArgs> mine = events.For(Pool);
        bool[] succeeded = mine.Where(e => e.EventName == "CommandStop").Select(e => (bool)EventCollector.Field(e, "succeeded")!).ToArray();
        Assert.Equal([true, true, true, false, false], succeeded);
        Assert.Equal(5, mine.Count(e => e.EventName == "CommandStart"));
        Assert.Equal(5, mine.Count(e => e.EventName == "Released"));
    }

    [Fact]
    public void A_grid_is_released_as_soon_as_its_last_result_set_is_read_not_when_disposed()
    {
        using var events = new EventCollector();
        using Database db = Open();
        using (GridReader grids = db.QueryMultiple("select name from items order by id; select count(*) from items"))
        {
            Assert.Equal(3, grids.Read<string>(buffered: false).Count());
            Assert.DoesNotContain(events.For(Pool), e => e.EventName == "Released");
            Assert.Equal(1, db.GetPoolReport().InUse);
            Assert.Equal(3L, grids.ReadSingle<long>());
            Assert.Equal(["CommandStop", "Released"], events.For(Pool).Select(e => e.EventName).TakeLast(2));
            Assert.True((bool)EventCollector.Field(events.For(Pool).Single(e => e.EventName == "CommandStop"), "succeeded")!);
            Assert.Equal(0, db.GetPoolReport().InUse);
        }

        Assert.Single(events.For(Pool), e => e.EventName == "Released");
    }

    [Fact]
    public void Each_finding_is_an_event_with_kind_message_and_figures()
    {
        using var events = new EventCollector();
        using (Database db = Open(diagnostics: d =>
               {
                   d.Detectors = FindingKind.Churn;
                   d.ChurnThreshold = 3;
               }))
        {
            for (int i = 0; i < 3; i++)
                db.Execute("select 1");
        }

        EventWrittenEventArgs finding = Assert.Single(events.For(Pool), e => e.EventName == "Finding");
        Assert.Equal(EventLevel.Warning, finding.Level);
        Assert.Equal("Churn", EventCollector.Field(finding, "kind"));
        Assert.Contains("opens=3", (string)EventCollector.Field(finding, "figures")!, StringComparison.Ordinal);
        Assert.Contains("3 connection opens", (string)EventCollector.Field(finding, "message")!, StringComparison.Ordinal);
    }
}
