namespace Orseis.Execution.Binding;

/// <summary>
/// Names of the public calls' parameters, for errors raised deep inside a call that are about what the caller passed
/// there (an <see cref="ArgumentException"/> names the caller's parameter, not the internal method's).
/// </summary>
internal static class PublicParameters
{
    /// <summary>The arguments object of every query call.</summary>
    public const string Args = "args";
}
