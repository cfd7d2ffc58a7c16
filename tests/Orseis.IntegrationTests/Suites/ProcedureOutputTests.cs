using System.Data;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// <see cref="ParameterBag.Output{T}"/> against real procedures: OUT, INOUT and return values written to an object's
/// members, converted as columns are, on MariaDB (both MySQL providers), PostgreSQL and, when ORSEIS_SQLSERVER is set,
/// SQL Server; in every mode, sync and async, buffered, streamed and through a grid.
/// </summary>
public sealed class ProcedureOutputTests : IDisposable
{
    private readonly string _name = "orseis_out_" + Guid.NewGuid().ToString("N")[..8];
    private readonly List<IDisposable> _owned = [];

    public static TheoryData<MySqlProvider> Providers => [MySqlProvider.MySqlConnector, MySqlProvider.MySqlData];

    public enum Level
    {
        Low = 1,
        High = 2,
    }

    public sealed class Tally
    {
        public int Double { get; set; }

        public long Total { get; set; }

        public string? Label { get; set; }

        public Level Level { get; set; }

        public int? Nothing { get; set; } = 5;
    }

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

    private static ParameterBag MariaDbArgs(Tally tally, int min) => new ParameterBag { CommandType = CommandType.StoredProcedure }
        .Add("p_min", min)
        .Output(tally, t => t.Double, name: "p_double", direction: ParameterDirection.Output)
        .Output(tally, t => t.Total, name: "p_total")
        .Output(tally, t => t.Label, name: "p_label", direction: ParameterDirection.Output)
        .Output(tally, t => t.Level, name: "p_level", direction: ParameterDirection.Output)
        .Output(tally, t => t.Nothing, name: "p_nothing", direction: ParameterDirection.Output);

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public async Task MariaDb_out_and_inout_parameters_are_written_to_members_in_every_mode_and_call_form(MySqlProvider provider)
    {
        var dialect = new MySqlDialect(provider);
        using Database admin = dialect.Open(ExecutionMode.OpenPerCall);
        admin.Execute(Text($"""
            create procedure {_name}_tally(in p_min int, out p_double int, inout p_total bigint, out p_label varchar(50),
              out p_level tinyint, out p_nothing int)
            begin
              select p_min as v union all select p_min + 1;
              set p_double = p_min * 2, p_total = p_total + p_min, p_label = concat('min ', p_min), p_level = 2, p_nothing = null;
            end
            """));
        try
        {
            foreach ((string kind, SqlRunner runner) in Runners(dialect))
            {
                var executed = new Tally { Total = 100 };
                runner.Execute(Name("tally"), MariaDbArgs(executed, 21));
                Assert.True((42, 121L, "min 21", Level.High, (int?)null) ==
                    (executed.Double, executed.Total, executed.Label, executed.Level, executed.Nothing), kind);

                var queried = new Tally { Total = 1 };
                Assert.Equal([3L, 4L], await runner.QueryAsync<long>(Name("tally"), MariaDbArgs(queried, 3)));
                Assert.Equal((6, 4L), (queried.Double, queried.Total));

                var streamed = new Tally();
                await foreach (long v in runner.StreamAsync<long>(Name("tally"), MariaDbArgs(streamed, 5)))
                    Assert.Equal(0, streamed.Double); // not before the stream ends
                Assert.Equal(10, streamed.Double);

                var grid = new Tally();
                using (GridReader grids = runner.QueryMultiple(Name("tally"), MariaDbArgs(grid, 7)))
                {
                    Assert.Equal([7L, 8L], grids.Read<long>(buffered: false));
                    while (!grids.IsConsumed)
                        grids.Read<object>(); // MariaDB ends a CALL with a status result set of its own
                    Assert.Equal(14, grid.Double); // written when the last result set was read, before the grid is disposed
                }
            }
        }
        finally
        {
            admin.Execute("drop procedure " + Name("tally"));
        }
    }

