namespace Orseis.ColdStart;

/// <summary>One build of a probe: its project, the publish properties that make it, and the binary it gives.</summary>
/// <param name="Name">The variant's name in the results.</param>
/// <param name="Project">The probe's project, under benchmarks/.</param>
/// <param name="Properties">What <c>dotnet publish</c> is given besides the defaults.</param>
/// <param name="Native">Whether the publish gives a native binary.</param>
/// <param name="Feed">Where the probe's Orseis comes from: null for the repository's project (a project reference), else the
/// package as <c>dotnet pack</c> makes it (<see cref="Feed"/>), restored as a user restores it.</param>
internal sealed record Variant(string Name, string Project, string Properties, bool Native, Feed? Feed = null)
{
    /// <summary>The probes as the results file names them, in the order each round runs them.</summary>
    public static IReadOnlyList<Variant> All { get; } =
    [
        new("orseis-jit", "Orseis.ColdStart.OrseisProbe", "", false, Feed.Precompiled),
        new("dapper-jit", "Orseis.ColdStart.DapperProbe", "", false),
        new("orseis-jit-il", "Orseis.ColdStart.OrseisProbe", "", false, Feed.ILOnly),
        new("dapper.aot-jit", "Orseis.ColdStart.DapperProbe", "-p:UseDapperAot=true", false),
        new("orseis-jit-noshapes", "Orseis.ColdStart.OrseisProbe", "-p:DisableShapes=true", false),
        new("orseis-jit-r2r", "Orseis.ColdStart.OrseisProbe", "-r linux-x64 --self-contained false -p:PublishReadyToRun=true", false),
        new("dapper-jit-r2r", "Orseis.ColdStart.DapperProbe", "-r linux-x64 --self-contained false -p:PublishReadyToRun=true", false),
        new("orseis-aot", "Orseis.ColdStart.OrseisProbe", "-r linux-x64 -p:PublishAot=true", true, Feed.Precompiled),
        new("dapper.aot-aot", "Orseis.ColdStart.DapperProbe", "-r linux-x64 -p:UseDapperAot=true -p:PublishAot=true", true),
    ];

    /// <summary>The folder the variant is published to, under the work folder.</summary>
    public string Output(string work) => Path.Combine(work, Name);

    /// <summary>The published program.</summary>
    public string Binary(string work) => Path.Combine(Output(work), Project);
}

/// <summary>A package of Orseis packed for the probes: the one <c>dotnet pack</c> makes, or the IL alone.</summary>
/// <param name="Name">The folder it is packed into, under the work folder.</param>
/// <param name="PackProperties">What <c>dotnet pack</c> is given besides the defaults.</param>
internal sealed record Feed(string Name, string PackProperties)
{
    /// <summary>What a package user gets: Orseis.dll with ReadyToRun code beside its IL for linux-x64 (this machine: the image the
    /// probe loads), linux-arm64, win-x64, osx-arm64 and osx-x64.</summary>
    public static Feed Precompiled { get; } = new("feed-precompiled", "");

    /// <summary>The same package with the IL alone (<c>-p:OrseisPackReadyToRun=false</c>): the JIT compiles all of Orseis.</summary>
    public static Feed ILOnly { get; } = new("feed-il", "-p:OrseisPackReadyToRun=false");

    /// <summary>The folder of the feed.</summary>
    public string Folder(string work) => Path.Combine(work, Name);
}
