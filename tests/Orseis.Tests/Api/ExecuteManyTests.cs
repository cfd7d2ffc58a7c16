using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Dapper's execute-many: a sequence of argument objects runs the statement once per item, on one connection.</summary>
public sealed class ExecuteManyTests
{
    public static TheoryData<RunnerKind> Kinds => [RunnerKind.OpenPerCall, RunnerKind.ReuseConnection, RunnerKind.Session];

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task A_sequence_of_objects_runs_once_per_item_and_counts_every_row(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        Assert.Equal(3, db.Runner.Execute("insert into people (id, name) values (@id, @name)", new[] { new { id = 10, name = "a" }, new { id = 11, name = "b" }, new { id = 12, name = "c" } }));
        var records = new List<PersonRecord> { new(20, "d", null), new(21, "e", null) };
        Assert.Equal(2, await db.Runner.ExecuteAsync("insert into people (id, name) values (@Id, @Name)", records));
        IEnumerable<Dictionary<string, object?>> dictionaries = Enumerable.Range(30, 4).Select(i => new Dictionary<string, object?> { ["id"] = i, ["name"] = "n" + i });
        Assert.Equal(4, db.Runner.Execute("insert into people (id, name) values (@id, @name)", dictionaries));

        Assert.Equal(["a", "b", "c", "d", "e", "n30", "n31", "n32", "n33"], db.Runner.Query<string>("select name from people where id >= 10 order by id"));
        Assert.Equal(2, db.Runner.Execute("update people set age = @age where id = @id", new[] { new { id = 10, age = 1 }, new { id = 11, age = 2 }, new { id = 99, age = 3 } }));
        Assert.Equal([1, 2], db.Runner.Query<int>("select age from people where id in (10, 11) order by id"));
    }

    [Fact]
    public void An_empty_sequence_runs_nothing_and_a_sequence_of_values_is_refused_clearly()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        long commands = db.Database.GetPoolReport().Commands;
        Assert.Equal(0, db.Runner.Execute("insert into people (id, name) values (@id, @name)", Array.Empty<object>()));
        Assert.Equal(commands, db.Database.GetPoolReport().Commands);

        var error = Assert.Throws<ArgumentException>(() => db.Runner.Execute("delete from people where id = @id", new[] { 1, 2 }));
        Assert.Equal("args", error.ParamName);
        Assert.Contains("new { ids }", error.Message, StringComparison.Ordinal);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
    }

    [Fact]
    public void Explicit_parameters_and_lists_inside_an_object_are_still_one_set_of_arguments()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal(2, db.Runner.Execute("delete from people where id in @ids", new { ids = new[] { 1, 2 } }));
        var parameter = new Microsoft.Data.Sqlite.SqliteParameter("@id", 3);
        Assert.Equal(1, db.Runner.Execute("delete from people where id = @id", new[] { parameter }));
        Assert.Equal(2, db.Runner.Scalar<int>("select count(*) from people"));
    }

    [Fact]
    public async Task A_sequence_joins_the_session_transaction_and_a_failing_item_stops_the_rest()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        await using Session session = await db.Database.OpenSessionAsync();
        await using (SessionTransaction tx = await session.BeginTransactionAsync())
        {
            // The third item collides with the second: the call fails there and runs nothing after it.
            var items = new[] { new { id = 40, name = "x" }, new { id = 41, name = "y" }, new { id = 41, name = "dup" }, new { id = 42, name = "z" } };
            await Assert.ThrowsAnyAsync<Exception>(() => session.ExecuteAsync("insert into people (id, name) values (@id, @name)", items));
            Assert.Equal(2, await session.ScalarAsync<int>("select count(*) from people where id >= 40"));
            await tx.RollbackAsync();
        }

        Assert.Equal(0, db.Database.Scalar<int>("select count(*) from people where id >= 40"));
    }

    [Fact]
    public async Task A_cancelled_sequence_stops_before_its_next_item()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        using var cancel = new CancellationTokenSource();
        IEnumerable<object> Items()
        {
            yield return new { id = 50, name = "first" };
            cancel.Cancel();
            yield return new { id = 51, name = "second" };
        }

        // The sequence is read before the call starts, so the cancel lands before the first statement runs.
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.Runner.ExecuteAsync("insert into people (id, name) values (@id, @name)", Items(), cancellationToken: cancel.Token));
        Assert.Equal(0, db.Runner.Scalar<int>("select count(*) from people where id >= 50"));
    }
}
