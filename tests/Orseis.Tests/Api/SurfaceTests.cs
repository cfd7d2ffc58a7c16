using Orseis.SurfaceGen;
using Orseis.Testing;

namespace Orseis.Tests.Api;

/// <summary>
/// SqlRunner's and GridReader's public calls are generated from one table (tools/Orseis.SurfaceGen) into checked-in files: these tests
/// fail when a file differs from what the table makes (someone edited it, or changed the table without regenerating).
/// </summary>
public sealed class SurfaceTests
{
    public static TheoryData<string> Files() => [.. Surface.AllFamilies.Select(f => f.File)];

    [Theory]
    [MemberData(nameof(Files))]
    public void The_checked_in_file_is_what_the_table_makes(string file)
    {
        Family family = Surface.AllFamilies.Single(f => f.File == file);
        string path = Path.Combine(RepositoryRoot.Find(), "src", "Orseis", file);

        Assert.True(
            File.Exists(path) && File.ReadAllText(path) == Emitter.Emit(family),
            $"{path} is not what tools/Orseis.SurfaceGen makes: run `dotnet run --project tools/Orseis.SurfaceGen` and commit the result.");
    }

    [Fact]
    public void No_other_file_claims_to_be_generated()
    {
        // A family removed from the table must not leave its old file behind, compiling still.
        string[] expected = [.. Surface.AllFamilies.Select(f => f.File).Order(StringComparer.Ordinal)];
        string folder = Path.Combine(RepositoryRoot.Find(), "src", "Orseis");
        string[] present = [.. Directory.GetFiles(folder, "SqlRunner.Surface.*.cs")
            .Concat(Directory.GetFiles(folder, "GridReader.Surface.*.cs"))
            .Select(Path.GetFileName).Order(StringComparer.Ordinal)!];

        Assert.Equal(expected, present);
    }

    [Fact]
    public void Every_call_gets_an_interpolated_form_and_a_guard_sync_and_async()
    {
        // Four members per call beside its string forms: the table is the count, the assembly is the proof.
        int calls = Surface.Families.Sum(f => f.Calls.Length);
        int interpolated = typeof(SqlRunner).GetMethods()
            .Count(m => m.GetParameters().Any(p => p.ParameterType == typeof(SqlInterpolatedStringHandler)));

        Assert.Equal(calls * 4, interpolated);
        Assert.Equal(calls * 2, Surface.GuardCount);
    }

    [Fact]
    public void Every_public_grid_read_but_the_unbuffered_ones_comes_from_the_table()
    {
        // GridReader's hand-written public members: Read<T>(bool), ReadUnbufferedAsync<T>(), IsConsumed, Dispose, DisposeAsync.
        int generated = Surface.GridFamilies.Sum(f => f.Calls.Length) * 2;
        int reads = typeof(GridReader).GetMethods()
            .Count(m => m.DeclaringType == typeof(GridReader) && m.Name.StartsWith("Read", StringComparison.Ordinal));

        Assert.Equal(reads - 2, generated);
    }
}
