//! Distribution messages: building a frame, and parsing one (control term plus payload).

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::control::{op_has_payload, ControlMessage};
use super::ConnectionError;
use crate::etf::{tag, DecodeError, DecodeLimits, Decoder, EncodeError, WireTerm};
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
        crate::serde::append(value, &mut self.buf, opts)?;
        self.has_payload = true;
        Ok(self)
    }

    /// Adds the payload from a dynamic term.
    pub fn payload_term(mut self, term: &WireTerm) -> Result<Self, EncodeError> {
        self.buf.push(tag::VERSION);
        term.write(&mut crate::etf::Encoder::new(&mut self.buf))?;
        self.has_payload = true;
        Ok(self)
    }

    /// Adds a payload already encoded (version byte included), such as one received.
    pub fn payload_encoded(mut self, encoded: &[u8]) -> Self {
        self.buf.extend_from_slice(encoded);
        self.has_payload = true;
        self
    }

    /// The finished frame, length prefix included.
    pub fn finish(mut self) -> Result<Bytes, EncodeError> {
        if self.needs_payload != self.has_payload {
            return Err(EncodeError::Unsupported(if self.needs_payload {
                "this control message needs a payload".into()
            } else {
                "this control message takes no payload".into()
            }));
        }
        let len = u32::try_from(self.buf.len() - 4).map_err(|_| EncodeError::TooLong {
            what: "frame",
            len: self.buf.len(),
        })?;
        self.buf[..4].copy_from_slice(&len.to_be_bytes());
        Ok(Bytes::from(self.buf))
    }
}
