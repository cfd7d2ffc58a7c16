namespace Orseis.ColdStart;

/// <summary>One build of a probe: its project, the publish properties that make it, and the binary it gives.</summary>
internal sealed record Variant(string Name, string Project, string Properties, bool Native)
{
    /// <summary>The probes as the results file names them, in the order each round runs them.</summary>
    public static IReadOnlyList<Variant> All { get; } =
    [
        new("orseis-jit", "Orseis.ColdStart.OrseisProbe", "", false),
        new("dapper-jit", "Orseis.ColdStart.DapperProbe", "", false),
        new("dapper.aot-jit", "Orseis.ColdStart.DapperProbe", "-p:UseDapperAot=true", false),
        new("orseis-jit-noshapes", "Orseis.ColdStart.OrseisProbe", "-p:DisableShapes=true", false),
        new("orseis-jit-r2r", "Orseis.ColdStart.OrseisProbe", "-r linux-x64 --self-contained false -p:PublishReadyToRun=true", false),
        new("dapper-jit-r2r", "Orseis.ColdStart.DapperProbe", "-r linux-x64 --self-contained false -p:PublishReadyToRun=true", false),
        new("orseis-aot", "Orseis.ColdStart.OrseisProbe", "-r linux-x64 -p:PublishAot=true", true),
        new("dapper.aot-aot", "Orseis.ColdStart.DapperProbe", "-r linux-x64 -p:UseDapperAot=true -p:PublishAot=true", true),
    ];

    /// <summary>The folder the variant is published to, under the work folder.</summary>
    public string Output(string work) => Path.Combine(work, Name);

    /// <summary>The published program.</summary>
    public string Binary(string work) => Path.Combine(Output(work), Project);
}
