// dotnet run -c Release --project benchmarks/Orseis.ShapeOverhead -- --filter '*'
// dotnet run -c Release --project benchmarks/Orseis.ShapeOverhead -- bytes generated|compiled
//   (bytes a call allocates, the same ids every time, counted by GC.GetAllocatedBytesForCurrentThread: one mode a process)
using BenchmarkDotNet.Running;
using Orseis.ShapeOverhead;

if (args is ["bytes", var mode])
{
    var bench = new ShapeOverhead { Generated = mode == "generated" };
    bench.Prepare();
    Console.WriteLine($"{mode}: {Bytes(bench.OrseisSession)} B one row (session), {Bytes(bench.OrseisOpenPerCall)} B one row " +
        $"(open per call), {Bytes(bench.OrseisSessionTen)} B ten rows (session)");
    bench.Cleanup();
    return;
}

BenchmarkSwitcher.FromAssembly(typeof(ShapeOverhead).Assembly).Run(args);

static long Bytes<T>(Func<T> call)
{
    for (int i = 0; i < 200; i++)
        call();
    long before = GC.GetAllocatedBytesForCurrentThread();
    for (int i = 0; i < 1000; i++)
        call();
    return (GC.GetAllocatedBytesForCurrentThread() - before) / 1000;
}
