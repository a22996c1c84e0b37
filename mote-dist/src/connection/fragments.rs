//! Reassembly of fragmented messages (`DFLAG_FRAGMENTS`).
//!
//! A large message may arrive as a first fragment (`131, 69, SequenceId:64,
//! FragmentId:64, atom cache header`) and continuations (`131, 70, SequenceId:64,
//! FragmentId:64`); fragment ids count down to 1. Fragments of different sequences may
//! interleave. Without a negotiated atom cache the header holds no cache references.

use std::collections::HashMap;

use bytes::{Bytes, BytesMut};

use super::ConnectionError;
use crate::etf::tag;

/// Most sequences being reassembled at once from one peer.
const MAX_SEQUENCES: usize = 64;

/// Fragments received so far, per sequence.
#[derive(Debug, Default)]
pub(crate) struct Reassembly {
    pending: HashMap<u64, Pending>,
}

#[derive(Debug)]
struct Pending {
    next_id: u64,
    data: BytesMut,
}

impl Reassembly {
    /// Takes a fragment frame (starting `131, 69` or `131, 70`); returns the reassembled
    /// terms (control and payload without version bytes) when the last fragment arrives.
    pub(crate) fn push(
        &mut self,
        frame: &[u8],
        max_size: usize,
    ) -> Result<Option<Bytes>, ConnectionError> {
        let err = |m: &str| ConnectionError::Protocol(format!("fragment: {m}"));
        if frame.len() < 18 {
            return Err(err("header truncated"));
        }
        let seq = u64::from_be_bytes(frame[2..10].try_into().expect("8 bytes"));
        let id = u64::from_be_bytes(frame[10..18].try_into().expect("8 bytes"));
        if id == 0 {
            return Err(err("fragment id 0"));
        }
        let body = if frame[1] == tag::DIST_FRAG_HEADER {
            // The atom cache header: NumberOfAtomCacheRefs, then nothing when it is 0.
            match frame.get(18) {
                Some(0) => {}
                Some(_) => {
                    return Err(err(
                        "atom cache references, but no atom cache was negotiated",
                    ))
                }
                None => return Err(err("header truncated")),
            }
            if self.pending.contains_key(&seq) {
                return Err(err("sequence started twice"));
            }
            if id == 1 {
                return Ok(Some(Bytes::copy_from_slice(&frame[19..])));
            }
            if self.pending.len() >= MAX_SEQUENCES {
                return Err(err("too many fragmented messages at once"));
            }
            self.pending.insert(
                seq,
                Pending {
                    next_id: id,
                    data: BytesMut::new(),
                },
            );
            &frame[19..]
        } else {
            &frame[18..]
        };
        let p = self
            .pending
            .get_mut(&seq)
            .ok_or_else(|| err("continuation of an unknown sequence"))?;
        if id != p.next_id {
            return Err(err("fragments out of order"));
        }
        if p.data.len() + body.len() > max_size {
            return Err(ConnectionError::FrameTooLarge {
                len: p.data.len() + body.len(),
                limit: max_size,
            });
        }
        p.data.extend_from_slice(body);
        p.next_id -= 1;
        if id == 1 {
            let p = self.pending.remove(&seq).expect("present");
            return Ok(Some(p.data.freeze()));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frag(start: bool, seq: u64, id: u64, body: &[u8]) -> Vec<u8> {
        let mut f = vec![131, if start { 69 } else { 70 }];
        f.extend_from_slice(&seq.to_be_bytes());
        f.extend_from_slice(&id.to_be_bytes());
        if start {
            f.push(0);
        }
        f.extend_from_slice(body);
        f
    }

    #[test]
    fn interleaved_sequences_reassemble_and_bad_ones_are_errors() {
        let mut r = Reassembly::default();
        assert_eq!(r.push(&frag(true, 1, 3, b"ab"), 100).unwrap(), None);
        assert_eq!(r.push(&frag(true, 2, 2, b"xy"), 100).unwrap(), None);
        assert_eq!(r.push(&frag(false, 1, 2, b"cd"), 100).unwrap(), None);
        assert_eq!(
            r.push(&frag(false, 2, 1, b"z"), 100).unwrap().unwrap(),
            &b"xyz"[..]
        );
        assert_eq!(
            r.push(&frag(false, 1, 1, b"e"), 100).unwrap().unwrap(),
            &b"abcde"[..]
        );
        assert_eq!(
            r.push(&frag(true, 3, 1, b"one"), 100).unwrap().unwrap(),
            &b"one"[..]
        );
        assert!(r.push(&frag(false, 9, 1, b"?"), 100).is_err());
        assert!(r.push(&frag(true, 4, 3, b"a"), 100).is_ok());
        assert!(r.push(&frag(false, 4, 1, b"skipped 2"), 100).is_err());
        assert!(r.push(&frag(true, 5, 2, &[0; 60]), 100).is_ok());
        assert!(matches!(
            r.push(&frag(false, 5, 1, &[0; 60]), 100),
            Err(ConnectionError::FrameTooLarge { .. })
        ));
        assert!(r.push(&[131, 69, 0], 100).is_err());
    }
}
