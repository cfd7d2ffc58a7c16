// The linked test files see Orseis' internal namespaces as Orseis.Tests does (its GlobalUsings.cs); only the ones they use.
global using Orseis.Execution.Binding;
