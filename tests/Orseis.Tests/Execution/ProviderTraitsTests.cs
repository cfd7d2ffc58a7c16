using System.Reflection;
using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="ProviderTraits"/>: which provider a type belongs to (by namespace, its own or a base type's) and what is
/// known of it. What its open failures mean is <see cref="OpenFailureTests"/>'.
/// </summary>
public sealed class ProviderTraitsTests
{
    [Theory]
    [InlineData(typeof(SqliteConnection), "sqlite")]
    [InlineData(typeof(System.Data.SQLite.Stand.In), "sqlite")]
    [InlineData(typeof(Npgsql.Stand.In), "postgresql")]
    [InlineData(typeof(Microsoft.Data.SqlClient.Stand.In), "microsoft.sql_server")]
    [InlineData(typeof(System.Data.SqlClient.Stand.In), "microsoft.sql_server")]
    [InlineData(typeof(MySqlConnector.Stand.In), "mysql")]
    [InlineData(typeof(MySql.Data.Stand.In), "mysql")]
    [InlineData(typeof(ProviderTraitsTests), "other_sql")]
    [InlineData(typeof(GlobalNamespaceType), "other_sql")]
    public void The_system_name_comes_from_the_provider_namespace(Type type, string expected) =>
        Assert.Equal(expected, ProviderTraits.For(type).SystemName);

    [Theory]
    [InlineData(typeof(SqliteDataReader), true)]
    [InlineData(typeof(Npgsql.Stand.In), true)]
    [InlineData(typeof(MySqlConnector.Stand.In), false)]
    [InlineData(typeof(Microsoft.Data.SqlClient.Stand.In), false)]
    [InlineData(typeof(ProviderTraitsTests), false)]
    public void Only_sqlite_and_npgsql_getters_are_trusted_to_refuse_null(Type type, bool expected) =>
        Assert.Equal(expected, ProviderTraits.For(type).TypedGettersRefuseNull);

    [Theory]
    [InlineData(typeof(SqliteCommand), true)]
    [InlineData(typeof(Npgsql.Stand.In), true)]
    [InlineData(typeof(Microsoft.Data.SqlClient.Stand.In), true)]
    [InlineData(typeof(MySqlConnector.Stand.In), true)]
    [InlineData(typeof(MySql.Data.Stand.In), false)]
    [InlineData(typeof(System.Data.SqlClient.Stand.In), false)]
    [InlineData(typeof(System.Data.SQLite.Stand.In), false)]
    [InlineData(typeof(GlobalNamespaceType), false)]
    public void DateOnly_and_TimeOnly_are_known_to_the_recent_providers_only(Type type, bool expected) =>
        Assert.Equal(expected, ProviderTraits.For(type).KnowsDateAndTimeOnly);

    /// <summary>The real provider types Orseis is handed (a factory, a data source, a command) find the same traits.</summary>
    [Fact]
    public void Each_real_provider_type_finds_its_traits_and_a_subclass_finds_its_base_s()
    {
        Assert.Same(ProviderTraits.MicrosoftSqlite, ProviderTraits.For(typeof(SqliteFactory)));
        Assert.Same(ProviderTraits.Npgsql, ProviderTraits.For(typeof(Npgsql.NpgsqlFactory)));
        Assert.Same(ProviderTraits.Npgsql, ProviderTraits.For(typeof(Npgsql.NpgsqlDataSource)));
        Assert.Same(ProviderTraits.MySqlConnector, ProviderTraits.For(typeof(MySqlConnector.MySqlConnectorFactory)));
        Assert.Same(ProviderTraits.MySqlConnector, ProviderTraits.For(typeof(MySqlConnector.MySqlDataSource)));
        Assert.Same(ProviderTraits.MySqlData, ProviderTraits.For(typeof(MySql.Data.MySqlClient.MySqlClientFactory)));
        Assert.Same(ProviderTraits.MicrosoftSqlClient, ProviderTraits.For(typeof(Microsoft.Data.SqlClient.SqlClientFactory)));
        Assert.Same(ProviderTraits.MicrosoftSqlite, ProviderTraits.For(typeof(SqliteCommandOfMine)));
        Assert.Same(ProviderTraits.Other, ProviderTraits.For(typeof(System.Data.Common.DbCommand)));
    }

    [Fact]
    public void Only_sqlite_takes_prefixed_names_only_npgsql_and_mysqlconnector_publish_a_pool_meter_and_only_mysql_data_blocks_in_async()
    {
        ProviderTraits[] all =
        [
            ProviderTraits.MicrosoftSqlite, ProviderTraits.SystemSqlite, ProviderTraits.Npgsql, ProviderTraits.MicrosoftSqlClient,
            ProviderTraits.SystemSqlClient, ProviderTraits.MySqlConnector, ProviderTraits.MySqlData, ProviderTraits.Other,
        ];
        Assert.Same(ProviderTraits.MicrosoftSqlite, Assert.Single(all, t => t.PrefixedParameterNames));
        Assert.Equal(new[] { "Npgsql", "MySqlConnector" }, all.Select(t => t.PoolMeterName).OfType<string>());
        Assert.Same(ProviderTraits.MySqlData, Assert.Single(all, t => t.AsyncRunsSynchronously));
        using var command = new SqliteCommandOfMine();
        Assert.True(ProviderTraits.Of(command).PrefixedParameterNames);
    }

    [Theory]
    [InlineData("Npgsql", "Host=h;MaxPoolSize=7", 7)]
    [InlineData("Npgsql", "Host=h;Maximum Pool Size=9", 9)]
    [InlineData("MySqlConnector", "Server=h;MaxPoolSize=3", 3)]
    [InlineData("MySqlData", "Server=h;maximumpoolsize=4", 4)]
    [InlineData("MySqlConnector", "Server=h;Pooling=true;Max Pool Size=5", 5)]
    [InlineData("Npgsql", "Host=h", 100)]
    [InlineData("MySqlConnector", "Server=h", 100)]
    [InlineData("MySqlData", "Server=h", 100)]
    [InlineData("MicrosoftSqlClient", "Server=h", 100)]
    [InlineData("MicrosoftSqlClient", "Server=h;Max Pool Size=6", 6)]
    [InlineData("Npgsql", "Host=h;Maximum Pool Size=0", 100)]
    [InlineData("Npgsql", "Host=h;Maximum Pool Size=many", 100)]
    [InlineData("Npgsql", "Host=h;Pooling=false;Maximum Pool Size=7", null)]
    [InlineData("Npgsql", "Host=h;Pooling=nope", 100)]
    [InlineData("MicrosoftSqlite", "Data Source=a.db", null)]
    [InlineData("MicrosoftSqlite", "Data Source=a.db;Max Pool Size=4", 4)]
    [InlineData("Other", "Server=h", null)]
    [InlineData("Other", "Server=h;Max Pool Size=8", 8)]
    [InlineData("Npgsql", "not = a ; = valid", null)]
    public void The_max_pool_size_is_the_connection_string_s_or_the_provider_s_default(string provider, string connectionString, int? expected) =>
        Assert.Equal(expected, Traits(provider).MaxPoolSize(connectionString));

    private static ProviderTraits Traits(string name) =>
        (ProviderTraits)typeof(ProviderTraits).GetField(name, BindingFlags.Public | BindingFlags.Static)!.GetValue(null)!;

    private sealed class SqliteCommandOfMine : SqliteCommand;
}
