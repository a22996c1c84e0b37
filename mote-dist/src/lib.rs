//! The wire layer of Erlang distribution for mote.
//!
//! A mote node speaks the protocol BEAM nodes speak, so it can join an Erlang or Elixir
//! cluster and mote nodes can cluster with each other. This crate is everything below the
//! process model:
//!
//! - [`etf`]: the External Term Format (streaming decoder and encoder, limits, wire-level
//!   pids/refs/ports, a dynamic [`etf::WireTerm`]);
//! - [`serde`](crate::serde): any `Serialize`/`Deserialize` Rust type to and from ETF,
//!   mapped to Erlang's conventions;
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
