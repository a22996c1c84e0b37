//! Distribution messages: building a frame, and parsing one (control term plus payload).

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::control::{op_has_payload, ControlMessage};
use super::frame::Frame;
use super::ConnectionError;
use crate::etf::{tag, DecodeError, DecodeLimits, Decoder, EncodeError, Splice, WireTerm};
use crate::serde::Options;

/// A message received on a connection: the control term and, for the ops that have one,
/// the payload term's encoding (version byte included), a slice of the frame.
///
/// The payload is left encoded because only its receiver knows which Rust type to decode
/// it into; it has been checked to be one well-formed term within the limits.
///
/// ```
/// use mote_dist::connection::{ControlMessage, DistMessage, FrameBuilder};
/// use mote_dist::etf::{Atom, DecodeLimits, ErlPid};
///
/// let to = ErlPid { node: Atom::new("a@h").unwrap(), id: 1, serial: 0, creation: 1 };
/// let frame = FrameBuilder::new(&ControlMessage::Send { to })
///     .unwrap()
///     .payload(&("hello", 1u8), &Default::default())
///     .unwrap()
///     .finish()
///     .unwrap();
/// // Strip the 4-byte length a connection reads before the frame.
/// let msg = DistMessage::parse(frame.slice(4..), &DecodeLimits::default()).unwrap();
/// assert_eq!(msg.decode_payload::<(String, u8)>(&Default::default()).unwrap(), ("hello".into(), 1));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DistMessage {
    /// The control message.
    pub control: ControlMessage,
    /// The payload's encoding, if the op has one.
    pub payload: Option<Bytes>,
}

impl DistMessage {
    /// Parses a pass-through frame (`112, 131 Control, 131 Payload`) without its length.
    pub fn parse(frame: Bytes, limits: &DecodeLimits) -> Result<Self, ConnectionError> {
        match frame.first() {
            Some(&tag::PASS_THROUGH) => Self::parse_terms(frame.slice(1..), limits),
            Some(&tag::VERSION) => Err(ConnectionError::Protocol(
                "distribution header, but neither the atom cache nor fragments were negotiated"
                    .into(),
            )),
            Some(&other) => Err(ConnectionError::Protocol(format!(
                "frame starts with {other}, expected 112 (pass-through)"
            ))),
            None => Err(ConnectionError::Protocol("empty frame".into())),
        }
    }

    /// Parses a control term followed by an optional payload, each with its version byte.
    fn parse_terms(terms: Bytes, limits: &DecodeLimits) -> Result<Self, ConnectionError> {
        let mut d = Decoder::with_limits(&terms, *limits)?;
        let control = ControlMessage::decode(&mut d)?;
        let rest = d.finish()?;
        let payload = if op_has_payload(control.op()) {
            check_payload(rest, limits)?;
            Some(terms.slice(terms.len() - rest.len()..))
        } else if rest.is_empty() {
            None
        } else {
            return Err(DecodeError::TrailingBytes { count: rest.len() }.into());
        };
        Ok(DistMessage { control, payload })
    }

    /// The payload as a dynamic term (binaries share the frame's memory).
    pub fn payload_term(&self, limits: &DecodeLimits) -> Result<WireTerm, DecodeError> {
        match &self.payload {
            Some(p) => WireTerm::decode_bytes_with(p, limits),
            None => Err(DecodeError::Shape(format!(
                "control op {} has no payload",
                self.control.op()
            ))),
        }
    }

    /// The payload decoded into a Rust type.
    pub fn decode_payload<T: DeserializeOwned>(&self, opts: &Options) -> Result<T, DecodeError> {
        match &self.payload {
            Some(p) => crate::serde::from_bytes_with(p, opts),
            None => Err(DecodeError::Shape(format!(
                "control op {} has no payload",
                self.control.op()
            ))),
        }
    }
}

