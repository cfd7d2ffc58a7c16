using System.Runtime.InteropServices;

namespace Orseis.InstructionCount;

/// <summary>
/// Callgrind's client requests (valgrind/callgrind.h) from managed code: a few bytes of x86-64 machine code that run
/// valgrind's "special instruction" sequence, which does nothing outside valgrind and, under it, asks callgrind to
/// toggle collection for the calling thread, start instrumenting, or write a named dump. No native library to build.
/// </summary>
internal static unsafe class Callgrind
{
    private const ulong ToolBase = ((ulong)'C' << 24) | ((ulong)'T' << 16);
    private const ulong DumpStatsAt = ToolBase + 3;
    private const ulong ToggleCollect = ToolBase + 2;
    private const ulong StartInstrumentation = ToolBase + 4;

    // mov rax, rdi; xor edx, edx; rol rdi, 3; rol rdi, 13; rol rdi, 61; rol rdi, 51; xchg rbx, rbx; mov rax, rdx; ret
    private static readonly byte[] Code =
    [
        0x48, 0x89, 0xF8, 0x31, 0xD2,
        0x48, 0xC1, 0xC7, 0x03, 0x48, 0xC1, 0xC7, 0x0D, 0x48, 0xC1, 0xC7, 0x3D, 0x48, 0xC1, 0xC7, 0x33,
        0x48, 0x87, 0xDB, 0x48, 0x89, 0xD0, 0xC3,
    ];

    private static readonly delegate* unmanaged<ulong*, ulong> Request = Build();

    /// <summary>Whether requests reach valgrind's machinery at all (x86-64 Linux); elsewhere every request is a no-op.</summary>
    public static bool Supported => Request != null;

    /// <summary>Starts instrumenting (the run was started with <c>--instr-atstart=no</c> so start-up runs fast).</summary>
    public static void StartInstrumenting() => Send(StartInstrumentation, 0);

    /// <summary>Turns collection on or off for the calling thread only.</summary>
    public static void Toggle() => Send(ToggleCollect, 0);

    /// <summary>Writes the counts collected since the last dump to a dump file described by <paramref name="name"/>.</summary>
    public static void Dump(string name)
    {
        IntPtr text = Marshal.StringToCoTaskMemUTF8(name);
        try
        {
            Send(DumpStatsAt, (ulong)text);
        }
        finally
        {
            Marshal.FreeCoTaskMem(text);
        }
    }

    private static void Send(ulong request, ulong argument)
    {
        if (Request == null)
            return;
        ulong* args = stackalloc ulong[6];
        args[0] = request;
        args[1] = argument;
        _ = Request(args);
    }

    private static delegate* unmanaged<ulong*, ulong> Build()
    {
        if (!OperatingSystem.IsLinux() || RuntimeInformation.ProcessArchitecture != Architecture.X64)
            return null;
        const int ProtReadWrite = 3, ProtReadExec = 5, MapPrivateAnonymous = 0x22;
        void* page = Mmap(null, 4096, ProtReadWrite, MapPrivateAnonymous, -1, 0);
        if (page == (void*)-1)
            throw new InvalidOperationException("mmap of one page for the callgrind client request failed");
        Code.CopyTo(new Span<byte>(page, Code.Length));
        if (Mprotect(page, 4096, ProtReadExec) != 0)
            throw new InvalidOperationException("mprotect of the callgrind client request page failed");
        return (delegate* unmanaged<ulong*, ulong>)page;
    }

    [DllImport("libc", EntryPoint = "mmap")]
    private static extern void* Mmap(void* address, nuint length, int protection, int flags, int fd, nint offset);

    [DllImport("libc", EntryPoint = "mprotect")]
    private static extern int Mprotect(void* address, nuint length, int protection);
}
