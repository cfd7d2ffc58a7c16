using System.Runtime.CompilerServices;

namespace Orseis.Execution.Calls;

/// <summary>
/// Where sync code meets the one sync/async code path. Every call runs the same code with an <c>async</c> flag; with it
/// false nothing awaits anything that can suspend, so the <see cref="ValueTask"/> is complete when the sync caller gets
/// it. <see cref="Done"/> checks that instead of assuming it (blocking on an incomplete <see cref="ValueTask"/> is
/// undefined). The few places that must block on truly asynchronous provider work say so with <see cref="Block"/>.
/// Any other wait on a task is refused by the build (BannedSymbols.txt).
/// </summary>
internal static class SyncPath
{
#pragma warning disable RS0030 // the one place these are allowed
    /// <summary>The result of a sync path's <paramref name="pending"/>, which must be complete.</summary>
    /// <exception cref="InvalidOperationException">The sync path suspended: a bug in Orseis, reported instead of deadlocking.</exception>
    public static T Done<T>(ValueTask<T> pending, [CallerMemberName] string caller = "")
    {
        if (!pending.IsCompleted)
            throw Suspended(caller);
        return pending.GetAwaiter().GetResult();
    }

    /// <inheritdoc cref="Done{T}(ValueTask{T}, string)"/>
    public static void Done(ValueTask pending, [CallerMemberName] string caller = "")
    {
        if (!pending.IsCompleted)
            throw Suspended(caller);
        pending.GetAwaiter().GetResult();
    }

    /// <summary>
    /// Blocks on work that is asynchronous even when called from sync code: a commit watched by its timeout (so it can
    /// be abandoned on time), a data source's disposal.
    /// </summary>
    public static void Block(ValueTask pending)
    {
        if (pending.IsCompleted)
            pending.GetAwaiter().GetResult();
        else
            pending.AsTask().GetAwaiter().GetResult();
    }
#pragma warning restore RS0030

    private static InvalidOperationException Suspended(string caller) =>
        new($"Orseis bug: the sync path of {caller} suspended. Please report it with the provider and call used.");
}