/// Checks that the payload is exactly one well-formed term (a compressed one only for its
/// announced size: its receiver inflates and checks it).
fn check_payload(payload: &[u8], limits: &DecodeLimits) -> Result<(), DecodeError> {
    if payload.len() >= 6 && payload[0] == tag::VERSION && payload[1] == tag::COMPRESSED {
        let size = u32::from_be_bytes([payload[2], payload[3], payload[4], payload[5]]) as usize;
        if size >= limits.max_size {
            return Err(DecodeError::TooLarge {
                size,
                limit: limits.max_size,
            });
        }
        return Ok(());
    }
    let mut d = Decoder::with_limits(payload, *limits)?;
    d.skip()?;
    d.finish_exact()
}

/// Builds one frame: the 4-byte length, the pass-through byte, the control term and the
/// payload, in one buffer.
///
/// ```
/// use mote_dist::connection::{ControlMessage, FrameBuilder};
/// use mote_dist::etf::{Atom, ErlPid};
///
/// let from = ErlPid { node: Atom::new("a@h").unwrap(), id: 1, serial: 0, creation: 1 };
/// let link = FrameBuilder::new(&ControlMessage::Link { from: from.clone(), to: from }).unwrap();
/// let frame = link.finish().unwrap();
/// assert_eq!(&frame[..4], (frame.len() as u32 - 4).to_be_bytes());
/// assert_eq!(frame[4], 112); // pass-through
/// ```
#[derive(Debug)]
pub struct FrameBuilder {
    buf: Vec<u8>,
    /// Large binaries of the payload left out of `buf` (see [`FrameBuilder::finish_frame`]).
    splices: Vec<Splice>,
    needs_payload: bool,
    has_payload: bool,
}

impl FrameBuilder {
    /// Starts a frame with this control message.
    pub fn new(control: &ControlMessage) -> Result<Self, EncodeError> {
        let mut buf = Vec::with_capacity(128);
        buf.extend_from_slice(&[0, 0, 0, 0, tag::PASS_THROUGH]);
        control.encode(&mut buf)?;
        Ok(FrameBuilder {
            buf,
            splices: Vec::new(),
            needs_payload: control.has_payload(),
            has_payload: false,
        })
    }

    /// Adds the payload, serialized from a Rust value.
    pub fn payload<T: Serialize + ?Sized>(
        mut self,
        value: &T,
        opts: &Options,
    ) -> Result<Self, EncodeError> {
        crate::serde::append_sharing(value, &mut self.buf, Some(&mut self.splices), opts)?;
        self.has_payload = true;
        Ok(self)
    }

    /// Adds the payload from a dynamic term.
    pub fn payload_term(mut self, term: &WireTerm) -> Result<Self, EncodeError> {
        let (start, spliced) = (self.buf.len(), self.splices.len());
        self.buf.push(tag::VERSION);
        let mut e = crate::etf::Encoder::sharing(&mut self.buf, Some(&mut self.splices));
        if let Err(e) = term.write(&mut e) {
            self.buf.truncate(start);
            self.splices.truncate(spliced);
            return Err(e);
        }
        self.has_payload = true;
        Ok(self)
    }

    /// Adds a payload already encoded (version byte included), such as one received.
    pub fn payload_encoded(mut self, encoded: &[u8]) -> Self {
        self.buf.extend_from_slice(encoded);
        self.has_payload = true;
        self
    }

    /// The finished frame, length prefix included, in one buffer.
    pub fn finish(self) -> Result<Bytes, EncodeError> {
        self.finish_frame().map(Frame::into_contiguous)
    }

