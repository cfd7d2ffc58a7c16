namespace Orseis.SurfaceGen;

/// <summary>A parameter of a call other than the four every call has (sql, args, timeout, cancellationToken).</summary>
/// <param name="Type">Its C# type, as written in the signature.</param>
/// <param name="Name">Its name.</param>
/// <param name="Doc">The text of its <c>param</c> tag.</param>
/// <param name="Default">Its default value, if it has one.</param>
public sealed record Param(string Type, string Name, string Doc, string? Default = null)
{
    /// <summary>The type as a <c>cref</c> writes it: generic arguments in braces.</summary>
    public string CrefType => Type.Replace('<', '{').Replace('>', '}');
}

/// <summary>
/// One call: a method name with its string form, sync and async. The generator writes those two (unless their bodies are
/// hand-written), the two interpolated-string forms that forward to them, and the two ORSEIS001 guards.
/// </summary>
public sealed record Call
{
    /// <summary>The sync name; the async form adds "Async".</summary>
    public required string Name { get; init; }

    /// <summary>The type parameter list with its angle brackets ("&lt;T&gt;"), or empty.</summary>
    public string TypeParams { get; init; } = "";

    /// <summary>The sync form's result type.</summary>
    public required string Result { get; init; }

    /// <summary>The async form's result type.</summary>
    public required string AsyncResult { get; init; }

    /// <summary>Parameters before the SQL (the row type of a <c>Type</c> call).</summary>
    public Param[] Before { get; init; } = [];

    /// <summary>Parameters between the SQL and the args (a multi-map's types and map function).</summary>
    public Param[] Middle { get; init; } = [];

    /// <summary>Parameters between the args and the timeout (a multi-map's splitOn).</summary>
    public Param[] After { get; init; } = [];

    /// <summary>The <c>typeparam</c> tags, written on every form that has docs.</summary>
    public string[] TypeParamDocs { get; init; } = [];

    /// <summary>The family's one written doc: the summary (and remarks) of the sync string form.</summary>
    public required string Summary { get; init; }

    /// <summary>The text of the <c>returns</c> tag.</summary>
    public required string Returns { get; init; }

    /// <summary>Tags after <c>returns</c> (exceptions, example), written once on the sync string form.</summary>
    public string Tail { get; init; } = "";

    /// <summary>The sync string form's body: an expression, or statements when <see cref="Block"/>; null when hand-written.</summary>
    public string? SyncBody { get; init; }

    /// <summary>The async string form's body, as <see cref="SyncBody"/>.</summary>
    public string? AsyncBody { get; init; }

    /// <summary>Whether the bodies are statements (written in braces) rather than an expression.</summary>
    public bool Block { get; init; }

    /// <summary>What the interpolated forms call (with "Async" added for the async one); the string form by default.</summary>
    public string? InterpolatedTarget { get; init; }

    /// <summary>The <c>param</c> text of <c>args</c> in the string forms.</summary>
    public string ArgsDoc { get; init; } = "The parameters.";

    /// <summary>The <c>param</c> text of <c>timeout</c>.</summary>
    public string TimeoutDoc { get; init; } = "The command timeout for this call; null for the database's default.";

    /// <summary>The <c>param</c> text of <c>cancellationToken</c>.</summary>
    public string CancelDoc { get; init; } = "Cancels the call.";

    /// <summary>Whether the string forms are generated (else they are hand-written beside their body).</summary>
    public bool Generated => SyncBody is not null;

    /// <summary>The <c>cref</c> of a grid call's form, sync or async.</summary>
    public string GridCref(bool async)
    {
        IEnumerable<string> types = Before.Concat(Middle).Concat(After).Select(p => p.CrefType);
        if (async)
            types = types.Append("CancellationToken");
        return $"{Name}{(async ? "Async" : "")}{TypeParams.Replace('<', '{').Replace('>', '}')}({string.Join(", ", types)})";
    }

    /// <summary>The <c>cref</c> of the string form, sync or async.</summary>
    public string Cref(bool async)
    {
        IEnumerable<string> types = Before.Select(p => p.CrefType)
            .Append("string")
            .Concat(Middle.Select(p => p.CrefType))
            .Append("object?")
            .Concat(After.Select(p => p.CrefType))
            .Append("TimeSpan?");
        if (async)
            types = types.Append("CancellationToken");
        return $"{Name}{(async ? "Async" : "")}{TypeParams.Replace('<', '{').Replace('>', '}')}({string.Join(", ", types)})";
    }
}

/// <summary>The calls of one generated file.</summary>
/// <param name="File">The file's name under src/Orseis.</param>
/// <param name="Comment">What the file holds, for its header.</param>
/// <param name="Usings">The namespaces its bodies and docs use, beside System.ComponentModel (the guards').</param>
/// <param name="Calls">The calls, in order.</param>
/// <param name="Grid">
/// A <c>GridReader</c> family: a call reads the grid's current result set, so it has no SQL, args nor timeout, no
/// interpolated form and no guard; its <see cref="Call.Before"/>, <see cref="Call.Middle"/> and <see cref="Call.After"/>
/// parameters are all it takes (and a <c>CancellationToken</c>, async).
/// </param>
public sealed record Family(string File, string Comment, string[] Usings, Call[] Calls, bool Grid = false);
