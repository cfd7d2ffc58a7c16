using System.Data;
using System.Data.Common;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Parameters;

/// <summary>
/// <see cref="DbStringValue"/>, Dapper's <c>DbString</c>: the shape each provider's parameter gets (bound on a command of
/// each provider, no server needed), and values round-tripped through SQLite; servers in the integration suite.
/// </summary>
public sealed class DbStringValueTests
{
    public static TheoryData<string> Providers => ["sqlite", "npgsql", "mysqlconnector", "mysql.data", "sqlclient"];

    private static DbCommand CommandOf(string provider) => (provider switch
    {
        "sqlite" => (DbProviderFactory)Microsoft.Data.Sqlite.SqliteFactory.Instance,
        "npgsql" => Npgsql.NpgsqlFactory.Instance,
        "mysqlconnector" => MySqlConnector.MySqlConnectorFactory.Instance,
        "mysql.data" => MySql.Data.MySqlClient.MySqlClientFactory.Instance,
        _ => Microsoft.Data.SqlClient.SqlClientFactory.Instance,
    }).CreateCommand()!;

    private static DbParameter Bound(string provider, object value)
    {
        DbCommand command = CommandOf(provider);
        ParameterBinder.Bind(command, "select @s", new { s = value });
        return Assert.Single(command.Parameters.Cast<DbParameter>());
    }

    [Theory]
    [MemberData(nameof(Providers))]
    public void Each_provider_gets_the_db_type_and_size(string provider)
    {
        DbParameter ansiFixed = Bound(provider, new DbStringValue("AB", 4) { IsAnsi = true, IsFixedLength = true });
        Assert.Equal((DbType.AnsiStringFixedLength, 4, (object)"AB"), (ansiFixed.DbType, ansiFixed.Size, ansiFixed.Value));
        DbParameter ansi = Bound(provider, new DbStringValue("abc") { IsAnsi = true });
        Assert.Equal((DbType.AnsiString, DbStringValue.DefaultLength), (ansi.DbType, ansi.Size));
        DbParameter unicodeFixed = Bound(provider, new DbStringValue("é", 2) { IsFixedLength = true });
        Assert.Equal((DbType.StringFixedLength, 2), (unicodeFixed.DbType, unicodeFixed.Size));
        DbParameter longText = Bound(provider, new DbStringValue(new string('x', 4001)));
        Assert.Equal((DbType.String, -1), (longText.DbType, longText.Size));
        DbParameter nothing = Bound(provider, new DbStringValue(null, 10));
        Assert.Equal((DbType.String, 10, (object)DBNull.Value), (nothing.DbType, nothing.Size, nothing.Value));
    }

    [Fact]
    public void The_providers_own_types_follow_the_shape()
    {
        var ansi = new DbStringValue("AB", 4) { IsAnsi = true, IsFixedLength = true };
        Assert.Equal(System.Data.SqlDbType.Char, ((Microsoft.Data.SqlClient.SqlParameter)Bound("sqlclient", ansi)).SqlDbType);
        Assert.Equal(System.Data.SqlDbType.VarChar, ((Microsoft.Data.SqlClient.SqlParameter)Bound("sqlclient",
            new DbStringValue("a") { IsAnsi = true })).SqlDbType);
        Assert.Equal(System.Data.SqlDbType.NVarChar, ((Microsoft.Data.SqlClient.SqlParameter)Bound("sqlclient",
            new DbStringValue("a"))).SqlDbType);
        Assert.Equal(MySqlConnector.MySqlDbType.String, ((MySqlConnector.MySqlParameter)Bound("mysqlconnector", ansi)).MySqlDbType);

        // PostgreSQL has no ANSI text and Npgsql sends every string DbType as text, fixed length included.
        Assert.Equal(NpgsqlTypes.NpgsqlDbType.Text, ((Npgsql.NpgsqlParameter)Bound("npgsql", ansi)).NpgsqlDbType);
        Assert.Equal(NpgsqlTypes.NpgsqlDbType.Text, ((Npgsql.NpgsqlParameter)Bound("npgsql",
            new DbStringValue("a") { IsAnsi = true })).NpgsqlDbType);
    }

    [Fact]
    public void Values_round_trip_in_objects_lists_and_bags_and_a_bad_shape_is_refused_before_anything_runs()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        db.Runner.Execute("create table codes (code text)");
        db.Runner.Execute("insert into codes (code) values (@code)", new[] { new { code = new DbStringValue("AB", 4) { IsAnsi = true,
            IsFixedLength = true } }, new { code = new DbStringValue(null) } });
        Assert.Equal(["AB"], db.Runner.Query<string>("select code from codes where code in @codes",
            new { codes = new[] { new DbStringValue("AB"), new DbStringValue("ZZ") } }));
        Assert.Equal(1, db.Runner.Scalar<int>("select count(*) from codes where code is @c", new ParameterBag().Add("c",
            new DbStringValue(null) { IsAnsi = true })));

        var tooLong = Assert.Throws<ArgumentException>(() => db.Runner.Execute("insert into codes (code) values (@code)",
            new { code = new DbStringValue("ABCDE-secret", 4) }));
        Assert.Equal("args", tooLong.ParamName);
        Assert.Contains("Parameter 'code' is a DbStringValue longer than its Length (4)", tooLong.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", tooLong.Message, StringComparison.Ordinal);
        var noLength = Assert.Throws<ArgumentException>(() => db.Runner.Execute("insert into codes (code) values (@code)",
            new { code = new DbStringValue("A") { IsFixedLength = true } }));
        Assert.Contains("fixed-length DbStringValue without a Length", noLength.Message, StringComparison.Ordinal);
        Assert.Equal(2, db.Runner.Scalar<int>("select count(*) from codes"));
        Assert.Throws<ArgumentOutOfRangeException>(() => new DbStringValue("a", 0));
        Assert.Equal("DbStringValue(AnsiString, Length 3)", new DbStringValue("secret", 3) { IsAnsi = true }.ToString());
    }
}
