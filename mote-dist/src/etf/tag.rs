//! The External Term Format's tag bytes, named as in the OTP documentation
//! ("External Term Format", `erl_ext_dist`).

/// Every encoded term starts with this version byte.
pub const VERSION: u8 = 131;
/// `131, 80, UncompressedSize:32, zlib data`: a zlib-compressed term.
pub const COMPRESSED: u8 = 80;
/// A connected-phase frame without a distribution header ("pass-through").
pub const PASS_THROUGH: u8 = 112;

pub const NEW_FLOAT_EXT: u8 = 70;
pub const BIT_BINARY_EXT: u8 = 77;
pub const ATOM_CACHE_REF: u8 = 82;
pub const NEW_PID_EXT: u8 = 88;
pub const NEW_PORT_EXT: u8 = 89;
pub const NEWER_REFERENCE_EXT: u8 = 90;
pub const SMALL_INTEGER_EXT: u8 = 97;
pub const INTEGER_EXT: u8 = 98;
pub const FLOAT_EXT: u8 = 99;
pub const ATOM_EXT: u8 = 100;
pub const REFERENCE_EXT: u8 = 101;
pub const PORT_EXT: u8 = 102;
pub const PID_EXT: u8 = 103;
pub const SMALL_TUPLE_EXT: u8 = 104;
pub const LARGE_TUPLE_EXT: u8 = 105;
pub const NIL_EXT: u8 = 106;
pub const STRING_EXT: u8 = 107;
pub const LIST_EXT: u8 = 108;
pub const BINARY_EXT: u8 = 109;
pub const SMALL_BIG_EXT: u8 = 110;
pub const LARGE_BIG_EXT: u8 = 111;
pub const NEW_FUN_EXT: u8 = 112;
pub const EXPORT_EXT: u8 = 113;
pub const NEW_REFERENCE_EXT: u8 = 114;
pub const SMALL_ATOM_EXT: u8 = 115;
pub const MAP_EXT: u8 = 116;
pub const FUN_EXT: u8 = 117;
pub const ATOM_UTF8_EXT: u8 = 118;
pub const SMALL_ATOM_UTF8_EXT: u8 = 119;
pub const V4_PORT_EXT: u8 = 120;
pub const LOCAL_EXT: u8 = 121;
