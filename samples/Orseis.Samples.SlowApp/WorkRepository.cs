namespace Orseis.Samples.SlowApp;

/// <summary>
/// A repository as web code writes one: each method is an async method of its own that makes one call on whatever it
/// was given, the <see cref="Database"/> (open per call, or inside the request's scope) or the request's <see cref="Session"/>.
/// </summary>
internal sealed class WorkRepository(SqlRunner runner)
{
    /// <summary>Sends <paramref name="value"/> to the server and returns what came back (<c>select @v</c>).</summary>
    public async Task<long> EchoAsync(long value, CancellationToken cancellationToken) =>
        await runner.ScalarAsync<long>("select @v", new { v = value }, cancellationToken: cancellationToken);
}
