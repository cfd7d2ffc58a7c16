namespace Orseis.ShapeOverhead;

/// <summary>OrmOverhead's row (the shape of Dapper's performance suite): ten columns, three of them nullable.</summary>
public sealed class Post
{
    public long Id { get; set; }

    public string Title { get; set; } = "";

    public string Body { get; set; } = "";

    public DateTime CreatedAt { get; set; }

    public DateTime? UpdatedAt { get; set; }

    public double Score { get; set; }

    public int Views { get; set; }

    public bool IsPublished { get; set; }

    public long? AuthorId { get; set; }

    public decimal? Rating { get; set; }
}
