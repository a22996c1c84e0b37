//! Terms compressed by `term_to_binary(T, [compressed])`: `131, 80, Size:32, zlib data`.

use std::io::Read;

use flate2::read::ZlibDecoder;

use super::error::DecodeError;
use super::limits::DecodeLimits;
use super::tag;

/// If `input` is a compressed term, inflates it and returns the plain encoding (starting
/// with the version byte); otherwise `None`.
///
/// The announced uncompressed size is checked against `limits.max_size` before inflating,
/// and the data must inflate to exactly that size, so a small "zip bomb" cannot make the
/// node allocate more than the limit.
///
/// ```
/// use mote_dist::etf::{decompress, DecodeLimits, WireTerm};
///
/// // term_to_binary(lists:duplicate(100, 0), [compressed]) from erl
/// let compressed = [131, 80, 0, 0, 0, 103, 120, 156, 203, 102, 72, 97, 160, 3, 0, 0, 82, 232,
///                   0, 208];
/// let plain = decompress(&compressed, &DecodeLimits::default()).unwrap().unwrap();
/// assert_eq!(WireTerm::decode(&plain).unwrap(), WireTerm::ByteList(vec![0; 100].into()));
/// ```
pub fn decompress(input: &[u8], limits: &DecodeLimits) -> Result<Option<Vec<u8>>, DecodeError> {
    if input.len() < 2 || input[0] != tag::VERSION || input[1] != tag::COMPRESSED {
        return Ok(None);
    }
    let header = input.get(2..6).ok_or_else(|| DecodeError::Truncated {
        at: input.len(),
        needed: 6 - input.len(),
    })?;
    let size = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
    // The inflated term gets its version byte back in front.
    if size + 1 > limits.max_size {
        return Err(DecodeError::TooLarge {
            size: size + 1,
            limit: limits.max_size,
        });
    }
    // Reserve for what the input can plausibly inflate to, not for what the header claims:
    // a corrupt or hostile size field must not allocate megabytes before inflation fails.
    // The buffer grows as real data arrives; `take` still caps it at the claim.
    let mut out = Vec::with_capacity((size + 1).min(input.len().saturating_mul(4) + 64));
    out.push(tag::VERSION);
    // Read one byte past the announced size to detect data that inflates to more.
    let mut inflater = ZlibDecoder::new(&input[6..]).take(size as u64 + 1);
    inflater
        .read_to_end(&mut out)
        .map_err(|e| DecodeError::BadCompression { why: e.to_string() })?;
    if out.len() != size + 1 {
        let why = if out.len() > size + 1 {
            format!("inflates to more than the {size} bytes announced")
        } else {
            format!("inflates to {} bytes, {size} announced", out.len() - 1)
        };
        return Err(DecodeError::BadCompression { why });
    }
    Ok(Some(out))
}