    /// The finished frame, length prefix included: the payload's binaries of 8 KiB or more
    /// held in shared memory (a [`WireTerm::Binary`]'s `Bytes`) stay where they are, as
    /// pieces of the frame between the encoded bytes around them, instead of being copied
    /// into it.
    pub(crate) fn finish_frame(mut self) -> Result<Frame, EncodeError> {
        if self.needs_payload != self.has_payload {
            return Err(EncodeError::Unsupported(if self.needs_payload {
                "this control message needs a payload".into()
            } else {
                "this control message takes no payload".into()
            }));
        }
        let spliced: usize = self.splices.iter().map(|s| s.bytes.len()).sum();
        let total = self.buf.len() - 4 + spliced;
        let len = u32::try_from(total).map_err(|_| EncodeError::TooLong {
            what: "frame",
            len: total + 4,
        })?;
        self.buf[..4].copy_from_slice(&len.to_be_bytes());
        let encoded = Bytes::from(self.buf);
        if self.splices.is_empty() {
            return Ok(Frame::One(encoded));
        }
        let mut pieces = Vec::with_capacity(2 * self.splices.len() + 1);
        let mut from = 0;
        for splice in self.splices {
            pieces.push(encoded.slice(from..splice.at));
            pieces.push(splice.bytes);
            from = splice.at;
        }
        if from < encoded.len() {
            pieces.push(encoded.slice(from..));
        }
        Ok(Frame::Pieces(pieces))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etf::{Atom, ErlPid};
    use bytes::Bytes;

    fn to() -> ErlPid {
        ErlPid {
            node: Atom::new("a@h").unwrap(),
            id: 1,
            serial: 0,
            creation: 1,
        }
    }

    /// The frame a builder makes, written piece after piece, is byte for byte the frame of
    /// the same message with every binary copied in (what `WireTerm::encode` writes).
    fn copied_frame(payload: &WireTerm) -> Vec<u8> {
        let mut frame = vec![0, 0, 0, 0, tag::PASS_THROUGH];
        ControlMessage::Send { to: to() }
            .encode(&mut frame)
            .unwrap();
        frame.extend_from_slice(&payload.encode().unwrap());
        let len = (frame.len() - 4) as u32;
        frame[..4].copy_from_slice(&len.to_be_bytes());
        frame
    }

    #[test]
    fn a_large_shared_binary_is_a_piece_of_its_own_not_a_copy() {
        let big = Bytes::from(vec![7u8; 64 * 1024]);
        let small = Bytes::from(vec![1u8; 100]);
        let payload = WireTerm::Tuple(vec![
            WireTerm::Binary(small),
            WireTerm::Binary(big.clone()),
            WireTerm::Int(5),
            WireTerm::Binary(big.clone()),
        ]);
        for by_serde in [false, true] {
            let builder = FrameBuilder::new(&ControlMessage::Send { to: to() }).unwrap();
            let builder = if by_serde {
                builder.payload(&payload, &Default::default()).unwrap()
            } else {
                builder.payload_term(&payload).unwrap()
            };
            let frame = builder.finish_frame().unwrap();
            let Frame::Pieces(pieces) = &frame else {
                panic!("a 64 KiB binary was copied into the frame (by serde: {by_serde})");
            };
            let shared = pieces
                .iter()
                .filter(|p| p.as_ptr() == big.as_ptr() && p.len() == big.len())
                .count();
            assert_eq!(shared, 2, "both big binaries are the caller's memory");
            assert_eq!(frame.len(), copied_frame(&payload).len());
            assert_eq!(&frame.into_contiguous()[..], &copied_frame(&payload)[..]);
        }
    }

    #[test]
    fn small_binaries_and_finish_give_one_buffer() {
        let payload = WireTerm::Binary(Bytes::from(vec![3u8; 1000]));
        let frame = FrameBuilder::new(&ControlMessage::Send { to: to() })
            .unwrap()
            .payload_term(&payload)
            .unwrap()
            .finish_frame()
            .unwrap();
        assert!(matches!(frame, Frame::One(_)));
        let big = WireTerm::Binary(Bytes::from(vec![3u8; 100_000]));
        let whole = FrameBuilder::new(&ControlMessage::Send { to: to() })
            .unwrap()
            .payload_term(&big)
            .unwrap()
            .finish()
            .unwrap();
        assert_eq!(&whole[..], &copied_frame(&big)[..]);
    }

    #[test]
    fn a_failed_payload_leaves_no_splice_behind() {
        struct Fails;
        impl serde::Serialize for Fails {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("no"))
            }
        }
        let big = WireTerm::Binary(Bytes::from(vec![9u8; 32 * 1024]));
        let mut out = vec![1, 2, 3];
        let mut splices = Vec::new();
        let failed = crate::serde::append_sharing(
            &(&big, Fails),
            &mut out,
            Some(&mut splices),
            &Default::default(),
        );
        assert!(failed.is_err());
        assert_eq!(out, [1, 2, 3]);
        assert!(splices.is_empty());
    }
}
