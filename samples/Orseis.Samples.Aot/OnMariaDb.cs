using System.Data;
using MySqlConnector;
using Orseis;
using Orseis.Diagnostics;

/// <summary>
/// The same kinds of call against a MariaDB or MySQL server through MySqlConnector (AOT-compatible): run with the argument
/// <c>mariadb</c> and the server's connection string in <c>ORSEIS_MYSQL</c>. Its own table, dropped at the end; nothing
/// printed depends on the server's state, so the JIT and the native build print the same lines.
/// </summary>
internal static class OnMariaDb
{
    public static async Task RunAsync(string connectionString)
    {
        // A table of its own; its name is spliced into the text (a hole of an interpolated string would be a parameter).
        string table = "aot_users_" + Guid.NewGuid().ToString("N")[..12];
        string Sql(string text) => text.Replace("$users", table, StringComparison.Ordinal);
        var options = new OrseisOptions { Mode = ExecutionMode.OpenPerCall, Diagnostics = { Detectors = FindingKind.All } };
        await using var db = new Database(MySqlConnectorFactory.Instance, connectionString, options);
        await db.ExecuteAsync(Sql("create table $users (id bigint primary key, name varchar(50) not null)"));
        try
        {
            await db.ExecuteAsync(Sql("insert into $users (id, name) values (@Id, @Name)"),
                new[] { new { Id = 42L, Name = "Ada" }, new { Id = 7L, Name = "Grace" }, new { Id = 8L, Name = "Edsger" } });
            long id = 42;
            User? user = await db.QuerySingleOrDefaultAsync<User>(Sql("select id, name from $users where id = @id"), new { id });
            Console.WriteLine($"mariadb: {user}");
            List<User> users = await db.QueryAsync<User>(Sql("select id, name from $users where id < @max order by id"), new { max = 40L });
            Console.WriteLine("mariadb record rows: " + string.Join(", ", users));
            (long Id, string Name) first = await db.QueryFirstAsync<(long Id, string Name)>(Sql("select id, name from $users order by name"));
            Console.WriteLine($"mariadb tuple: {first.Id} {first.Name}");
            List<string> names = await db.QueryAsync<string>(Sql("select name from $users where id in @ids order by name"), new { ids = new[] { 7L, 8L } });
            Console.WriteLine("mariadb list argument: " + string.Join(", ", names));

            // An output member: a procedure's OUT parameter written to an object's property (a generated setter, native too).
            await db.ExecuteAsync(Sql(
                "create procedure $users_total(in p_min bigint, out p_total bigint) " +
                "begin select count(*) into p_total from $users where id >= p_min; end"));
            var tally = new Tally();
            await db.ExecuteAsync(Sql("$users_total"), new ParameterBag { CommandType = CommandType.StoredProcedure }
                .Add("p_min", 8L)
                .Output(tally, t => t.Total, name: "p_total", direction: ParameterDirection.Output));
            Console.WriteLine($"mariadb output member: {tally.Total}");

            using (GridReader grid = await db.QueryMultipleAsync(Sql("select count(*) as n from $users; select id, name as owner from $users order by id")))
            {
                Count total = grid.ReadSingle<Count>();
                List<Account> accounts = grid.Read<Account>();
                Console.WriteLine($"mariadb grid: {total.N} users; {string.Join(", ", accounts.Select(a => $"{a.Owner}#{a.Id}"))}");
            }

            await using (Session session = db.OpenSession())
            {
                using (SessionTransaction tx = session.BeginTransaction())
                {
                    await session.ExecuteAsync(Sql("insert into $users (id, name) values (@Id, @Name)"), new NewUser(10, "Tony"));
                    tx.Commit();
                }

                using (SessionTransaction tx = session.BeginTransaction())
                {
                    await session.ExecuteAsync(Sql("insert into $users (id, name) values (@Id, @Name)"), new NewUser(11, "Alan"));
                    tx.Rollback();
                }

                List<(long, string)> kept = await session.QueryAsync<(long, string)>(
                    Sql("select id, name from $users where id between 10 and 11 order by id"));
                Console.WriteLine("mariadb session: " + string.Join(", ", kept.Select(k => $"{k.Item1} {k.Item2}")));
            }

            for (int i = 0; i < 12; i++)
                await db.QueryFirstAsync<User>(Sql("select id, name from $users where id = @id"), new { id });
            PoolReport report = db.GetPoolReport();
            Console.WriteLine($"mariadb report: detectors {report.Detectors}, churn named: {report.FindingCounts.GetValueOrDefault(FindingKind.Churn) > 0}");
        }
        finally
        {
            await db.ExecuteAsync(Sql("drop procedure if exists $users_total"));
            await db.ExecuteAsync(Sql("drop table $users"));
        }
    }
}

/// <summary>The object a procedure's output is written to.</summary>
internal sealed class Tally
{
    public long Total { get; set; }
}
