using System.Data.Common;
using System.Globalization;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Costs;

/// <summary>
/// <c>probe-mysql</c>: counts what the MySQL provider sends the server for each pooled open, with and without
/// <c>Connection Reset</c>, from the server's own statement counters (<c>SHOW GLOBAL STATUS</c>: <c>Questions</c>,
/// <c>Com_set_option</c>, <c>Com_select</c>), to explain the study's MariaDB open-per-call numbers. Needs
/// <c>ORSEIS_MYSQL</c> and a server nobody else is using while it runs.
/// </summary>
public static class MySqlResetProbe
{
    private const int Opens = 100;
    private static readonly string[] Counters = ["Questions", "Com_set_option", "Com_select"];

    /// <summary>Runs the probe through <paramref name="provider"/> and prints one line per variant; returns the exit code.</summary>
    public static int Run(BenchProvider provider)
    {
        if (provider is not (BenchProvider.MySql or BenchProvider.MySqlData))
        {
            Console.Error.WriteLine($"ERROR: probe-mysql takes mysql or mysql-data, not {BenchProviders.Name(provider)}.");
            return 2;
        }

        if (ProviderFactories.WhyUnavailable(provider) is { } why)
        {
            Console.Error.WriteLine($"ERROR: {why}");
            return 2;
        }

        using BenchDatabase database = BenchDatabase.Create(provider);
        string unpooled = database.Unpooled;
        Console.WriteLine($"{ProviderFactories.Describe(database.Factory)}; {Opens} pooled opens, each running `select 1`, per variant");

        // Reading the counters is itself counted; measure that once and take it off.
        Dictionary<string, long> a = Read(database.Factory, unpooled), b = Read(database.Factory, unpooled);
        Dictionary<string, long> reading = Counters.ToDictionary(c => c, c => b[c] - a[c]);

        foreach ((string name, string connectionString) in new[] { ("Connection Reset=true", database.ConnectionString), ("Connection Reset=false", database.NoResetOnClose!) })
        {
            using DbDataSource source = database.CreateDataSource(connectionString);
            OpenAndSelect(source); // the physical connect and its set-up happen here, outside the count
            Dictionary<string, long> before = Read(database.Factory, unpooled);
            for (int i = 0; i < Opens; i++)
                OpenAndSelect(source);
            Dictionary<string, long> after = Read(database.Factory, unpooled);
            string perOpen = string.Join(", ", Counters.Select(c =>
                $"{c} {((after[c] - before[c] - reading[c]) / (double)Opens).ToString("0.##", CultureInfo.InvariantCulture)}"));
            Console.WriteLine($"{name}: per pooled open + select 1: {perOpen}");
        }

        return 0;
    }

    private static void OpenAndSelect(DbDataSource source)
    {
        using DbConnection connection = source.OpenConnection();
        using DbCommand command = connection.CreateCommand();
        command.CommandText = "select 1";
        command.ExecuteScalar();
    }

    private static Dictionary<string, long> Read(DbProviderFactory factory, string connectionString)
    {
        using DbConnection connection = factory.CreateConnection()!;
        connection.ConnectionString = connectionString;
        connection.Open();
        using DbCommand command = connection.CreateCommand();
        command.CommandText = "show global status where variable_name in ('Questions', 'Com_set_option', 'Com_select')";
        using DbDataReader reader = command.ExecuteReader();
        var values = new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase);
        while (reader.Read())
            values[reader.GetString(0)] = long.Parse(reader.GetString(1), CultureInfo.InvariantCulture);
        return Counters.ToDictionary(c => c, c => values[c]);
    }
}
