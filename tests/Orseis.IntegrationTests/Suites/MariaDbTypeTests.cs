using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>MariaDB-only checks, through both MySQL providers: every mapped type, NULL errors, server metadata.</summary>
public sealed class MariaDbTypeTests
{
    public static TheoryData<MySqlProvider> Providers => [MySqlProvider.MySqlConnector, MySqlProvider.MySqlData];

    public sealed class Row
    {
        public int Id { get; set; }
        public bool Flag { get; set; }
        public short Small { get; set; }
        public long Big { get; set; }
        public decimal Amount { get; set; }
        public double Ratio { get; set; }
        public DateTime Created { get; set; }
        public DateOnly Day { get; set; }
        public TimeOnly At { get; set; }
        public Guid Key { get; set; }
        public byte[] Data { get; set; } = [];
        public string Name { get; set; } = "";
        public int? Maybe { get; set; }
        public DayOfWeek Weekday { get; set; }
    }

    public sealed record Positional(int Id, string Name, decimal Amount, DateTime Created);

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public void Every_mapped_type_round_trips_through_mariadb(MySqlProvider provider)
    {
        using Database db = new MySqlDialect(provider).Open(ExecutionMode.ReuseConnection);
        string table = "orseis_types_" + Guid.NewGuid().ToString("N")[..8];
        db.Execute(Text($"""
            create table {table} (id int primary key, flag tinyint(1) not null, small smallint not null, big bigint not null,
              amount decimal(12,4) not null, ratio double not null, created datetime(6) not null, day date not null,
              at time(6) not null, `key` char(36) not null, data varbinary(16) not null, name varchar(50) not null,
              maybe int null, weekday int not null)
            """));
        try
        {
            var expected = new Row
            {
                Id = 1, Flag = true, Small = -12, Big = long.MaxValue - 1, Amount = 12345678.1234m, Ratio = 0.125,
                Created = new DateTime(2024, 2, 29, 13, 14, 15, 123).AddTicks(4560), Day = new DateOnly(2024, 2, 29),
                At = new TimeOnly(23, 59, 58, 500), Key = Guid.NewGuid(), Data = [0, 1, 2, 255], Name = "naïve ✓ 𝄞",
                Maybe = null, Weekday = DayOfWeek.Saturday,
            };
            db.Execute(Text($"""
                insert into {table} (id, flag, small, big, amount, ratio, created, day, at, `key`, data, name, maybe, weekday)
                values (@Id, @Flag, @Small, @Big, @Amount, @Ratio, @Created, @Day, @At, @Key, @Data, @Name, @Maybe, @Weekday)
                """), expected);

            Row actual = db.QuerySingle<Row>(Text($"select * from {table} where id = @id"), new { id = 1 });

            Assert.Equivalent(expected, actual, strict: true);
            Positional positional = db.QuerySingle<Positional>(Text($"select id, name, amount, created from {table}"));
            Assert.Equal(new Positional(1, expected.Name, expected.Amount, expected.Created), positional);
            Assert.Equal(expected.Day, db.Scalar<DateOnly>(Text($"select day from {table}")));
            Assert.Null(db.Scalar<int?>(Text($"select maybe from {table}")));
        }
        finally
        {
            db.Execute(Text($"drop table {table}"));
        }
    }

    /// <summary>SQL text with the table name in it (a plain string, so Orseis does not parameterise the hole).</summary>
    private static string Text(string sql) => sql;

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public void A_null_into_a_non_nullable_member_names_the_column_and_member(MySqlProvider provider)
    {
        using Database db = new MySqlDialect(provider).Open(ExecutionMode.OpenPerCall);
        var error = Assert.Throws<MappingException>(() => db.QuerySingle<Row>(
            "select 1 as id, null as flag, 0 as small, 0 as big, 0.0 as amount, 0e0 as ratio, now() as created, curdate() as day, " +
            "curtime() as at, uuid() as `key`, x'00' as data, 'n' as name, null as maybe, 1 as weekday"));
        Assert.Equal("flag", error.Column);
        Assert.Contains(nameof(Row.Flag), error.Message, StringComparison.Ordinal);
        Assert.Contains("is NULL", error.Message, StringComparison.Ordinal);
    }

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public void Server_metadata_and_statement_notes_come_through(MySqlProvider provider)
    {
        // On MySql.Data these are the results in MariaDB's utf8mb3 that need Orseis.Testing.MySqlDataOnMariaDb.
        using Database db = new MySqlDialect(provider).Open(ExecutionMode.ReuseConnection);
        Assert.Contains("MariaDB", db.Scalar<string>("select version()"), StringComparison.Ordinal);
        Assert.Equal("orseis", db.Scalar<string>("select database()"));
        db.Execute("drop table if exists orseis_never_created"); // a note: MySql.Data reads SHOW WARNINGS after it
        Assert.Equal(5, db.Scalar<int>("select @n", new { n = 5 }));
    }
}
