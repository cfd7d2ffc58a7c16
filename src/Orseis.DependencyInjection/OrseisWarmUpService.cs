using System.Globalization;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Orseis.DependencyInjection;

/// <summary>
/// Runs <see cref="Database.WarmUpAsync"/> in <see cref="StartAsync"/>, so a host's first requests find a warm pool: the
/// generic host starts its hosted services one after another, before the web server takes traffic.
/// </summary>
internal sealed partial class OrseisWarmUpService(Database database, OrseisWarmUpOptions options, ILoggerFactory? loggers) : IHostedService
{
    private readonly ILogger _log = (loggers ?? NullLoggerFactory.Instance).CreateLogger("Orseis.WarmUp");

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(options.Deadline);
        WarmUpResult? result = null;
        string? problem = null;
        try
        {
            result = await database.WarmUpAsync(options.Connections, deadline.Token).ConfigureAwait(false);
            if (result.Failures.Count > 0)
            {
                problem = string.Create(CultureInfo.InvariantCulture,
                    $"{result.Failures.Count} of {result.Requested} connect(s) failed, " +
                    $"the first with {result.Failures[0].GetType().FullName}: {result.Failures[0].Message}");
            }
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            problem = string.Create(CultureInfo.InvariantCulture,
                $"it did not finish within its deadline of {options.Deadline.TotalSeconds:0.###} s (OrseisWarmUpOptions.Deadline)");
        }

        if (problem is null)
        {
            LogWarmed(_log, database.PoolName, result!);
            return;
        }

        string message = $"The warm-up of pool '{database.PoolName}' is incomplete: {problem}.";
        if (options.FailStartup)
            throw new InvalidOperationException(message + " The host does not start (OrseisWarmUpOptions.FailStartup).");
        LogIncomplete(_log, message + " The host starts all the same; its first requests may pay for new connections.");
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    [LoggerMessage(EventId = 1, Level = LogLevel.Information, Message = "Pool '{Pool}': {Result}")]
    private static partial void LogWarmed(ILogger logger, string pool, WarmUpResult result);

    [LoggerMessage(EventId = 2, Level = LogLevel.Warning, Message = "{Message}")]
    private static partial void LogIncomplete(ILogger logger, string message);
}
