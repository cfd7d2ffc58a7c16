namespace Orseis.Benchmarks.Overhead;

/// <summary>A row of the <c>Posts</c> table: ten columns of the usual types, after Dapper's performance suite.</summary>
public sealed class Post
{
    /// <summary>Primary key.</summary>
    public long Id { get; set; }

    /// <summary>A short string.</summary>
    public string Title { get; set; } = "";

    /// <summary>A longer string.</summary>
    public string Body { get; set; } = "";

    /// <summary>A timestamp.</summary>
    public DateTime CreatedAt { get; set; }

    /// <summary>A nullable timestamp (NULL on every other row).</summary>
    public DateTime? UpdatedAt { get; set; }

    /// <summary>A double.</summary>
    public double Score { get; set; }

    /// <summary>A 32-bit integer.</summary>
    public int Views { get; set; }

    /// <summary>A boolean.</summary>
    public bool IsPublished { get; set; }

    /// <summary>A nullable 64-bit integer (NULL on every third row).</summary>
    public long? AuthorId { get; set; }

    /// <summary>A nullable decimal (NULL on every fifth row).</summary>
    public decimal? Rating { get; set; }
}
