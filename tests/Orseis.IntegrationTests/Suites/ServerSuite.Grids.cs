namespace Orseis.IntegrationTests.Suites;

public abstract partial class ServerSuite
{
    protected async Task Several_result_sets_of_one_command_are_read_in_order_in_every_mode()
    {
        Seed();
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        using Session session = await perCall.OpenSessionAsync();
        string sql = Text(
            $"select id, name, amount, created from {Table} where id <= @max order by id; " +
            $"select count(*) from {Table}; " +
            $"select name from {Table} where id = @id");
        string count = Text($"select count(*) from {Table}");

        foreach (SqlRunner runner in new SqlRunner[] { perCall, reuse, session })
        {
            using (GridReader grids = runner.QueryMultiple(sql, new { max = 3, id = 7 }))
            {
                Assert.Equal([1, 2, 3], grids.Read<Item>().Select(i => i.Id));
                Assert.Equal(20L, grids.ReadSingle<long>());
                Assert.Equal("item 7", grids.ReadFirst<string>());
                Assert.True(grids.IsConsumed);
            }

            using var cancel = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            await using (GridReader grids = await runner.QueryMultipleAsync(sql, new { max = 2, id = 1 }, cancellationToken: cancel.Token))
            {
                Assert.Equal([1, 2], (await grids.ReadAsync<Item>(cancel.Token)).Select(i => i.Id));
                Assert.Equal(20L, await grids.ReadSingleAsync<long>(cancel.Token));
                Assert.Equal("item 1", await grids.ReadFirstAsync<string>(cancel.Token));
            }

            // Disposed readers gave their connection back: the runner's next call gets one.
            Assert.Equal(20L, await runner.ScalarAsync<long>(count, cancellationToken: cancel.Token));
        }

        // An open grid reader holds the session's one connection, like a stream: a call in between is refused, not interleaved.
        using (GridReader open = session.QueryMultiple(sql, new { max = 1, id = 1 }))
        {
            Assert.Throws<SessionBusyException>(() => session.Scalar<long>(count));
            Assert.Single(open.Read<Item>());
        }

        Assert.Equal(20L, session.Scalar<long>(count));
        Assert.Equal(1, perCall.GetPoolReport().InUse); // the session's connection; every grid gave its own back
    }
}
