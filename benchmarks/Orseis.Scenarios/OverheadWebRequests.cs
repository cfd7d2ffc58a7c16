using System.Diagnostics;
using System.Globalization;

namespace Orseis.Scenarios;

/// <summary>
/// The <c>web</c> shape of an overhead side (<c>overhead --shape web</c>): blocks of requests, each an async unit of work
/// of four different statements with arguments (a row by id, ten rows by range, an update, a count) over a table of 100
/// rows of the child's own, either inside a <see cref="ConnectionScope"/> (what <c>UseOrseisScopes</c> gives each
/// ASP.NET Core request) or opening a pooled connection per call. Each request is its own async flow, as ASP.NET Core's
/// requests are, and its rows differ from the previous request's. On MariaDB the table is an in-memory one
/// (<c>engine=memory</c>): an InnoDB update's flush to disk at commit would add milliseconds of a disk's noise to every
/// request, which is the server's time and not what is compared.
/// </summary>
internal static class OverheadWebRequests
{
    private const int Rows = 100;

    /// <summary>Serves <c>MODE REQUESTS</c> blocks (mode <c>scope</c> or <c>per-call</c>) until stdin closes, answering
    /// <c>wallNs cpuNs bytes userNs</c> per block, as <see cref="OverheadChild"/> does. Bytes are the process's (an async
    /// request's continuations run on pool threads); CPU times are the calling thread's.</summary>
    public static int Serve(Database db, bool inMemoryTable)
    {
        string table = "overhead_items_" + Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
        var statements = new Statements(table);
        string drop = "drop table if exists " + table;
        string create = "create table " + table + " (id int primary key, name varchar(40) not null, author int not null, views int not null)" + (inMemoryTable ? " engine=memory" : "");
        string insert = "insert into " + table + " (id, name, author, views) values (@Id, @Name, @Author, 0)";
        // Set up in a task of its own: a call made here on the main flow would give that flow's state to every request
        // started from it (an AsyncLocal flows into the async methods it starts), making them all one unit of work.
        Task.Run(() =>
        {
            db.Execute(drop);
            db.Execute(create);
            db.Execute(insert, Enumerable.Range(1, Rows).Select(id => new { Id = id, Name = "item " + id, Author = id % 10 }).ToList());
        }).GetAwaiter().GetResult();
        try
        {
            long request = 0;
            for (int i = 0; i < OverheadChild.Warmup / 4; i++)
            {
                RunBlockAsync(db, statements, scoped: true, 1, ref request);
                RunBlockAsync(db, statements, scoped: false, 1, ref request);
            }

            Console.WriteLine("ready");
            while (Console.ReadLine() is { } line)
            {
                string[] parts = line.Split(' ');
                bool scoped = parts[0] == "scope";
                int requests = int.Parse(parts[1], CultureInfo.InvariantCulture);
                long bytes = GC.GetTotalAllocatedBytes(precise: true);
                long cpu = ThreadCpu.Nanoseconds();
                long user = ThreadCpu.UserNanoseconds();
                long start = Stopwatch.GetTimestamp();
                RunBlockAsync(db, statements, scoped, requests, ref request);
                long wall = (long)Stopwatch.GetElapsedTime(start).TotalNanoseconds;
                cpu = ThreadCpu.Nanoseconds() - cpu;
                user = ThreadCpu.UserNanoseconds() - user;
                bytes = GC.GetTotalAllocatedBytes(precise: true) - bytes;
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{wall} {cpu} {bytes} {user}"));
            }
        }
        finally
        {
            Task.Run(() => db.Execute(drop)).GetAwaiter().GetResult();
        }

        return 0;
    }

    /// <summary>Runs <paramref name="requests"/> requests one after another, waiting for each on this thread.</summary>
    private static void RunBlockAsync(Database db, Statements statements, bool scoped, int requests, ref long request)
    {
        for (int i = 0; i < requests; i++)
        {
            request++;
            GC.KeepAlive((scoped ? ScopedAsync(db, statements, request) : RequestAsync(db, statements, request)).GetAwaiter().GetResult());
        }
    }

    private static async Task<long> ScopedAsync(Database db, Statements statements, long request)
    {
        await using (db.BeginScope())
            return await RequestAsync(db, statements, request);
    }

    private static async Task<long> RequestAsync(Database db, Statements s, long request)
    {
        int id = (int)(request % Rows) + 1;
        int from = (int)(request * 7 % (Rows - 10)) + 1;
        Item item = await db.QuerySingleAsync<Item>(s.ById, new { Id = id });
        List<Item> page = await db.QueryAsync<Item>(s.Range, new { From = from, To = from + 9 });
        int updated = await db.ExecuteAsync(s.Touch, new { Id = id });
        long count = await db.ScalarAsync<long>(s.ByAuthor, new { Author = (int)(request % 10) });
        return item.Id + page.Count + updated + count;
    }

    /// <summary>A row of the request's table.</summary>
    internal sealed class Item
    {
        public int Id { get; set; }

        public string Name { get; set; } = "";

        public int Author { get; set; }

        public int Views { get; set; }
    }

    /// <summary>The request's statement texts, made once (the same string each call, as a call site's literal is).</summary>
    private sealed class Statements(string table)
    {
        public string ById { get; } = $"select id, name, author, views from {table} where id = @Id";

        public string Range { get; } = $"select id, name, author, views from {table} where id between @From and @To";

        public string Touch { get; } = $"update {table} set views = views + 1 where id = @Id";

        public string ByAuthor { get; } = $"select count(*) from {table} where author = @Author";
    }
}
