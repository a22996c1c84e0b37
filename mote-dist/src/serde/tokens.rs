//! Newtype-struct names that tell the ETF serializer and deserializer to switch mode for
//! the value inside (the technique `serde_json` uses for its raw values). Other serde
//! formats see an ordinary newtype struct.

/// The value inside is a struct or tuple struct to write as a record.
pub(crate) const RECORD_TOKEN: &str = "$mote_dist::Record";
/// The string inside is a charlist.
pub(crate) const CHARLIST_TOKEN: &str = "$mote_dist::Charlist";
/// The bytes inside are a complete encoded term (no version byte), copied verbatim; on
/// decoding, the term's encoding is handed over as bytes.
pub(crate) const RAW_TOKEN: &str = "$mote_dist::RawTerm";
