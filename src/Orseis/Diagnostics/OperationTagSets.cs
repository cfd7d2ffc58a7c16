using System.Collections.Concurrent;
using System.Data;

namespace Orseis.Diagnostics;

/// <summary>
/// The attributes of one pool's <c>db.client.operation.duration</c> per operation, made once and kept, so a measured
/// command allocates nothing: the pool's own, plus <c>db.operation.name</c> (<see cref="SqlOperation"/>) and, for a
/// single-table statement, <c>db.query.summary</c> (<c>SELECT orders</c>, <see cref="SqlCollection"/>); a procedure call's
/// <c>db.stored_procedure.name</c>. Cardinality is bounded: at most <see cref="MaxSets"/> summaries and procedures per
/// pool; beyond them a statement keeps only its operation name. Never the text itself.
/// </summary>
internal sealed class OperationTagSets
{
    /// <summary>The most distinct summaries and procedures one pool publishes.</summary>
    public const int MaxSets = 200;

    private readonly KeyValuePair<string, object?>[] _pool;
    private readonly KeyValuePair<string, object?>[]?[] _byOperation = new KeyValuePair<string, object?>[SqlOperation.Names.Length][];
    private readonly ConcurrentDictionary<string, KeyValuePair<string, object?>[]> _bySummary = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, KeyValuePair<string, object?>[]> _byProcedure = new(StringComparer.Ordinal);

    // The attributes of each statement text seen, by the string instance (a call site's SQL is the same literal call after
    // call), so a statement is read for its operation and table once, not on every measured call. Bounded: SQL built anew
    // for each call never repeats an instance, and past MaxTexts is read each time instead.
    private readonly ConcurrentDictionary<string, KeyValuePair<string, object?>[]> _byText = new(ReferenceEqualityComparer.Instance);

    /// <summary>The most statement texts one pool remembers the attributes of.</summary>
    public const int MaxTexts = 1000;

    public OperationTagSets(KeyValuePair<string, object?>[] pool) => _pool = pool;

    /// <summary>
    /// The attributes of a command running <paramref name="sql"/> with <paramref name="args"/>; the pool's alone when unknown.
    /// </summary>
    public KeyValuePair<string, object?>[] For(string? sql, object? args)
    {
        if (sql is null)
            return _pool;
        if (args is ParameterBag { CommandType: CommandType.StoredProcedure })
            return Procedure(sql);
        if (_byText.TryGetValue(sql, out KeyValuePair<string, object?>[]? known))
            return known;
        KeyValuePair<string, object?>[] tags = Read(sql);
        if (_byText.Count < MaxTexts)
            _byText.TryAdd(sql, tags);
        return tags;
    }

    /// <summary>The <c>db.query.summary</c> of <paramref name="sql"/>, or null (for a span, as the meter gives it).</summary>
    public string? SummaryOf(string sql) =>
        For(sql, null) is [.., { Key: "db.query.summary", Value: string summary }] ? summary : null;

    /// <summary>The attributes of a statement that is no procedure call, read from its text.</summary>
    private KeyValuePair<string, object?>[] Read(string sql)
    {
        int operation = SqlOperation.Find(sql);
        if (operation < 0)
            return _pool;
        return Summary(sql, operation) ?? (_byOperation[operation] ??= [.. _pool, new("db.operation.name", SqlOperation.Names[operation])]);
    }

    private KeyValuePair<string, object?>[] Procedure(string name)
    {
        if (_byProcedure.TryGetValue(name, out KeyValuePair<string, object?>[]? tags))
            return tags;
        return Full ? _pool : _byProcedure.GetOrAdd(name, static (n, pool) => [.. pool, new("db.stored_procedure.name", n)], _pool);
    }

    private KeyValuePair<string, object?>[]? Summary(string sql, int operation)
    {
        string name = SqlOperation.Names[operation];
        ReadOnlySpan<char> table = SqlCollection.Find(sql, name);
        if (table.IsEmpty)
            return null;
        Span<char> key = stackalloc char[name.Length + 1 + table.Length];
        name.AsSpan().CopyTo(key);
        key[name.Length] = ' ';
        table.CopyTo(key[(name.Length + 1)..]);
        if (_bySummary.GetAlternateLookup<ReadOnlySpan<char>>().TryGetValue(key, out KeyValuePair<string, object?>[]? tags))
            return tags;
        if (Full)
            return null;
        string summary = new(key);
        return _bySummary.GetOrAdd(
            summary,
            static (s, state) => [.. state.pool, new("db.operation.name", state.name), new("db.query.summary", s)],
            (pool: _pool, name));
    }

    /// <summary>How many statement texts this pool remembers the attributes of (at most <see cref="MaxTexts"/>).</summary>
    internal int Texts => _byText.Count;

    private bool Full => _bySummary.Count + _byProcedure.Count >= MaxSets;
}
