using Microsoft.Data.Sqlite;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// The arguments' print the binder takes for the repeated-statement detector (<see cref="ParameterBinder.BindPrinted"/>):
/// the same hash and count as <see cref="ArgumentHash.Of"/> reads from the bound command, whatever the values, so a run
/// whose print was taken and one whose command was read count as the same arguments; and no print where the binder
/// cannot take one (a list expanded, a dictionary), so the end reads the command as before.
/// </summary>
public sealed class ArgumentPrintTests
{
    private enum Size : short
    {
        Large = 3,
    }

    private const string Sql =
        "select 1 where @Id = @Id and @Name = @Name and @Missing is null and @Size = 3 and @Day = @Day and @Amount = @Amount";

    /// <summary>
    /// Binds <paramref name="args"/> until the binder takes a print (it does for the argument object type it bound last,
    /// which a test running beside this one may change between two binds), then checks it against the command.
    /// </summary>
    private static void PrintMatchesTheCommand(string sql, object args, int expectedCount)
    {
        int taken = 0;
        for (int attempt = 0; attempt < 50 && taken < 3; attempt++)
        {
            using var command = new SqliteCommand();
            string text = ParameterBinder.BindPrinted(command, sql, args, null, out ArgumentPrint print);
            Assert.Equal(sql, text);
            if (!print.Taken)
                continue;
            taken++;
            int read = ArgumentHash.Of(command, out int count);
            Assert.Equal(expectedCount, count);
            Assert.Equal(count, print.Count);
            Assert.Equal(read, (int)print.Hash);
        }

        Assert.True(taken > 0, "the binder never took a print of the last argument type bound");
    }

    [Fact]
    public void The_binders_print_is_the_hash_the_command_gives_for_every_kind_of_value()
    {
        object args = new
        {
            Id = 42, Name = "ada", Missing = (string?)null, Size = Size.Large, Day = new DateOnly(2026, 11, 30), Amount = 2.5m,
        };
        PrintMatchesTheCommand(Sql, args, expectedCount: 6);
    }

    [Fact]
    public void Other_values_give_another_print_and_the_same_values_the_same()
    {
        static ArgumentPrint Print(object args)
        {
            for (int attempt = 0; ; attempt++)
            {
                using var command = new SqliteCommand();
                ParameterBinder.BindPrinted(command, "select @Id", args, null, out ArgumentPrint print);
                if (print.Taken || attempt == 50)
                    return print;
            }
        }

        ArgumentPrint three = Print(new { Id = 3 });
        ArgumentPrint threeAgain = Print(new { Id = 3 });
        ArgumentPrint four = Print(new { Id = 4 });
        Assert.True(three.Taken && threeAgain.Taken && four.Taken);
        Assert.Equal(three.Hash, threeAgain.Hash);
        Assert.NotEqual(three.Hash, four.Hash);
    }

    [Fact]
    public void A_member_the_sql_does_not_use_is_neither_bound_nor_hashed()
    {
        PrintMatchesTheCommand("select @Id", new { Id = 7, Unused = "x" }, expectedCount: 1);
    }

    [Fact]
    public void No_print_is_taken_where_a_list_is_expanded_and_the_command_then_gives_the_hash()
    {
        object args = new { Ids = new[] { 1, 2, 3 } };
        for (int attempt = 0; attempt < 5; attempt++)
        {
            using var command = new SqliteCommand();
            ParameterBinder.BindPrinted(command, "select 1 where id in @Ids", args, null, out ArgumentPrint print);
            Assert.False(print.Taken);
            Assert.Equal(-1, print.Count);
            ArgumentHash.Of(command, out int count);
            Assert.Equal(3, count);
        }
    }

    [Fact]
    public void No_print_is_taken_for_a_dictionary_of_arguments()
    {
        using var command = new SqliteCommand();
        ParameterBinder.BindPrinted(command, "select @id", new Dictionary<string, object?> { ["id"] = 1 }, null, out ArgumentPrint print);
        Assert.False(print.Taken);
        Assert.Single(command.Parameters);
    }
}
