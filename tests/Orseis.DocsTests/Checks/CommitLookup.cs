using System.Diagnostics;

namespace Orseis.DocsTests.Checks;

/// <summary>Which hex tokens name commits of this clone (<c>git cat-file --batch-check</c>), to say so in a failure;
/// without git every answer is no. The hash rule itself does not depend on it (see
/// <see cref="UserPageRules.CommitHashes"/>).</summary>
internal sealed class CommitLookup
{
    private readonly Func<IReadOnlyList<string>, IReadOnlySet<string>> _commits;

    private CommitLookup(Func<IReadOnlyList<string>, IReadOnlySet<string>> commits) => _commits = commits;

    /// <summary>Knows no commit.</summary>
    public static CommitLookup None { get; } = new(_ => new HashSet<string>());

    /// <summary>Only these count as commits (the checker's own tests).</summary>
    public static CommitLookup Of(params string[] commits) =>
        new(tokens => tokens.Where(t => commits.Any(c => c.StartsWith(t, StringComparison.Ordinal))).ToHashSet());

    /// <summary>The repository's git, or <see cref="None"/> when git or the repository is missing.</summary>
    public static CommitLookup ForRepository(string root) =>
        Git(root, ["rev-parse", "--git-dir"], input: null) is null ? None : new CommitLookup(tokens => InGit(root, tokens));

    /// <summary>The tokens among <paramref name="tokens"/> that name commits.</summary>
    public IReadOnlySet<string> Commits(IReadOnlyList<string> tokens) =>
        tokens.Count == 0 ? new HashSet<string>() : _commits(tokens);

    private static HashSet<string> InGit(string root, IReadOnlyList<string> tokens)
    {
        string distinct = string.Join('\n', tokens.Distinct().Select(t => t + "^{commit}")) + "\n";
        string output = Git(root, ["cat-file", "--batch-check"], distinct)
            ?? throw new InvalidOperationException("git cat-file --batch-check failed in " + root);
        var commits = new HashSet<string>(StringComparer.Ordinal);
        foreach (string line in output.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            // "<sha> commit <size>" for a commit; "<input> missing" or "<input> ambiguous" otherwise (a short hash
            // shared by several objects is still a hash).
            string[] fields = line.Split(' ');
            if (fields is [_, "commit", _])
                commits.UnionWith(tokens.Where(t => fields[0].StartsWith(t, StringComparison.Ordinal)));
            else if (fields is [var input, "ambiguous"])
                commits.Add(input.Replace("^{commit}", "", StringComparison.Ordinal));
        }

        return commits;
    }

    private static string? Git(string root, string[] arguments, string? input)
    {
        var start = new ProcessStartInfo("git")
        {
            WorkingDirectory = root,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = input is not null,
            UseShellExecute = false,
        };
        foreach (string argument in arguments)
            start.ArgumentList.Add(argument);
        try
        {
            using Process git = Process.Start(start)!;
            if (input is not null)
            {
                git.StandardInput.Write(input);
                git.StandardInput.Close();
            }

            Task<string> error = git.StandardError.ReadToEndAsync();
            string output = git.StandardOutput.ReadToEnd();
            git.WaitForExit();
            _ = error.Result;
            return git.ExitCode == 0 ? output : null;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null; // no git on the PATH
        }
    }
}
