namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// Drops every packet to and from one loopback port with nftables (no RST, no ICMP): to its clients the server simply
/// stops answering. The table is removed on dispose, and a table left by an earlier crashed run is removed first.
/// </summary>
public sealed class Blackhole : IDisposable
{
    private readonly string _table;

    public Blackhole(int port)
    {
        _table = $"orseis_blackhole_{port}";
        Remove();
        Nft($"add table inet {_table}");
        Nft($"add chain inet {_table} out {{ type filter hook output priority -10 ; policy accept ; }}");
        Nft($"add rule inet {_table} out ip daddr 127.0.0.1 tcp dport {port} drop");
        Nft($"add rule inet {_table} out ip saddr 127.0.0.1 tcp sport {port} drop");
    }

    public void Dispose() => Remove();

    private void Remove()
    {
        try
        {
            Nft($"delete table inet {_table}");
        }
        catch (InvalidOperationException)
        {
            // Not there: nothing to remove.
        }
    }

    private static void Nft(string command)
    {
        var start = new System.Diagnostics.ProcessStartInfo("nft") { RedirectStandardError = true, RedirectStandardOutput = true };
        foreach (string part in command.Split(' ', StringSplitOptions.RemoveEmptyEntries))
            start.ArgumentList.Add(part);
        using var process = System.Diagnostics.Process.Start(start)!;
        string errors = process.StandardError.ReadToEnd();
        process.WaitForExit(10_000);
        if (process.ExitCode != 0)
            throw new InvalidOperationException($"nft {command} failed: {errors}");
    }
}
