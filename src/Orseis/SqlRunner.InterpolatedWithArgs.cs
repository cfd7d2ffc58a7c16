using System.ComponentModel;

namespace Orseis;

// Guards against the one way an interpolated string could splice values into SQL: passed together with an args
// object, it would bind to the (string sql, object? args) overloads, where the compiler formats the holes into the
// text. These overloads catch that call at compile time (error ORSEIS001) instead.
public abstract partial class SqlRunner
{
    private const string InterpolatedWithArgs =
        "An interpolated string passed with an args object would have its holes spliced into the SQL text. " +
        "Put each value in a hole (each hole becomes a parameter) and drop the args object, or pass a plain string with @name parameters and the args object.";

    private const string InterpolatedWithArgsId = "ORSEIS001";

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="Scalar{T}(string, object?, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public T? Scalar<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="ScalarAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<T?> ScalarAsync<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="Query{T}(string, object?, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public List<T> Query<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QueryAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<List<T>> QueryAsync<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QuerySingle{T}(string, object?, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public T QuerySingle<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QuerySingleAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<T> QuerySingleAsync<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QuerySingleOrDefault{T}(string, object?, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public T? QuerySingleOrDefault<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QuerySingleOrDefaultAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<T?> QuerySingleOrDefaultAsync<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QueryFirst{T}(string, object?, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public T QueryFirst<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QueryFirstAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<T> QueryFirstAsync<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QueryFirstOrDefault{T}(string, object?, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public T? QueryFirstOrDefault<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QueryFirstOrDefaultAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<T?> QueryFirstOrDefaultAsync<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="Stream{T}(string, object?, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public IEnumerable<T> Stream<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="StreamAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public IAsyncEnumerable<T> StreamAsync<T>(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="Execute(string, object?, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public int Execute(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) => throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="ExecuteAsync(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<int> ExecuteAsync(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException(InterpolatedWithArgs);
}