    public sealed class Wrong
    {
        public int Label { get; set; }
    }

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public async Task MariaDb_a_value_that_does_not_fit_its_member_and_a_function_result_as_return_value(MySqlProvider provider)
    {
        var dialect = new MySqlDialect(provider);
        using Database db = dialect.Open(ExecutionMode.OpenPerCall);
        db.Execute(Text($"create procedure {_name}_label(out p_label varchar(50)) begin set p_label = 'not-a-number-secret'; end"));
        db.Execute(Text($"create function {_name}_twice(p int) returns int deterministic return p * 2"));
        try
        {
            // The output's type is said (text), so the provider hands over the text and Orseis converts it for the member.
            var wrong = new Wrong();
            var error = await Assert.ThrowsAsync<InvalidOperationException>(() => db.ExecuteAsync(Name("label"),
                new ParameterBag { CommandType = CommandType.StoredProcedure }
                    .Output(wrong, w => w.Label, DbType.String, name: "p_label", direction: ParameterDirection.Output)));
            Assert.Contains("Output parameter 'p_label' could not be written to member Wrong.Label (Int32)", error.Message,
                StringComparison.Ordinal);
            Assert.DoesNotContain("secret", error.Message, StringComparison.Ordinal);
            Assert.Equal(0, db.GetPoolReport().InUse);

            var tally = new Tally();
            db.Execute(Name("twice"), new ParameterBag { CommandType = CommandType.StoredProcedure }
                .Add("p", 21)
                .Output(tally, t => t.Total, name: "result", direction: ParameterDirection.ReturnValue));
            Assert.Equal(42L, tally.Total);
        }
        finally
        {
            db.Execute("drop procedure " + Name("label"));
            db.Execute("drop function " + Name("twice"));
        }
    }

    [PostgresFact]
    public async Task Postgres_procedure_inout_and_out_and_function_out_parameters_are_written_to_members()
    {
        var dialect = new PostgresDialect();
        using Database admin = dialect.Open(ExecutionMode.OpenPerCall);
        admin.Execute(Text($"""
            create procedure {_name}_add(a int, inout total bigint, out label text, out level int) language plpgsql as $$
            begin
              total := total + a;
              label := 'added ' || a;
              level := 2;
            end $$
            """));
        admin.Execute(Text($"create function {_name}_split(n int, out half int, out rest int) language sql as $$ select n / 2, n % 2 $$"));
        try
        {
            foreach ((string kind, SqlRunner runner) in Runners(dialect))
            {
                var tally = new Tally { Total = 10 };
                await runner.ExecuteAsync(Name("add"), new ParameterBag { CommandType = CommandType.StoredProcedure }
                    .Add("a", 5)
                    .Output(tally, t => t.Total, name: "total")
                    .Output(tally, t => t.Label, name: "label", direction: ParameterDirection.Output)
                    .Output(tally, t => t.Level, name: "level", direction: ParameterDirection.Output));
                Assert.True((15L, "added 5", Level.High) == (tally.Total, tally.Label, tally.Level), kind);

                // A function's OUT parameters come back as its row; Npgsql fills output parameters from it by name.
                var split = new Tally();
                runner.Execute("select * from " + Name("split") + "(@n)", new ParameterBag()
                    .Add("n", 7)
                    .Output(split, t => t.Double, name: "half", direction: ParameterDirection.Output)
                    .Output(split, t => t.Nothing, name: "rest", direction: ParameterDirection.Output));
                Assert.Equal((3, (int?)1), (split.Double, split.Nothing));
            }
        }
        finally
        {
            admin.Execute("drop procedure " + Name("add"));
            admin.Execute("drop function " + Name("split"));
        }
    }

    [SqlServerFact]
    public async Task SqlServer_a_procedures_return_value_and_output_are_written_to_members()
    {
        var dialect = new SqlServerDialect();
        using Database db = dialect.Open(ExecutionMode.OpenPerCall);
        db.Execute(Text($"""
            create procedure {_name}_ret @a int, @label nvarchar(50) output as
            begin set @label = N'got ' + cast(@a as nvarchar(10)); return @a * 2; end
            """));
        try
        {
            var tally = new Tally();
            await db.ExecuteAsync(Name("ret"), new ParameterBag { CommandType = CommandType.StoredProcedure }
                .Add("a", 21)
                .Output(tally, t => t.Label, name: "label", direction: ParameterDirection.Output)
                .Output(tally, t => t.Double, name: "ret", direction: ParameterDirection.ReturnValue));
            Assert.Equal((42, "got 21"), (tally.Double, tally.Label));
        }
        finally
        {
            db.Execute("drop procedure " + Name("ret"));
        }
    }

    private string Name(string suffix) => _name + "_" + suffix;

    private static string Text(string sql) => sql;

    public void Dispose()
    {
        foreach (IDisposable owned in _owned)
            owned.Dispose();
    }
}
