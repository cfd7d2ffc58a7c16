// dotnet run -c Release --project benchmarks/Orseis.ShapeOverhead -- --filter '*'
using BenchmarkDotNet.Running;

BenchmarkSwitcher.FromAssembly(typeof(Orseis.ShapeOverhead.ShapeOverhead).Assembly).Run(args);
