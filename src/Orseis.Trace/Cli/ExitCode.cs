namespace Orseis.Trace.Cli;

/// <summary>The tool's exit codes: one per kind of failure, so scripts can tell them apart (docs/tools.md lists them).</summary>
internal enum ExitCode
{
    /// <summary>Done.</summary>
    Ok = 0,

    /// <summary>The command line could not be parsed: an unknown option or command, a missing or extra argument.</summary>
    Usage = 1,

    /// <summary>A value is out of range or unreadable: a zero or negative duration, an interval outside 0.1–3600 s.</summary>
    BadValue = 2,

    /// <summary>No process with the given id is running.</summary>
    NoSuchProcess = 3,

    /// <summary>The process runs but is not a .NET process with a diagnostic port this user can reach.</summary>
    NotDotnet = 4,

    /// <summary>No .NET process has the given name.</summary>
    NameMatchesNone = 5,

    /// <summary>Several .NET processes have the given name.</summary>
    NameMatchesSeveral = 6,

    /// <summary>The .NET process has not loaded Orseis.</summary>
    NoOrseis = 7,

    /// <summary>The trace file is missing, truncated, or not a .nettrace file.</summary>
    BadTraceFile = 8,

    /// <summary>Attaching failed: the diagnostic port refused, the command could not start, or the session broke.</summary>
    AttachFailed = 9,

    /// <summary>An output file could not be written.</summary>
    CannotWrite = 10,

    /// <summary>A failure the tool did not foresee (a bug): still one line, never a stack trace.</summary>
    Internal = 70,
}
