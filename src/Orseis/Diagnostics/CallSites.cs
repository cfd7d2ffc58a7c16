using System.Diagnostics;
using System.Reflection;
using System.Text;

namespace Orseis.Diagnostics;

/// <summary>Where user code called Orseis from. Only ever called when a detector that reports locations is on.</summary>
internal static class CallSites
{
    private static readonly Assembly Own = typeof(CallSites).Assembly;

    /// <summary>The first frame outside Orseis and the framework, as <c>Type.Method</c> (with file:line when symbols allow).</summary>
    public static string? Caller()
    {
        var trace = new StackTrace(2, fNeedFileInfo: false);
        foreach (StackFrame frame in trace.GetFrames())
        {
            if (frame.GetMethod() is { } method && IsUserCode(method))
                return Describe(method);
        }

        return null;
    }

    /// <summary>The stack from the first user frame (outside Orseis and the framework), one frame a line, at most 12 frames.</summary>
    public static string Stack()
    {
        var trace = new StackTrace(2, fNeedFileInfo: true);
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
            text.Append("   at ").Append(Describe(method));
            if (frame.GetFileName() is { } file)
                text.Append(" in ").Append(file).Append(':').Append(frame.GetFileLineNumber());
            text.AppendLine();
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
        return !ns.StartsWith("System", StringComparison.Ordinal) && !ns.StartsWith("Microsoft", StringComparison.Ordinal);
    }

    private static string Describe(MethodBase method)
    {
        Type? type = method.DeclaringType;
        // Async state machines and lambdas: name the method that wrote them, not the compiler's class.
        while (type is { DeclaringType: not null } && type.Name.Contains('<', StringComparison.Ordinal))
        {
            string name = type.Name;
            int start = name.IndexOf('<', StringComparison.Ordinal) + 1;
            int end = name.IndexOf('>', StringComparison.Ordinal);
            type = type.DeclaringType;
            if (end > start)
                return $"{type?.FullName}.{name[start..end]}";
        }

        return $"{type?.FullName}.{method.Name}";
    }
}
