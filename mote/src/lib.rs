//! mote
