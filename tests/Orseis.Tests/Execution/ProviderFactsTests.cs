using System.Data.Common;
using System.Reflection;
using System.Transactions;
using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// Each known provider's entry in <see cref="ProviderTraits"/> checked against the provider itself, where that can be
/// done in-process: its connection string builder knows the keys the entry reads, its exception type has the
/// <c>Number</c> the entry names, the meter it names is its own; SQLite's comments and enlistment as SQLite runs them.
/// </summary>
public sealed class ProviderFactsTests
{
    public static TheoryData<string, DbProviderFactory> Referenced => new()
    {
        { nameof(ProviderTraits.MicrosoftSqlite), SqliteFactory.Instance },
        { nameof(ProviderTraits.Npgsql), Npgsql.NpgsqlFactory.Instance },
        { nameof(ProviderTraits.MicrosoftSqlClient), Microsoft.Data.SqlClient.SqlClientFactory.Instance },
        { nameof(ProviderTraits.MySqlConnector), MySqlConnector.MySqlConnectorFactory.Instance },
        { nameof(ProviderTraits.MySqlData), MySql.Data.MySqlClient.MySqlClientFactory.Instance },
    };

    private static ProviderTraits Traits(string name) =>
        (ProviderTraits)typeof(ProviderTraits).GetField(name, BindingFlags.Public | BindingFlags.Static)!.GetValue(null)!;

    [Theory]
    [MemberData(nameof(Referenced))]
    public void The_entry_is_the_one_found_for_the_provider_s_own_types(string name, DbProviderFactory factory)
    {
        ProviderTraits traits = Traits(name);
        Assert.Same(traits, ProviderTraits.For(factory.GetType()));
        using DbConnection connection = factory.CreateConnection()!;
        using DbCommand command = connection.CreateCommand();
        Assert.Same(traits, ProviderTraits.Of(command));
    }

    /// <summary>Every key the entry reads (pool size, enlistment, server and database) is one the provider's builder knows.</summary>
    [Theory]
    [MemberData(nameof(Referenced))]
    public void Every_connection_string_key_the_entry_reads_is_the_provider_s_own(string name, DbProviderFactory factory)
    {
        ProviderTraits traits = Traits(name);
        IEnumerable<string> keys = traits.PoolSizeKeys.Where(_ => traits.DefaultMaxPoolSize is not null)
            .Concat(traits.EnlistKeys ?? [])
            .Concat(traits.ServerKeys?.Host ?? [])
            .Concat(traits.ServerKeys?.Database ?? []);
        foreach (string key in keys)
        {
            DbConnectionStringBuilder builder = factory.CreateConnectionStringBuilder()!;
            builder.ConnectionString = $"{key}={(traits.EnlistKeys?.Contains(key) == true ? "false" : "7")}"; // an unknown key throws
            Assert.True(builder.ContainsKey(key), $"{name} does not know '{key}'");
        }
    }

    /// <summary>The exception type whose Number is the error number exists in the provider's assembly, with an int Number.</summary>
    [Theory]
    [MemberData(nameof(Referenced))]
    public void The_error_number_type_is_the_provider_s_exception_with_an_int_number(string name, DbProviderFactory factory)
    {
        ProviderTraits traits = Traits(name);
        if (traits.ErrorNumberType is null)
        {
            Assert.True(traits == ProviderTraits.Npgsql || traits == ProviderTraits.MicrosoftSqlite, name);
            return;
        }

        Type? type = factory.GetType().Assembly.GetType(traits.ErrorNumberType);
        Assert.NotNull(type);
        Assert.True(typeof(DbException).IsAssignableFrom(type));
        Assert.Equal(typeof(int), type.GetProperty("Number")?.PropertyType);
    }

    /// <summary>The meter an entry names is created by the provider's own assembly (read from its code, no connection needed).</summary>
    [Theory]
    [MemberData(nameof(Referenced))]
    public void Only_a_provider_that_has_a_meter_of_that_name_is_said_to_publish_one(string name, DbProviderFactory factory)
    {
        ProviderTraits traits = Traits(name);
        string[] meters = [.. factory.GetType().Assembly.GetTypes()
            .Where(t => !t.ContainsGenericParameters)
            .SelectMany(t => t.GetFields(BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public))
            .Where(f => f.FieldType == typeof(System.Diagnostics.Metrics.Meter))
            .Select(f => ((System.Diagnostics.Metrics.Meter?)f.GetValue(null))?.Name)
            .OfType<string>()];
        if (traits.PoolMeterName is { } meter)
        {
            Assert.Contains(meter, meters);
            Assert.True(ProviderTraits.IsPoolMeter(meter));
        }
        else
        {
            Assert.Empty(meters);
        }
    }

    [Fact]
    public void Each_report_names_its_own_provider()
    {
        Assert.StartsWith("MySql.Data publishes no pool data", ProviderTraits.MySqlData.PoolVisibility, StringComparison.Ordinal);
        Assert.DoesNotContain("MySqlConnector", ProviderTraits.MySqlData.PoolVisibility, StringComparison.Ordinal);
        Assert.StartsWith("MySqlConnector publishes pool data on its meter 'MySqlConnector'", ProviderTraits.MySqlConnector.PoolVisibility, StringComparison.Ordinal);
        Assert.StartsWith("Npgsql publishes", ProviderTraits.Npgsql.PoolVisibility, StringComparison.Ordinal);
        Assert.StartsWith("Microsoft.Data.Sqlite publishes", ProviderTraits.MicrosoftSqlite.PoolVisibility, StringComparison.Ordinal);
        Assert.StartsWith("SqlClient publishes", ProviderTraits.MicrosoftSqlClient.PoolVisibility, StringComparison.Ordinal);
        Assert.StartsWith("This provider publishes no pool data Orseis knows", ProviderTraits.Other.PoolVisibility, StringComparison.Ordinal);
    }

    /// <summary>SQLite's block comments do not nest (its dialect says none), and its connections never join a scope.</summary>
    [Fact]
    public void Sqlite_runs_comments_and_scopes_as_its_entry_says()
    {
        Assert.Equal(SqlDialect.None, ProviderTraits.MicrosoftSqlite.Dialect);
        using var file = new SqliteFile();
        using Database db = file.Open(ExecutionMode.OpenPerCall);
        Assert.Equal(2, db.Scalar<long>("select 1 /* a /* b */ + 1")); // nesting would have hidden "+ 1"

        Assert.NotNull(ProviderTraits.MicrosoftSqlite.NeverEnlistsBecause);
        using var connection = new SqliteConnection($"Data Source={file.Path}");
        connection.Open();
        using (var create = connection.CreateCommand())
        {
            create.CommandText = "create table t (v integer)";
            create.ExecuteNonQuery();
        }

        using (new TransactionScope())
        {
            using var inScope = new SqliteConnection($"Data Source={file.Path}");
            inScope.Open();
            using var insert = inScope.CreateCommand();
            insert.CommandText = "insert into t values (1)";
            insert.ExecuteNonQuery();
        } // not completed: a connection that joined would have rolled back

        using var count = connection.CreateCommand();
        count.CommandText = "select count(*) from t";
        Assert.Equal(1L, count.ExecuteScalar());
    }
}
