namespace Orseis;

// The caller's word on whether a call only reads (OrseisOptions.Retry): ReadStatement reads it before the call's text.
public sealed partial class ParameterBag
{
    /// <summary>
    /// The caller's word on whether the call only reads, for retries (<see cref="OrseisOptions.Retry"/>): <see langword="true"/>
    /// lets a buffered call whose connection broke outside a transaction run again although its text does not tell a read
    /// (a procedure that only reads, a text with a backslash); <see langword="false"/> never runs it again (a
    /// <c>SELECT</c> that calls a function that writes). <see langword="null"/>, the default, leaves it to the text. A
    /// stream and a call inside a transaction are never run again, whatever the word.
    /// </summary>
    public bool? OnlyReads { get; set; }
}
