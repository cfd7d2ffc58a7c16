namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="ProviderInfo"/>: what the connection string says about the pool's name and the server, read with each
/// provider's keys and never a secret.
/// </summary>
public sealed class ProviderInfoTests
{
    [Theory]
    [InlineData("sqlite", "Data Source=/var/app.db", "sqlite:/var/app.db")]
    [InlineData("sqlite", "Filename=/var/app.db", "sqlite:/var/app.db")]
    [InlineData("postgresql", "Host=db1;Port=5433;Database=shop;Username=alice;Password=hunter2", "postgresql:db1:5433/shop")]
    [InlineData("microsoft.sql_server", "Server=sql1;Initial Catalog=Sales;Password=p", "microsoft.sql_server:sql1/Sales")]
    [InlineData("mysql", "Database=app;Port=3307;User ID=root", "mysql:app")]
    [InlineData("mysql", "Address=maria", "mysql:maria")]
    [InlineData("mysql", "Addr=maria", "mysql:maria")]
    [InlineData("mysql", "Network Address=maria", "mysql:maria")]
    [InlineData("sqlite", "DataSource=/var/app.db", "sqlite:/var/app.db")]
    [InlineData("mysql", "User ID=root;Password=p", "mysql")]
    [InlineData("mysql", "", "mysql")]
    [InlineData("mysql", null, "mysql")]
    [InlineData("postgresql", "Host=db1;Database=", "postgresql:db1")]
    [InlineData("postgresql", "this is not a connection string", "postgresql")]
    public void The_default_pool_name_has_the_server_and_database_only(string system, string? connectionString, string expected) =>
        Assert.Equal(expected, ProviderInfo.DefaultPoolName(system, connectionString));

    [Theory]
    [InlineData("postgresql", "Host=db1:6432;Port=5555;Database=shop", "db1", 5555, "shop")]
    [InlineData("postgresql", "Host=db1:notaport", "db1", null, null)]
    [InlineData("postgresql", "Host=[::1]", "[::1]", null, null)]
    [InlineData("postgresql", "Host= db1 ;Port=0", "db1", null, null)]
    [InlineData("postgresql", "Host=db1;Port=-5", "db1", null, null)]
    [InlineData("mysql", "Host=maria;Port=3306", "maria", 3306, null)]
    [InlineData("mysql", "Network Address=maria;Database=app", "maria", null, "app")]
    [InlineData("mysql", "DataSource=maria", "maria", null, null)]
    [InlineData("mysql", "Address=maria", "maria", null, null)]
    [InlineData("mysql", "Addr=maria", "maria", null, null)]
    [InlineData("microsoft.sql_server", "Address=sql1", "sql1", null, null)]
    [InlineData("microsoft.sql_server", "Addr=sql1", "sql1", null, null)]
    [InlineData("microsoft.sql_server", "Network Address=sql1", "sql1", null, null)]
    [InlineData("microsoft.sql_server", "Server=\\SQLEXPRESS;Database=d", null, null, "d")] // an instance with no host names no server
    [InlineData("microsoft.sql_server", "Data Source=np:sql.local\\INST;Database=Sales", "sql.local", null, "Sales")]
    [InlineData("microsoft.sql_server", "Server=admin:sql.local,1500", "sql.local", 1500, null)]
    [InlineData("microsoft.sql_server", "Server=lpc:sql.local", "sql.local", null, null)]
    [InlineData("microsoft.sql_server", "Server=sql.local\\INST", "sql.local", null, null)]
    [InlineData("microsoft.sql_server", "Server=abcd:sql.local", "abcd:sql.local", null, null)]
    [InlineData("microsoft.sql_server", "Server=ab:sql.local", "ab:sql.local", null, null)]
    [InlineData("microsoft.sql_server", "Server=sql.local,", null, null, null)]
    [InlineData("microsoft.sql_server", "Initial Catalog=Sales;Database=Other", null, null, "Sales")]
    [InlineData("other_sql", "Server=h;Database=d", null, null, null)]
    [InlineData("mysql", "not = a ; = valid", null, null, null)]
    public void Server_attributes_cover_ports_instances_protocols_and_bad_values(string system, string cs, string? address, int? port, string? ns)
    {
        Dictionary<string, object?> attributes = ProviderInfo.ServerAttributes(system, cs).ToDictionary(kv => kv.Key, kv => kv.Value);
        Assert.Equal(address, attributes.GetValueOrDefault("server.address"));
        Assert.Equal(port, (int?)attributes.GetValueOrDefault("server.port"));
        Assert.Equal(ns, attributes.GetValueOrDefault("db.namespace"));
        Assert.Equal((address is null ? 0 : 1) + (port is null ? 0 : 1) + (ns is null ? 0 : 1), attributes.Count);
    }

    [Fact]
    public void Server_attributes_come_in_a_fixed_order()
    {
        string[] keys = [.. ProviderInfo.ServerAttributes("postgresql", "Database=d;Port=1;Host=h").Select(kv => kv.Key)];
        Assert.Equal(["server.address", "server.port", "db.namespace"], keys);
    }
}
