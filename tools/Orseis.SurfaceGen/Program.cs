using Orseis.SurfaceGen;

// Writes every generated file of the call surface into src/Orseis of the repository holding this tool (or of the folder
// given as the first argument). "--check" writes nothing and fails when a file differs from what the table makes.
bool check = args.Contains("--check");
string root = args.FirstOrDefault(a => !a.StartsWith("--", StringComparison.Ordinal)) ?? FindRoot();
int stale = 0;
foreach (Family family in Surface.AllFamilies)
{
    string path = Path.Combine(root, "src", "Orseis", family.File);
    string text = Emitter.Emit(family);
    if (File.Exists(path) && File.ReadAllText(path) == text)
        continue;
    stale++;
    Console.WriteLine((check ? "stale: " : "wrote: ") + path);
    if (!check)
        File.WriteAllText(path, text);
}

Console.WriteLine($"{Surface.AllFamilies.Length} files, {Surface.GuardCount} ORSEIS001 guards, {stale} {(check ? "stale" : "written")}");
return check && stale > 0 ? 1 : 0;

static string FindRoot()
{
    for (DirectoryInfo? dir = new(Directory.GetCurrentDirectory()); dir is not null; dir = dir.Parent)
    {
        if (File.Exists(Path.Combine(dir.FullName, "Orseis.sln")))
            return dir.FullName;
    }

    throw new InvalidOperationException("Orseis.sln not found above " + Directory.GetCurrentDirectory() + "; pass the repository folder.");
}
