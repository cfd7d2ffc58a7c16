namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// What porting Dapper's own tests found, on a real server: arguments that would bind their own members are refused,
/// whole numbers of a real or numeric type (2e0: DOUBLE on MariaDB and SQL Server, numeric on PostgreSQL) read into enums and bools, and a Guid is not formatted into a string member.
/// </summary>
public abstract partial class ServerSuite
{
    public enum Shade
    {
        Light = 1,
        Dark = 2,
    }

    public sealed class Shaded
    {
        public Shade Shade { get; set; }

        public bool Flag { get; set; }
    }

    public sealed class TextId
    {
        public string? Id { get; set; }
    }

    public sealed class Secretive
    {
        public override string ToString() => "secret-value-17";
    }

    protected async Task Arguments_and_conversions_behave_as_Dapper_users_expect()
    {
        // A value of a type no provider can send never reaches it (MySqlConnector's error would quote its ToString()).
        Database plain = Open(ExecutionMode.ReuseConnection);
        var unsendable = Assert.Throws<ArgumentException>(() => plain.Scalar<int>("select @who", new { who = new Secretive() }));
        Assert.DoesNotContain("secret-value-17", unsendable.ToString(), StringComparison.Ordinal);
        Assert.Equal(1, plain.Scalar<int>("select 1"));

        Database db = Open(ExecutionMode.OpenPerCall);
        object[] items = [new { id = 1 }, new { id = 2 }];
        var sequence = Assert.Throws<ArgumentException>(() => db.Query<int>("select @id", items));
        Assert.Contains("Only Execute and ExecuteAsync", sequence.Message, StringComparison.Ordinal);
        var tuple = await Assert.ThrowsAsync<ArgumentException>(() => db.QueryAsync<int>("select @id", (id: 1, name: "x")));
        Assert.Contains("tuple", tuple.Message, StringComparison.Ordinal);

        Shaded row = db.QuerySingle<Shaded>("select 2e0 as Shade, 1e0 as Flag");
        Assert.Equal(Shade.Dark, row.Shade);
        Assert.True(row.Flag);
        var fraction = Assert.Throws<MappingException>(() => db.QuerySingle<Shaded>(
            "select 15e-1 as Shade, 0e0 as Flag"));
        Assert.Equal("Shade", fraction.Column, ignoreCase: true);
    }

    protected void A_guid_column_is_not_read_into_a_string_member(string guidColumnSql, string? setup = null)
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        if (setup is not null)
            db.Execute(setup);
        var error = Assert.Throws<MappingException>(() => db.QuerySingle<TextId>(guidColumnSql));
        Assert.Equal("Id", error.Column, ignoreCase: true);
        Assert.Equal("TextId.Id", error.Member);
    }
}
