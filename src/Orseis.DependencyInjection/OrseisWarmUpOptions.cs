namespace Orseis.DependencyInjection;

/// <summary>How <c>AddOrseisWarmUp</c> fills a database's pool as the host starts.</summary>
public sealed class OrseisWarmUpOptions
{
    /// <summary>How many connections to open at once (at least 1, at most Max Pool Size); 10 by default.</summary>
    public int Connections { get; set; } = 10;

    /// <summary>How long the warm-up may take before the host goes on without it; 30 s by default.</summary>
    public TimeSpan Deadline { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// When true, a warm-up that failed a connect or ran out of time stops the host from starting (its <c>StartAsync</c>
    /// throws); when false (the default) the failure is logged as a warning and the host starts with what it has.
    /// </summary>
    public bool FailStartup { get; set; }
}
