using System.Data;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Parameters;

/// <summary>
/// <see cref="ParameterBag.Output{T}"/>: outputs written back to an object's members when the call completes, in every
/// call form, converted as columns are, with clear errors. SQLite has no output parameters, so its commands answer them
/// through <see cref="AnsweringDataSource"/>; real procedures are tested on MariaDB and PostgreSQL (ProcedureTests).
/// </summary>
public sealed class OutputMemberTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly AnsweringDataSource _source;
    private readonly Database _db;

    public OutputMemberTests()
    {
        _source = new AnsweringDataSource(_file.ConnectionString);
        _db = new Database(_source);
        _db.Execute("create table t (id integer primary key, name text)");
        _db.Execute("insert into t (id, name) values (1, 'a'), (2, 'b'), (3, 'c')");
    }

    public enum Level
    {
        Low = 1,
        High = 2,
    }

    public sealed class Account
    {
        public int Id { get; set; }

        public long? Balance { get; set; }

        public Level Level { get; set; }

        public string? Note { get; private set; }

        public Address? Home { get; set; }

        public int Count;

        public int ReadOnly => Id;
    }

    public sealed class Address
    {
        public string? City { get; set; }
    }

    public void Dispose()
    {
        _db.Dispose();
        _file.Dispose();
    }

    private ParameterBag Bind(Account account) => new ParameterBag()
        .Add("k", 1)
        .Output(account, a => a.Id)
        .Output(account, a => a.Balance, direction: ParameterDirection.Output)
        .Output(account, a => a.Level, direction: ParameterDirection.Output)
        .Output(account, a => a.Note, direction: ParameterDirection.Output)
        .Output(account, a => a.Home!.City, direction: ParameterDirection.Output)
        .Output(account, a => a.Count, name: "p_count", direction: ParameterDirection.ReturnValue);

    private void Answer()
    {
        _source.Answers["Balance"] = DBNull.Value; // NULL into long?
        _source.Answers["Level"] = 2L; // a long into an enum
        _source.Answers["Note"] = "noted"; // a private setter
        _source.Answers["HomeCity"] = "Oslo"; // a chain, named as Dapper names it
        _source.Answers["p_count"] = (short)7; // a short widened to int
    }

    [Fact]
    public async Task Every_buffered_call_form_writes_its_outputs_to_the_members_converted()
    {
        Answer();
        Func<ParameterBag, Task>[] calls =
        [
            args => Task.FromResult(_db.Execute("update t set name = name where id = @k", args)),
            args => _db.ExecuteAsync("update t set name = name where id = @k", args),
            args => Task.FromResult(_db.Query<string>("select name from t where id = @k", args)),
            args => _db.QueryAsync<string>("select name from t where id = @k", args),
            args => Task.FromResult(_db.QuerySingle<string>("select name from t where id = @k", args)),
            args => _db.ScalarAsync<string>("select name from t where id = @k", args),
            args => Task.FromResult(_db.Query<string, string, string>("select name, name as id from t where id = @k", (a, b) => a + b,
                args)),
        ];
        foreach (Func<ParameterBag, Task> call in calls)
        {
            var account = new Account { Id = 21, Home = new Address() };
            ParameterBag args = Bind(account);
            await call(args);
            Assert.Equal((42, null, Level.High, "noted", "Oslo", 7), (account.Id, account.Balance, account.Level, account.Note,
                account.Home.City, account.Count));
            Assert.Equal(42, args.Get<int>("Id")); // also readable from the bag by its name
        }

        // The input-output parameter carried the member's value when the call started; the shapes came from the members' types.
        var sent = _source.Sent.Last().ToDictionary(p => p.Name.TrimStart('@'));
        Assert.Equal((ParameterDirection.InputOutput, DbType.Int32, (object?)21), (sent["Id"].Direction, sent["Id"].DbType,
            sent["Id"].Value));
        Assert.Equal((ParameterDirection.Output, DbType.String, 4000), (sent["Note"].Direction, sent["Note"].DbType, sent["Note"].Size));
        Assert.Equal((ParameterDirection.ReturnValue, DbType.Int32), (sent["p_count"].Direction, sent["p_count"].DbType));
        Assert.Equal(DbType.Int64, sent["Balance"].DbType);
        Assert.Equal(DbType.Int32, sent["Level"].DbType);
    }

    [Fact]
    public async Task A_stream_writes_them_once_read_to_its_end_and_not_after_an_early_break()
    {
        Answer();
        var account = new Account { Id = 1, Home = new Address() };
        foreach (string name in _db.Stream<string>("select name from t order by id", Bind(account)))
            Assert.Equal(1, account.Id); // not before the stream ends
        Assert.Equal(2, account.Id);

        var early = new Account { Id = 5, Home = new Address() };
        await foreach (string name in _db.StreamAsync<string>("select name from t order by id", Bind(early)))
            break;
        Assert.Equal((5, null), (early.Id, early.Home.City));

        var async = new Account { Id = 4, Home = new Address() };
        await foreach (string name in _db.StreamAsync<string>("select name from t order by id", Bind(async)))
        {
        }

        Assert.Equal((8, "Oslo"), (async.Id, async.Home.City));
    }

    [Fact]
    public async Task A_grid_writes_them_when_its_last_result_set_is_read_before_it_is_disposed()
    {
        Answer();
        var account = new Account { Id = 3, Home = new Address() };
        await using GridReader grid = await _db.QueryMultipleAsync("select 1; select 2", Bind(account));
        Assert.Equal(1, await grid.ReadSingleAsync<int>());
        Assert.Equal(3, account.Id);
        Assert.Equal(2, await grid.ReadSingleAsync<int>());
        Assert.Equal((6, Level.High), (account.Id, account.Level));
    }

    [Fact]
    public void Execute_many_writes_each_items_outputs_to_its_own_target()
    {
        Answer();
        Account[] accounts = [new() { Id = 1, Home = new Address() }, new() { Id = 10, Home = new Address() }];
        Assert.Equal(2, _db.Execute("update t set name = name where id = @k", accounts.Select(Bind).ToArray()));
        Assert.Equal([2, 20], accounts.Select(a => a.Id));

        // An output the member cannot take stops the sequence at that item, which the error names.
        _source.Answers["Level"] = "not-a-level";
        Account[] failing = [new() { Id = 1, Home = new Address() }, new() { Id = 10, Home = new Address() }];
        var error = Assert.Throws<InvalidOperationException>(() => _db.Execute("update t set name = name where id = @k",
            failing.Select(Bind).ToArray()));
        Assert.Equal(0, error.Data["Orseis.ItemIndex"]);
        Assert.Equal((2, 10), (failing[0].Id, failing[1].Id));
    }

    [Fact]
    public void A_value_that_cannot_be_converted_names_the_parameter_and_the_member_and_the_others_are_written()
    {
        Answer();
        _source.Answers["Level"] = "not-a-level-secret";
        var account = new Account { Id = 1, Home = new Address() };
        var error = Assert.Throws<InvalidOperationException>(() => _db.Execute("select 1", Bind(account)));
        Assert.Contains("Output parameter 'Level' could not be written to member Account.Level (Level)", error.Message,
            StringComparison.Ordinal);
        Assert.DoesNotContain("secret", error.Message, StringComparison.Ordinal);
        Assert.Equal((2, "Oslo"), (account.Id, account.Home!.City));
        Assert.Equal(0, _db.GetPoolReport().InUse);

        _source.Answers["Level"] = 1;
        _source.Answers["Note"] = DBNull.Value;
        _source.Answers["p_count"] = DBNull.Value;
        var nulls = Assert.Throws<InvalidOperationException>(() => _db.Execute("select 1", Bind(new Account { Home = new Address() })));
        Assert.Contains("Output parameter 'p_count' could not be written to member Account.Count (Int32)", nulls.Message,
            StringComparison.Ordinal);
        Assert.Contains("NULL", nulls.Message, StringComparison.Ordinal);

        var missing = new Account();
        var chain = Assert.Throws<InvalidOperationException>(() => _db.Execute("select 1", new ParameterBag().Output(missing,
            a => a.Home!.City)));
        Assert.Contains("Account.Home is null", chain.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_member_that_cannot_receive_an_output_is_refused_when_added()
    {
        var account = new Account();
        var bag = new ParameterBag();
        Assert.Contains("cannot be set", Assert.Throws<ArgumentException>(() => bag.Output(account, a => a.ReadOnly)).Message,
            StringComparison.Ordinal);
        Assert.Contains("property or field", Assert.Throws<ArgumentException>(() => bag.Output(account, a => a.Id + 1)).Message,
            StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => bag.Output(account, a => a.Id, direction: ParameterDirection.Input));
        bag.Output(account, a => a.Count);
        Assert.Contains("'Count' was already added", Assert.Throws<ArgumentException>(() => bag.Output(account, a => a.Count)).Message,
            StringComparison.Ordinal);
        Assert.Contains("'count' was already added", Assert.Throws<ArgumentException>(() => bag.Add("count", 1)).Message,
            StringComparison.Ordinal);
    }

    [Fact]
    public async Task Plain_SQLite_has_no_outputs_and_the_error_names_the_parameter_before_anything_runs()
    {
        using Database plain = _file.Open();
        var account = new Account { Id = 1 };
        var error = await Assert.ThrowsAsync<NotSupportedException>(() => plain.ExecuteAsync("update t set name = 'x'",
            new ParameterBag().Output(account, a => a.Id)));
        Assert.Contains("Parameter 'Id' is InputOutput, which the provider (SqliteParameter) refused", error.Message,
            StringComparison.Ordinal);
        Assert.IsType<ArgumentException>(error.InnerException);
        Assert.Equal(0, plain.Scalar<int>("select count(*) from t where name = 'x'"));
        Assert.Equal(1, account.Id);
    }
}
