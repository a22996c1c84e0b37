//! The `gen_server` call convention on the wire: `{'$gen_call', {From, Tag}, Request}`
//! and the reply `{Tag, Reply}` sent to `From`.

use bytes::Bytes;

use super::control::ControlMessage;
use super::message::FrameBuilder;
use crate::etf::{DecodeLimits, EncodeError, ErlPid, WireTerm};

/// A `gen_server:call` request as it arrives in a message payload.
///
/// `Tag` is a reference, or `[alias | Ref]` from OTP 24 callers: the reply echoes it as
/// received. How `net_adm:ping` is answered:
///
/// ```
/// use mote_dist::connection::GenCall;
/// use mote_dist::etf::{Atom, DecodeLimits, ErlPid, ErlRef, WireTerm};
///
/// let node = Atom::new("erl@h").unwrap();
/// let caller = ErlPid { node: node.clone(), id: 9, serial: 0, creation: 1 };
/// let tag = WireTerm::ImproperList(
///     vec![WireTerm::atom("alias").unwrap()],
///     Box::new(WireTerm::Ref(ErlRef::new(node, 1, &[1, 2, 3]).unwrap())),
/// );
/// let request = WireTerm::Tuple(vec![
///     WireTerm::atom("$gen_call").unwrap(),
///     WireTerm::Tuple(vec![WireTerm::Pid(caller.clone()), tag.clone()]),
///     WireTerm::Tuple(vec![WireTerm::atom("is_auth").unwrap(), WireTerm::atom("erl@h").unwrap()]),
/// ]);
/// let payload = bytes::Bytes::from(request.encode().unwrap());
/// let call = GenCall::parse(&payload, &DecodeLimits::default()).unwrap();
/// assert_eq!((&call.from, &call.tag), (&caller, &tag));
/// let reply = call.reply_frame(&WireTerm::atom("yes").unwrap()).unwrap();
/// assert!(reply.len() > 4);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GenCall {
    /// The caller.
    pub from: ErlPid,
    /// The reply tag, echoed in the reply.
    pub tag: WireTerm,
    /// The request.
    pub request: WireTerm,
}

impl GenCall {
    /// The call in a payload, or `None` if the payload is not a `$gen_call`.
    pub fn parse(payload: &Bytes, limits: &DecodeLimits) -> Option<GenCall> {
        let WireTerm::Tuple(mut t) = WireTerm::decode_bytes_with(payload, limits).ok()? else {
            return None;
        };
        if t.len() != 3 || !matches!(&t[0], WireTerm::Atom(a) if a == "$gen_call") {
            return None;
        }
        let request = t.pop()?;
        let WireTerm::Tuple(mut from) = t.pop()? else {
            return None;
        };
        if from.len() != 2 {
            return None;
        }
        let tag = from.pop()?;
        let WireTerm::Pid(from) = from.pop()? else {
            return None;
        };
        Some(GenCall { from, tag, request })
    }

    /// The frame that replies `{Tag, Reply}` to the caller (a plain SEND to its pid,
    /// which OTP accepts while the caller's alias is active).
    pub fn reply_frame(&self, reply: &WireTerm) -> Result<Bytes, EncodeError> {
        let body = WireTerm::Tuple(vec![self.tag.clone(), reply.clone()]);
        FrameBuilder::new(&ControlMessage::Send {
            to: self.from.clone(),
        })?
        .payload_term(&body)?
        .finish()
    }
}
