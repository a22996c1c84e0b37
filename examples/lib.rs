//! Runnable examples for mote, one concept each: `cargo run -p examples --example NAME`.
