//! Erlang distribution for mote.
//!
//! A mote node speaks the protocol BEAM nodes speak, so it can join an Erlang or Elixir
//! cluster and mote nodes can cluster with each other. The node:
//!
//! - [`node`]: a named node ([`node::NodeOptions::start`]) whose processes are reached
//!   from other nodes through ordinary `Pid`s, by `{Name, Node}`, and answer `net_adm:ping`;
//! - [`node_table`]: how mote's `ProcessId`s name the nodes of wire pids.
//!
//! The wire layer below it:
//!
//! - [`etf`]: the External Term Format (streaming decoder and encoder, limits, wire-level
//!   pids/refs/ports, a dynamic [`etf::WireTerm`]);
//! - [`serde`]: any `Serialize`/`Deserialize` Rust type to and from ETF, mapped to
//!   Erlang's conventions (mote's pids become real Erlang pids);
//! - [`epmd`], [`handshake`], [`connection`]: the name server (client and server), the
//!   version 6 handshake, the connected phase.
//!
//! The design and the measurements behind it are in `docs/distribution.md`.

#![warn(missing_docs)]

pub mod connection;
pub mod epmd;
pub mod etf;
pub mod handshake;
pub mod node;
pub mod node_table;
pub mod serde;
