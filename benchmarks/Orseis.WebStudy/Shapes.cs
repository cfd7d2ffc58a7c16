namespace Orseis.WebStudy;

/// <summary>
/// A kind of request the study loads: how many statements it makes, what it awaits between two of them, the pool it
/// runs on and how many hey clients send it.
/// </summary>
/// <param name="Name">The name in URLs, options and results (<c>burst</c>, <c>await</c>).</param>
/// <param name="Statements">Statements per request, each a primary-key read through a repository method.</param>
/// <param name="DelayMs">Milliseconds of <c>await Task.Delay</c> between two statements (work that is not the database's).</param>
/// <param name="MaxPoolSize">MySqlConnector's Maximum Pool Size for this shape's databases.</param>
/// <param name="Clients">hey's concurrent clients (<c>-c</c>).</param>
internal sealed record Shape(string Name, int Statements, int DelayMs, int MaxPoolSize, int Clients)
{
    /// <summary>Five short statements back to back, 32 clients, a pool of 100 (MySqlConnector's default).</summary>
    public static readonly Shape Burst = new("burst", 5, 0, 100, 32);

    /// <summary>A statement, a 20 ms await, a statement; 64 clients on a pool of 16.</summary>
    public static readonly Shape Await = new("await", 2, 20, 16, 64);

    public static readonly Shape[] All = [Burst, Await];

    /// <summary>The ways a request gets its connections, in the order the first round runs them.</summary>
    public static readonly string[] Strategies = ["percall", "session", "scope"];

    /// <summary>What the request does, in words.</summary>
    public string Description => DelayMs == 0
        ? $"{Statements} statements back to back"
        : $"{Statements} statements with `await Task.Delay({DelayMs})` between two";

    /// <summary>The key of the database an endpoint of this shape and <paramref name="strategy"/> uses.</summary>
    public string Key(string strategy) => $"{Name}-{strategy}";

    /// <summary>The endpoint's path.</summary>
    public string Path(string strategy) => $"/{Name}/{strategy}";

    /// <summary>Reads a comma-separated list of shape names.</summary>
    /// <exception cref="ArgumentException">A name is not a shape's.</exception>
    public static Shape[] Parse(IEnumerable<string> names) =>
    [
        .. names.Select(n => All.SingleOrDefault(s => s.Name == n.Trim())
                             ?? throw new ArgumentException($"--shapes: '{n}' is not a shape (burst or await).")),
    ];
}
