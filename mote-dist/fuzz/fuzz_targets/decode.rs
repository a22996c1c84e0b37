//! Any bytes through every decoding entry point: each must return a value or an error,
//! never panic, hang or allocate without bound.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use mote_dist::connection::DistMessage;
use mote_dist::etf::{DecodeLimits, Decoder, WireTerm};

fuzz_target!(|data: &[u8]| {
    let limits = DecodeLimits { max_size: 1 << 20, ..DecodeLimits::default() };
    let _ = WireTerm::decode_with(data, &limits);
    let _ = mote_dist::serde::from_bytes::<WireTerm>(data);
    let _ = mote_dist::serde::from_slice::<(String, Vec<Option<i64>>, bool)>(data);
    if let Ok(mut d) = Decoder::with_limits(data, limits) {
        let _ = d.skip();
    }
    if let Ok(msg) = DistMessage::parse(Bytes::copy_from_slice(data), &limits) {
        let _ = msg.payload_term(&limits);
    }
});
