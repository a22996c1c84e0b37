//! The handshake's messages, each framed by a 16-bit length.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::flags::DistFlags;
use super::node_name::NodeName;
use super::HandshakeError;
use crate::epmd::protocol::Reader;

/// `'N'`: send_name (initiator) and send_challenge (acceptor) in protocol version 6.
const TAG_NAME: u8 = b'N';
/// `'n'`: the version 5 send_name, from OTP 23/24 nodes that did not ask EPMD.
const TAG_OLD_NAME: u8 = b'n';
const TAG_STATUS: u8 = b's';
const TAG_REPLY: u8 = b'r';
const TAG_ACK: u8 = b'a';

/// send_name: `'N', Flags:64, Creation:32, Nlen:16, Name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SendName {
    pub(crate) flags: DistFlags,
    pub(crate) creation: u32,
    pub(crate) name: NodeName,
}

/// send_challenge: `'N', Flags:64, Challenge:32, Creation:32, Nlen:16, Name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub(crate) flags: DistFlags,
    pub(crate) challenge: u32,
    pub(crate) creation: u32,
    pub(crate) name: NodeName,
}

/// challenge_reply: `'r', Challenge:32, Digest:16 bytes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChallengeReply {
    pub(crate) challenge: u32,
    pub(crate) digest: [u8; 16],
}

pub(crate) async fn write_msg<S: AsyncWrite + Unpin>(
    s: &mut S,
    four_byte_lengths: bool,
    body: &[u8],
) -> Result<(), HandshakeError> {
    let mut out = Vec::with_capacity(body.len() + 4);
    if four_byte_lengths {
        let len = u32::try_from(body.len())
            .map_err(|_| HandshakeError::Protocol("handshake message too long".into()))?;
        out.extend_from_slice(&len.to_be_bytes());
    } else {
        let len = u16::try_from(body.len())
            .map_err(|_| HandshakeError::Protocol("handshake message over 65535 bytes".into()))?;
        out.extend_from_slice(&len.to_be_bytes());
    }
    out.extend_from_slice(body);
    s.write_all(&out).await?;
    s.flush().await?;
    Ok(())
}

pub(crate) async fn read_msg<S: AsyncRead + Unpin>(
    s: &mut S,
    four_byte_lengths: bool,
) -> Result<Vec<u8>, HandshakeError> {
    let len = if four_byte_lengths {
        s.read_u32().await? as usize
    } else {
        usize::from(s.read_u16().await?)
    };
    // A handshake message is a name and a few numbers: anything long is not one.
    if len > 65_535 {
        return Err(HandshakeError::Protocol(format!(
            "handshake message of {len} bytes"
        )));
    }
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).await?;
    if body.is_empty() {
        return Err(HandshakeError::Protocol("empty handshake message".into()));
    }
    Ok(body)
}

fn name(r: &mut Reader<'_>, len: usize) -> Result<NodeName, HandshakeError> {
    let raw = r.take(len).map_err(truncated)?;
    let text = std::str::from_utf8(raw)
        .map_err(|_| HandshakeError::Protocol("node name is not UTF-8".into()))?;
    text.parse()
        .map_err(|e: super::BadNodeName| HandshakeError::Protocol(e.to_string()))
}

fn truncated(_: crate::epmd::EpmdError) -> HandshakeError {
    HandshakeError::Protocol("handshake message truncated".into())
}

fn u64_of(r: &mut Reader<'_>) -> Result<u64, HandshakeError> {
    let hi = r.u32().map_err(truncated)?;
    let lo = r.u32().map_err(truncated)?;
    Ok((u64::from(hi) << 32) | u64::from(lo))
}

impl SendName {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let n = self.name.as_str().as_bytes();
        let mut b = vec![TAG_NAME];
        b.extend_from_slice(&self.flags.bits().to_be_bytes());
        b.extend_from_slice(&self.creation.to_be_bytes());
        b.extend_from_slice(&(n.len() as u16).to_be_bytes());
        b.extend_from_slice(n);
        b
    }

    pub(crate) fn decode(b: &[u8]) -> Result<Self, HandshakeError> {
        let mut r = Reader(b);
        match r.u8().map_err(truncated)? {
            TAG_NAME => {}
            TAG_OLD_NAME => {
                return Err(HandshakeError::Protocol(
                    "version 5 send_name: the peer must use protocol version 6 (OTP 23+)".into(),
                ))
            }
            t => return Err(unexpected_tag("send_name", t)),
        }
        let flags = DistFlags::from_bits_retain(u64_of(&mut r)?);
        let creation = r.u32().map_err(truncated)?;
        let len = usize::from(r.u16().map_err(truncated)?);
        let name = name(&mut r, len)?;
        Ok(SendName {
            flags,
            creation,
            name,
        })
    }
}

