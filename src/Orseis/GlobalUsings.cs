// The folders under Execution/ are namespaces (Orseis.Execution.Calls, ...): every file of the assembly sees them all, as
// it saw the one Orseis.Execution before, so a move between folders changes no using line.
global using Orseis.Execution;
global using Orseis.Execution.Binding;
global using Orseis.Execution.Calls;
global using Orseis.Execution.Modes;
global using Orseis.Execution.Providers;
global using Orseis.Execution.Scopes;
global using Orseis.Execution.Sql;
