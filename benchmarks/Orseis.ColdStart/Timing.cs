namespace Orseis.ColdStart;

/// <summary>One run of one probe, timed from the moment the process was started.</summary>
/// <param name="FirstMs">To the first answer on its standard output (the README example's row).</param>
/// <param name="LastMs">To the last query's answer (the "done" line).</param>
/// <param name="ExitMs">To the process' exit.</param>
/// <param name="CpuMs">The process' CPU time, user and system, over its whole life.</param>
internal sealed record Timing(double FirstMs, double LastMs, double ExitMs, double CpuMs);
