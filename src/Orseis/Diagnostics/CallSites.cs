using System.Diagnostics.CodeAnalysis;
using System.Diagnostics;
using System.Reflection;
using System.Text;

namespace Orseis.Diagnostics;

/// <summary>Where user code called Orseis from. Only ever called when a detector that reports locations is on.</summary>
internal static class CallSites
{
    private static readonly Assembly Own = typeof(CallSites).Assembly;

    /// <summary>
    /// Whether a recording is being replayed on this thread (<see cref="Replay.PoolReplay"/>): the replay's own stack is not
    /// the recorded process's, so no call site is read (the recorded one is given to the flow instead).
    /// </summary>
    [ThreadStatic]
    internal static bool Replaying;

    /// <summary>The first frame outside Orseis and the framework, as <c>Type.Method</c> (with file:line when symbols allow).</summary>
    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification =
        "Under trimming or Native AOT a frame's method may be unknown (null): that frame is skipped, and the " +
        "call site is left unnamed.")]
    public static string? Caller()
    {
        if (Replaying)
            return null;
        var trace = new StackTrace(2, fNeedFileInfo: false);
        foreach (StackFrame frame in trace.GetFrames())
        {
            if (frame.GetMethod() is { } method && IsUserCode(method))
                return Describe(method);
        }

        return null;
    }

    /// <summary>
    /// Captures the current stack cheaply (no file or line lookup): it is taken on every acquire while the held-too-long
    /// detector is on, and formatted by <see cref="Format"/> only if it is ever reported.
    /// </summary>
    public static StackTrace Capture() => new(2, fNeedFileInfo: false);

    /// <summary>The stack from the first user frame (outside Orseis and the framework), one frame a line, at most 12 frames.</summary>
    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification =
        "Under trimming or Native AOT a frame's method may be unknown (null): that frame is skipped.")]
    public static string Format(StackTrace trace)
    {
        var text = new StringBuilder();
        int written = 0;
        bool user = false;
        foreach (StackFrame frame in trace.GetFrames())
        {
            if (frame.GetMethod() is not { } method)
                continue;
            user |= IsUserCode(method);
            if (!user)
                continue;
            text.Append("   at ").Append(Describe(method)).AppendLine();
            if (++written == 12)
                break;
        }

        return text.ToString().TrimEnd();
    }

    private static bool IsUserCode(MethodBase method)
    {
        Type? type = method.DeclaringType;
        if (type is null || type.Assembly == Own)
            return false;
        string ns = type.Namespace ?? "";
        foreach (string framework in ProviderTraits.FrameNamespaces)
        {
            if (ns.StartsWith(framework, StringComparison.Ordinal))
                return false;
        }

        return true;
    }

    private static string Describe(MethodBase method)
    {
        // Async state machines, lambdas and local functions live in compiler-named types and methods such as
        // "<<Main>$>b__0" or "<Run>d__3": name the user's type and the method that wrote them.
        Type? type = method.DeclaringType;
        string? compiled = method.Name.StartsWith('<') ? method.Name : null;
        while (type is not null && type.Name.StartsWith('<'))
        {
            // "<>c__DisplayClass..." closures name nothing; a state machine or lambda type ("<Run>d__3") does.
            if (compiled is null && !type.Name.StartsWith("<>", StringComparison.Ordinal))
                compiled = type.Name;
            type = type.DeclaringType;
        }

        if (compiled is null)
            return $"{type?.FullName}.{method.Name}";
        return $"{type?.FullName}.{NameInAngles(compiled)}";
    }

    /// <summary>
    /// The first name written between <c>&lt;</c> and <c>&gt;</c> ("Main" in "&lt;&lt;Main&gt;$&gt;b__0"), else the whole text.
    /// </summary>
    internal static string NameInAngles(string compiled)
    {
        for (int open = compiled.IndexOf('<'); open >= 0; open = compiled.IndexOf('<', open + 1))
        {
            int end = open + 1;
            if (end >= compiled.Length || !(char.IsAsciiLetter(compiled[end]) || compiled[end] == '_'))
                continue;
            while (end < compiled.Length && (char.IsAsciiLetterOrDigit(compiled[end]) || compiled[end] == '_'))
                end++;
            if (end < compiled.Length && compiled[end] == '>')
                return compiled[(open + 1)..end];
        }

        return compiled;
    }
}
