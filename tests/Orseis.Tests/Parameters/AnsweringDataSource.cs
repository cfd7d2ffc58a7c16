using System.Collections.Concurrent;
using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Parameters;

/// <summary>
/// A data source over a SQLite file whose commands answer output parameters, which SQLite has not: each output,
/// input-output and return-value parameter is taken off the command while SQLite runs it, then given the value
/// <see cref="Answers"/> holds for its name (as a server's procedure would set it). Also records the parameters of
/// every execution, to inspect the shape Orseis gave them.
/// </summary>
public sealed class AnsweringDataSource(string connectionString) : DbDataSource
{
    public override string ConnectionString => connectionString;

    /// <summary>The value each output parameter gets, by name; the value sent (input-output) times 2 when absent.</summary>
    public ConcurrentDictionary<string, object?> Answers { get; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>The parameters of every execution (name, direction, DbType, size, value sent).</summary>
    public ConcurrentQueue<(string Name, ParameterDirection Direction, DbType DbType, int Size, object? Value)[]> Sent { get; } = new();

    protected override DbConnection CreateDbConnection() => new AnsweringConnection(this, connectionString);

    private sealed class AnsweringConnection(AnsweringDataSource source, string connectionString) : SqliteConnection(connectionString)
    {
        public override SqliteCommand CreateCommand() =>
            new AnsweringCommand(source) { Connection = this, CommandTimeout = DefaultTimeout, Transaction = Transaction };
    }

    /// <summary>SQLite's parameter, which refuses any direction but Input, given one.</summary>
    private sealed class DirectedParameter : SqliteParameter
    {
        private ParameterDirection _direction = ParameterDirection.Input;

        public override ParameterDirection Direction
        {
            get => _direction;
            set => _direction = value;
        }
    }

    private sealed class AnsweringCommand(AnsweringDataSource source) : SqliteCommand
    {
        protected override DbParameter CreateDbParameter() => new DirectedParameter();

        public override SqliteDataReader ExecuteReader(CommandBehavior behavior)
        {
            source.Sent.Enqueue([.. Parameters.Cast<SqliteParameter>().Select(p => (p.ParameterName, p.Direction, p.DbType, p.Size,
                p.Value))]);
            SqliteParameter[] outputs = [.. Parameters.Cast<SqliteParameter>().Where(p => p.Direction != ParameterDirection.Input)];
            foreach (SqliteParameter output in outputs)
                Parameters.Remove(output);
            try
            {
                return base.ExecuteReader(behavior);
            }
            finally
            {
                foreach (SqliteParameter output in outputs)
                {
                    string name = output.ParameterName.TrimStart('@');
                    output.Value = source.Answers.TryGetValue(name, out object? answer)
                        ? answer ?? DBNull.Value
                        : output.Value is int sent ? sent * 2 : DBNull.Value;
                    Parameters.Add(output);
                }
            }
        }
    }
}
