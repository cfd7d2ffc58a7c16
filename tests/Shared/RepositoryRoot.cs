namespace Orseis.Testing;

/// <summary>The repository's root folder (the one holding Orseis.sln), found from the test assembly's folder.</summary>
internal static class RepositoryRoot
{
    public static string Find()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Orseis.sln")))
                return dir.FullName;
        }

        throw new InvalidOperationException("Orseis.sln not found above " + AppContext.BaseDirectory);
    }
}
