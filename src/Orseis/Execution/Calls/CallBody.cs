using System.Data.Common;

namespace Orseis.Execution.Calls;

/// <summary>What a buffered call does with its command: read a list, a row, a scalar, or execute.</summary>
/// <param name="command">The command, bound and ready.</param>
/// <param name="handlers">The database's type handlers, for the mapper; null when it has none.</param>
/// <param name="async">Whether to run asynchronously.</param>
/// <param name="cancellationToken">Cancels the call.</param>
internal delegate ValueTask<TResult> CallBody<TResult>(
    DbCommand command, Mapping.TypeHandlerSet? handlers, bool async, CancellationToken cancellationToken);
