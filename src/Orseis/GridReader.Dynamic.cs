namespace Orseis;

// Dapper's non-generic grid reads, whose rows are dynamic: each is its generic form with dynamic as the row type.
public sealed partial class GridReader
{
    /// <summary>Reads the current result set as <see cref="Read{T}()"/> does with <see cref="DynamicRow"/>s as its rows
    /// (<c>Read&lt;dynamic&gt;</c>), and moves to the next.</summary>
    /// <returns>The rows.</returns>
    public List<dynamic> Read() => Read<dynamic>();

    /// <inheritdoc cref="Read()"/>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<List<dynamic>> ReadAsync(CancellationToken cancellationToken = default) => ReadAsync<dynamic>(cancellationToken);

    /// <summary>Reads the current result set as <see cref="ReadSingle{T}()"/> does with <see cref="DynamicRow"/>s as its rows
    /// (<c>ReadSingle&lt;dynamic&gt;</c>), and moves to the next.</summary>
    /// <returns>The row.</returns>
    public dynamic ReadSingle() => ReadSingle<dynamic>();

    /// <inheritdoc cref="ReadSingle()"/>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<dynamic> ReadSingleAsync(CancellationToken cancellationToken = default) => ReadSingleAsync<dynamic>(cancellationToken);

    /// <summary>Reads the current result set as <see cref="ReadSingleOrDefault{T}()"/> does with <see cref="DynamicRow"/>s as its rows
    /// (<c>ReadSingleOrDefault&lt;dynamic&gt;</c>), and moves to the next.</summary>
    /// <returns>The row, or null.</returns>
    public dynamic? ReadSingleOrDefault() => ReadSingleOrDefault<dynamic>();

    /// <inheritdoc cref="ReadSingleOrDefault()"/>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<dynamic?> ReadSingleOrDefaultAsync(CancellationToken cancellationToken = default) =>
        ReadSingleOrDefaultAsync<dynamic>(cancellationToken);

    /// <summary>Reads the current result set as <see cref="ReadFirst{T}()"/> does with <see cref="DynamicRow"/>s as its rows
    /// (<c>ReadFirst&lt;dynamic&gt;</c>), and moves to the next.</summary>
    /// <returns>The row.</returns>
    public dynamic ReadFirst() => ReadFirst<dynamic>();

    /// <inheritdoc cref="ReadFirst()"/>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<dynamic> ReadFirstAsync(CancellationToken cancellationToken = default) => ReadFirstAsync<dynamic>(cancellationToken);

    /// <summary>Reads the current result set as <see cref="ReadFirstOrDefault{T}()"/> does with <see cref="DynamicRow"/>s as its rows
    /// (<c>ReadFirstOrDefault&lt;dynamic&gt;</c>), and moves to the next.</summary>
    /// <returns>The row, or null.</returns>
    public dynamic? ReadFirstOrDefault() => ReadFirstOrDefault<dynamic>();

    /// <inheritdoc cref="ReadFirstOrDefault()"/>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<dynamic?> ReadFirstOrDefaultAsync(CancellationToken cancellationToken = default) =>
        ReadFirstOrDefaultAsync<dynamic>(cancellationToken);

}
