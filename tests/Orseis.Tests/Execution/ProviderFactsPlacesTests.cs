using Microsoft.Data.Sqlite;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Execution;

/// <summary>Facts that used to be switches on provider names, now read from each provider's <see cref="ProviderTraits"/> entry.</summary>
public sealed class ProviderFactsPlacesTests
{
    [Fact]
    public void A_servers_error_is_told_by_its_providers_entry_and_a_connection_id_only_where_one_is_known()
    {
        Assert.Null(ProviderTraits.OwnerOfServerError(new InvalidOperationException("x")));
        Assert.Equal("Npgsql.PostgresException", ProviderTraits.Npgsql.ServerErrorType);
        Assert.Equal(ProviderTraits.MySqlData.ErrorNumberType, ProviderTraits.MySqlData.ServerErrorType);

        Assert.NotNull(PhysicalConnections.For("mysql"));
        Assert.NotNull(PhysicalConnections.For("microsoft.sql_server"));
        Assert.Null(PhysicalConnections.For("sqlite"));
        Assert.Null(PhysicalConnections.For("postgresql")); // Npgsql's meter counts its physical connections
        Assert.Contains("Npgsql", ProviderTraits.FrameNamespaces);
    }

    [Fact]
    public void A_bag_finds_its_parameters_reading_the_text_as_the_provider_does()
    {
        // On SQLite a backslash does not escape: the string ends at the second quote and @id after it is a parameter.
        using var command = new SqliteCommand();
        ParameterBag bag = new ParameterBag().Add("id", 5, System.Data.DbType.Int32);
        string sql = bag.Bind(command, @"select 'a\' as t, @Id as id", handlers: null);
        Assert.EndsWith("Id", Assert.Single(command.Parameters.Cast<SqliteParameter>()).ParameterName, StringComparison.Ordinal); // as spelt
        Assert.Contains("@Id", sql, StringComparison.Ordinal);
    }
}
