using System.Data;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// Stored procedures with IN, OUT and INOUT parameters through <see cref="ParameterBag"/>: on MariaDB through both MySQL
/// providers and on PostgreSQL, in every mode (open-per-call, reuse, session), sync and async, with outputs read back
/// after a buffered call, after a finished stream and after a disposed GridReader.
/// </summary>
public sealed class ProcedureTests : IDisposable
{
    private readonly string _name = "orseis_proc_" + Guid.NewGuid().ToString("N")[..8];
    private readonly List<IDisposable> _owned = [];

    public static TheoryData<MySqlProvider> Providers => [MySqlProvider.MySqlConnector, MySqlProvider.MySqlData];

    public sealed record Row(int Id, string Name);

    private IEnumerable<(string Kind, SqlRunner Runner)> Runners(Dialect dialect)
    {
        Database perCall = dialect.Open(ExecutionMode.OpenPerCall);
        Database reuse = dialect.Open(ExecutionMode.ReuseConnection);
        Session session = perCall.OpenSession();
        _owned.Add(session);
        _owned.Add(reuse);
        _owned.Add(perCall);
        return [("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session)];
    }

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public async Task MariaDb_out_and_inout_parameters_are_read_back_in_every_mode(MySqlProvider provider)
    {
        var dialect = new MySqlDialect(provider);
        using Database admin = dialect.Open(ExecutionMode.OpenPerCall);
        admin.Execute(Text($"""
            create procedure {_name}_counts(in p_min int, out p_double int, inout p_total int, out p_label varchar(50))
            begin
              set p_double = p_min * 2;
              set p_total = p_total + p_min;
              set p_label = concat('min ', p_min);
            end
            """));
        try
        {
            foreach ((string kind, SqlRunner runner) in Runners(dialect))
            {
                ParameterBag args = Counts(21);
                Assert.Throws<InvalidOperationException>(() => args.Get<int>("p_double"));
                runner.Execute(Name("counts"), args);
                Assert.Equal((42, 121, "min 21"), (args.Get<int>("p_double"), args.Get<int>("p_total"), args.Get<string>("p_label")));

                ParameterBag again = Counts(5);
                await runner.ExecuteAsync(Name("counts"), again, cancellationToken: CancellationToken.None);
                Assert.True((10, 105, "min 5") == (again.Get<int>("p_double"), again.Get<int>("p_total"), again.Get<string>("p_label")), kind);
                Assert.Equal(1, runner.Scalar<int>("select 1")); // a text call on the same (kept) command after the procedure

                // A sequence of bags runs the procedure once per bag, each reading back its own outputs.
                ParameterBag[] many = [Counts(1), Counts(2)];
                runner.Execute(Name("counts"), many);
                Assert.Equal([101, 102], many.Select(b => b.Get<int>("p_total")));
            }
        }
        finally
        {
            admin.Execute("drop procedure " + Name("counts"));
        }

        static ParameterBag Counts(int min) => new ParameterBag { CommandType = CommandType.StoredProcedure }
            .Add("p_min", min)
            .Add("p_double", direction: ParameterDirection.Output, dbType: DbType.Int32)
            .Add("p_total", 100, DbType.Int32, ParameterDirection.InputOutput)
            .Add("p_label", direction: ParameterDirection.Output, dbType: DbType.String, size: 50);
    }

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public async Task MariaDb_a_procedure_returning_rows_gives_its_outputs_after_the_rows_were_read(MySqlProvider provider)
    {
        var dialect = new MySqlDialect(provider);
        using Database admin = dialect.Open(ExecutionMode.OpenPerCall);
        admin.Execute(Text($"""
            create procedure {_name}_rows(in p_n int, out p_sum int)
            begin
              with recursive r(id) as (select 1 union all select id + 1 from r where id < p_n)
              select id, concat('row ', id) as name from r;
              set p_sum = p_n * (p_n + 1) / 2;
            end
            """));
        try
        {
            foreach ((string kind, SqlRunner runner) in Runners(dialect))
            {
                ParameterBag buffered = Rows(3);
                Assert.Equal([new Row(1, "row 1"), new Row(2, "row 2"), new Row(3, "row 3")], await runner.QueryAsync<Row>(Name("rows"), buffered));
                Assert.True(buffered.Get<int>("p_sum") == 6, kind);

                ParameterBag streamed = Rows(4);
                var names = new List<string>();
                await foreach (Row row in runner.StreamAsync<Row>(Name("rows"), streamed))
                {
                    names.Add(row.Name);
                    Assert.Throws<InvalidOperationException>(() => streamed.Get<int>("p_sum")); // not before the stream ends
                }

                Assert.Equal(4, names.Count);
                Assert.Equal(10, streamed.Get<int>("p_sum"));

                ParameterBag grid = Rows(2);
                using (GridReader grids = runner.QueryMultiple(Name("rows"), grid))
                {
                    Assert.Equal(2, grids.Read<Row>().Count);
                    while (!grids.IsConsumed)
                        grids.Read<object>(); // MariaDB ends a CALL with a status result set of its own
                }

                Assert.Equal(3, grid.Get<int>("p_sum"));
            }
        }
        finally
        {
            admin.Execute("drop procedure " + Name("rows"));
        }

        static ParameterBag Rows(int n) => new ParameterBag { CommandType = CommandType.StoredProcedure }
            .Add("p_n", n)
            .Add("p_sum", direction: ParameterDirection.Output, dbType: DbType.Int32);
    }

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public async Task MariaDb_a_stored_function_gives_its_result_as_the_return_value(MySqlProvider provider)
    {
        var dialect = new MySqlDialect(provider);
        using Database admin = dialect.Open(ExecutionMode.OpenPerCall);
        admin.Execute(Text($"create function {_name}_twice(p int) returns int deterministic return p * 2"));
        try
        {
            foreach ((string kind, SqlRunner runner) in Runners(dialect))
            {
                ParameterBag call = new ParameterBag { CommandType = CommandType.StoredProcedure }
                    .Add("p", 21)
                    .Add("result", direction: ParameterDirection.ReturnValue, dbType: DbType.Int32);
                await runner.ExecuteAsync(Name("twice"), call);
                Assert.True(call.Get<int>("result") == 42, kind);
            }
        }
        finally
        {
            admin.Execute("drop function " + Name("twice"));
        }
    }

    [PostgresFact]
    public async Task Postgres_a_procedure_with_inout_and_out_parameters_and_a_function_with_out_parameters()
    {
        var dialect = new PostgresDialect();
        using Database admin = dialect.Open(ExecutionMode.OpenPerCall);
        admin.Execute(Text($"""
            create procedure {_name}_add(a int, inout total int, out label text) language plpgsql as $$
            begin
              total := total + a;
              label := 'added ' || a;
            end $$
            """));
        admin.Execute(Text($"create function {_name}_split(n int, out half int, out rest int) language sql as $$ select n / 2, n % 2 $$"));
        try
        {
            foreach ((string kind, SqlRunner runner) in Runners(dialect))
            {
                ParameterBag call = new ParameterBag { CommandType = CommandType.StoredProcedure }
                    .Add("a", 5)
                    .Add("total", 10, DbType.Int32, ParameterDirection.InputOutput)
                    .Add("label", direction: ParameterDirection.Output, dbType: DbType.String);
                await runner.ExecuteAsync(Name("add"), call);
                Assert.True((15, "added 5") == (call.Get<int>("total"), call.Get<string>("label")), kind);

                // A function's OUT parameters come back as its row; Npgsql fills output parameters from it by name.
                ParameterBag split = new ParameterBag()
                    .Add("n", 7)
                    .Add("half", direction: ParameterDirection.Output, dbType: DbType.Int32)
                    .Add("rest", direction: ParameterDirection.Output, dbType: DbType.Int32);
                runner.Execute("select * from " + Name("split") + "(@n)", split);
                Assert.Equal((3, 1), (split.Get<int>("half"), split.Get<int>("rest")));

                // A sequence of bags with outputs runs a command per item, never a batch, each bag reading back its own.
                ParameterBag[] splits = [.. new[] { 9, 4, 11 }.Select(n => new ParameterBag()
                    .Add("n", n)
                    .Add("half", direction: ParameterDirection.Output, dbType: DbType.Int32)
                    .Add("rest", direction: ParameterDirection.Output, dbType: DbType.Int32))];
                await runner.ExecuteAsync("select * from " + Name("split") + "(@n)", splits);
                Assert.Equal([(4, 1), (2, 0), (5, 1)], splits.Select(b => (b.Get<int>("half"), b.Get<int>("rest"))));
            }
        }
        finally
        {
            admin.Execute("drop procedure " + Name("add"));
            admin.Execute("drop function " + Name("split"));
        }
    }

    /// <summary>This test's procedure <paramref name="suffix"/> (a plain string: an interpolated one would be sent with its holes as parameters).</summary>
    private string Name(string suffix) => _name + "_" + suffix;

    /// <summary>SQL text with a name in it (a plain string, so Orseis does not parameterise the hole).</summary>
    private static string Text(string sql) => sql;

    public void Dispose()
    {
        foreach (IDisposable owned in _owned)
            owned.Dispose();
    }
}