impl Challenge {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let n = self.name.as_str().as_bytes();
        let mut b = vec![TAG_NAME];
        b.extend_from_slice(&self.flags.bits().to_be_bytes());
        b.extend_from_slice(&self.challenge.to_be_bytes());
        b.extend_from_slice(&self.creation.to_be_bytes());
        b.extend_from_slice(&(n.len() as u16).to_be_bytes());
        b.extend_from_slice(n);
        b
    }

    /// Decodes a challenge; bytes after the name are ignored, as the protocol asks.
    pub(crate) fn decode(b: &[u8]) -> Result<Self, HandshakeError> {
        let mut r = Reader(b);
        match r.u8().map_err(truncated)? {
            TAG_NAME => {}
            t => return Err(unexpected_tag("challenge", t)),
        }
        let flags = DistFlags::from_bits_retain(u64_of(&mut r)?);
        let challenge = r.u32().map_err(truncated)?;
        let creation = r.u32().map_err(truncated)?;
        let len = usize::from(r.u16().map_err(truncated)?);
        let name = name(&mut r, len)?;
        Ok(Challenge {
            flags,
            challenge,
            creation,
            name,
        })
    }
}

impl ChallengeReply {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = vec![TAG_REPLY];
        b.extend_from_slice(&self.challenge.to_be_bytes());
        b.extend_from_slice(&self.digest);
        b
    }

    pub(crate) fn decode(b: &[u8]) -> Result<Self, HandshakeError> {
        let mut r = Reader(b);
        match r.u8().map_err(truncated)? {
            TAG_REPLY => {}
            t => return Err(unexpected_tag("challenge_reply", t)),
        }
        let challenge = r.u32().map_err(truncated)?;
        let digest = digest(&mut r)?;
        Ok(ChallengeReply { challenge, digest })
    }
}

fn digest(r: &mut Reader<'_>) -> Result<[u8; 16], HandshakeError> {
    let mut d = [0u8; 16];
    d.copy_from_slice(r.take(16).map_err(truncated)?);
    Ok(d)
}

pub(crate) fn encode_ack(digest: &[u8; 16]) -> Vec<u8> {
    let mut b = vec![TAG_ACK];
    b.extend_from_slice(digest);
    b
}

pub(crate) fn decode_ack(b: &[u8]) -> Result<[u8; 16], HandshakeError> {
    let mut r = Reader(b);
    match r.u8().map_err(truncated)? {
        TAG_ACK => digest(&mut r),
        t => Err(unexpected_tag("challenge_ack", t)),
    }
}

pub(crate) fn encode_status(status: &str) -> Vec<u8> {
    let mut b = vec![TAG_STATUS];
    b.extend_from_slice(status.as_bytes());
    b
}

pub(crate) fn decode_status(b: &[u8]) -> Result<String, HandshakeError> {
    match b.split_first() {
        Some((&TAG_STATUS, text)) => Ok(String::from_utf8_lossy(text).into_owned()),
        Some((&t, _)) => Err(unexpected_tag("status", t)),
        None => Err(HandshakeError::Protocol("empty status".into())),
    }
}

fn unexpected_tag(what: &str, tag: u8) -> HandshakeError {
    HandshakeError::Protocol(format!("expected {what}, got message tag {tag}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_truncation_is_an_error() {
        let name: NodeName = "a@b".parse().unwrap();
        let sn = SendName {
            flags: DistFlags::IMPLEMENTED,
            creation: 7,
            name: name.clone(),
        };
        assert_eq!(SendName::decode(&sn.encode()).unwrap(), sn);
        let ch = Challenge {
            flags: DistFlags::MANDATORY,
            challenge: 99,
            creation: 8,
            name,
        };
        let mut with_trailer = ch.encode();
        with_trailer.extend_from_slice(b"future");
        assert_eq!(Challenge::decode(&with_trailer).unwrap(), ch);
        let reply = ChallengeReply {
            challenge: 5,
            digest: [3; 16],
        };
        assert_eq!(ChallengeReply::decode(&reply.encode()).unwrap(), reply);
        assert_eq!(decode_ack(&encode_ack(&[9; 16])).unwrap(), [9; 16]);
        for b in [&sn.encode()[..5], &reply.encode()[..10], &[b'a', 1, 2][..]] {
            assert!(matches!(
                SendName::decode(b)
                    .err()
                    .or(ChallengeReply::decode(b).err())
                    .or(decode_ack(b).err()),
                Some(HandshakeError::Protocol(_))
            ));
        }
    }
}
