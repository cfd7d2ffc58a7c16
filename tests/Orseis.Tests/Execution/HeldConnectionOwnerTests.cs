using System.Data.Common;
using Microsoft.Extensions.Time.Testing;
using Orseis.Diagnostics;
using Orseis.Tests.Diagnostics;

namespace Orseis.Tests.Execution;

/// <summary>
/// Who holds a connection, as each source tells the held-too-long detector: OpenPerCall's calls and streams by name (a
/// stream with where it was opened), and ReuseConnection's shared connection never, since it is held by design. The
/// detector reads a fake clock, which a type handler advances while a call holds its connection.
/// </summary>
public sealed class HeldConnectionOwnerTests : DiagTest
{
    private readonly FakeTimeProvider _time = new();

    public sealed record Tick(TimeSpan By);

    /// <summary>Binds a <see cref="Tick"/> as 1, moving the clock on while the call holds its connection.</summary>
    private sealed class ClockHandler(FakeTimeProvider time) : TypeHandler<Tick>
    {
        public override Tick Parse(object value) => throw new NotSupportedException();

        public override void SetValue(DbParameter parameter, Tick value)
        {
            time.Advance(value.By);
            parameter.Value = 1;
        }
    }

    private Database OpenWatched(ExecutionMode mode) => File.Open(mode, o =>
    {
        o.PoolName = Pool;
        o.Diagnostics.Detectors = FindingKind.HeldTooLong;
        o.Diagnostics.HeldTooLongThreshold = TimeSpan.FromSeconds(30);
        o.Diagnostics.TimeProvider = _time;
        o.AddTypeHandler(new ClockHandler(_time));
    });

    private static PoolFinding[] HeldTooLong(Database db) => [.. db.GetPoolReport().Findings.Where(f => f.Kind == FindingKind.HeldTooLong)];

    [Fact]
    public void An_open_per_call_stream_held_too_long_is_named_as_a_stream_with_where_it_was_opened()
    {
        using Database db = OpenWatched(ExecutionMode.OpenPerCall);
        using IEnumerator<long> stream = db.Stream<long>("select id from items").GetEnumerator();
        Assert.True(stream.MoveNext());
        _time.Advance(TimeSpan.FromSeconds(45));

        PoolFinding finding = Assert.Single(HeldTooLong(db));
        Assert.StartsWith(
            $"A connection of pool '{Pool}' held by a stream on '{Pool}' (OpenPerCall mode) has been out for 45 s",
            finding.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(An_open_per_call_stream_held_too_long_is_named_as_a_stream_with_where_it_was_opened), finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void An_open_per_call_call_held_too_long_is_named_as_a_call()
    {
        using Database db = OpenWatched(ExecutionMode.OpenPerCall);
        Assert.Equal(1L, db.Scalar<long>("select @tick", new { tick = new Tick(TimeSpan.FromSeconds(45)) }));

        PoolFinding finding = Assert.Single(HeldTooLong(db));
        Assert.StartsWith(
            $"A connection of pool '{Pool}' held by a call on '{Pool}' (OpenPerCall mode) was out for 45 s",
            finding.Message, StringComparison.Ordinal);
        Assert.Contains("(Where one-shot calls acquire is not recorded", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_shared_connection_of_reuse_connection_mode_is_never_held_too_long()
    {
        using Database db = OpenWatched(ExecutionMode.ReuseConnection);
        Assert.Equal(1L, db.Scalar<long>("select @tick", new { tick = new Tick(TimeSpan.FromHours(1)) }));
        _time.Advance(TimeSpan.FromHours(1));
        Assert.Empty(HeldTooLong(db));
        Assert.Equal(1, db.GetPoolReport().InUse);
    }
}
