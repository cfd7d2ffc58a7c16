using System.Runtime.CompilerServices;

namespace Orseis.IntegrationTests.Infrastructure;

/// <summary>
/// The test host keeps two thread-pool threads blocked for the whole run (dotnet-stack on the testhost process: vstest's
/// message loop polls its socket in <c>TcpClientExtensions.MessageLoopAsync</c>, and xunit's runner waits on a handle in
/// <c>VsTestRunner.RunTestsInAssembly</c>). When hill climbing trims the pool to two or three threads, that leaves one or
/// none for the tests, and the pool really starves: the runtime adds threads for starvation and Orseis's starvation
/// detector rightly reports it during loads that are healthy in an application. The minimum is raised by those two
/// threads, so the tests run on the pool an application would have.
/// </summary>
internal static class TestHostThreads
{
    /// <summary>Threads the test host holds blocked.</summary>
    public const int HeldByHost = 2;

    [ModuleInitializer]
    internal static void MakeRoomForTheHost()
    {
        ThreadPool.GetMinThreads(out int workers, out int io);
        ThreadPool.SetMinThreads(workers + HeldByHost, io);
    }
}
