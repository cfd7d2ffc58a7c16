using Microsoft.Data.Sqlite;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Orseis;

// What appsettings.json would hold; a host gives it as builder.Configuration.
string file = Path.Combine(Path.GetTempPath(), "orseis-di-sample.db");
IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
{
    ["Orseis:ConnectionString"] = $"Data Source={file}",
    ["Orseis:Mode"] = "ReuseConnection",
    ["Orseis:CommandTimeout"] = "00:00:30",
    ["Orseis:Diagnostics:Detectors"] = "All",
    ["Reports:ConnectionString"] = $"Data Source={file}",
    ["Reports:Mode"] = "OpenPerCall",
    ["Reports:Diagnostics:Detectors"] = "Churn",
    ["Reports:Diagnostics:ChurnThreshold"] = "3",
    ["Reports:Diagnostics:ChurnGap"] = "00:00:01",
}).Build();

var services = new ServiceCollection();
services.AddLogging(logging => logging.AddProvider(new ConsoleLines())); // findings go to the container's ILoggerFactory
services.AddOrseis(SqliteFactory.Instance, configuration.GetSection("Orseis"));
services.AddKeyedOrseis("reports", SqliteFactory.Instance, configuration.GetSection("Reports"));
services.AddSingleton<Reports>();

await using (ServiceProvider provider = services.BuildServiceProvider())
{
    Database db = provider.GetRequiredService<Database>(); // the one singleton, disposed with the container
    await db.ExecuteAsync("create table if not exists users (id integer primary key, name text not null)");
    await db.ExecuteAsync("delete from users");
    int added = await db.ExecuteAsync("insert into users (name) values (@name)", new[] { new { name = "Ada" }, new { name = "Grace" } });
    Console.WriteLine($"{added} users added through the {db.Mode} database");

    Database reports = provider.GetRequiredService<Reports>().Database;
    for (int i = 0; i < 3; i++) // three opens back to back: a churn finding, logged
        Console.WriteLine($"{await reports.ScalarAsync<long>("select count(*) from users")} users, read through the {reports.Mode} database 'reports'");
}

// A setting Orseis cannot read fails when the database is resolved, naming the key.
var broken = new ServiceCollection().AddOrseis(SqliteFactory.Instance, new ConfigurationBuilder()
    .AddInMemoryCollection(new Dictionary<string, string?> { ["Orseis:ConnectionString"] = $"Data Source={file}", ["Orseis:Mode"] = "Foo" })
    .Build().GetSection("Orseis"));
try
{
    using ServiceProvider provider = broken.BuildServiceProvider();
    provider.GetRequiredService<Database>();
}
catch (InvalidOperationException error)
{
    Console.WriteLine(error.Message);
}

/// <summary>A service given the keyed database.</summary>
internal sealed class Reports([FromKeyedServices("reports")] Database reports)
{
    public Database Database { get; } = reports;
}

/// <summary>Writes log entries as lines (the console logger package would do the same).</summary>
internal sealed class ConsoleLines : ILoggerProvider
{
    public ILogger CreateLogger(string categoryName) => new Lines(categoryName);

    public void Dispose()
    {
    }

    private sealed class Lines(string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Warning;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            Console.WriteLine($"{logLevel} [{category}] {formatter(state, exception)}");
    }
}
