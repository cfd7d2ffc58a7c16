using System.Collections.Concurrent;

namespace Orseis.Samples.SlowApp;

/// <summary>Failed requests, counted by error type and the first line of its message.</summary>
internal sealed class SlowAppErrors
{
    private readonly ConcurrentDictionary<string, long> _counts = new();

    /// <summary>Counts <paramref name="error"/> and returns the text the request answers with.</summary>
    public string Add(Exception error)
    {
        string key = $"{error.GetType().Name}: {error.Message.Split('\n')[0].Trim()}";
        if (key.Length > 200)
            key = key[..200];
        _counts.AddOrUpdate(key, 1, (_, n) => n + 1);
        return key;
    }

    public IReadOnlyDictionary<string, long> Counts => _counts.ToDictionary(e => e.Key, e => e.Value);
}
