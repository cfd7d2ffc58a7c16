namespace Orseis.Scenarios;

/// <summary>The suite cannot run here (no server configured, say): a message for the user, not a scenario failure.</summary>
public sealed class ScenarioSetupException(string message) : Exception(message);
