//! Runnable examples for mote: see the `[[example]]` files in this folder.
