namespace Orseis.Execution.Calls;

/// <summary>What the single-row query forms expect from the result.</summary>
internal enum RowLimit
{
    First,
    FirstOrDefault,
    Single,
    SingleOrDefault,
}
