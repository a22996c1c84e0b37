//! EPMD's messages: `Length:16` framed requests, and the replies.

use super::EpmdError;

pub(crate) const ALIVE2_REQ: u8 = 120;
pub(crate) const ALIVE2_X_RESP: u8 = 118;
pub(crate) const ALIVE2_RESP: u8 = 121;
pub(crate) const PORT_PLEASE2_REQ: u8 = 122;
pub(crate) const PORT2_RESP: u8 = 119;
pub(crate) const NAMES_REQ: u8 = 110;

/// Whether a node is published (visible in `nodes()`) or hidden.
///
/// ```
/// use mote_dist::epmd::NodeType;
///
/// assert_eq!(NodeType::from_byte(72), Some(NodeType::Hidden));
/// assert_eq!(NodeType::Normal.to_byte(), 77);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeType {
    /// An ordinary, published node (`77`, `'M'`).
    Normal,
    /// A hidden node (`72`, `'H'`), such as a C node or `erl -hidden`.
    Hidden,
}

impl NodeType {
    /// The byte EPMD uses.
    pub fn to_byte(self) -> u8 {
        match self {
            NodeType::Normal => 77,
            NodeType::Hidden => 72,
        }
    }

    /// The type for EPMD's byte.
    pub fn from_byte(b: u8) -> Option<Self> {
        match b {
            77 => Some(NodeType::Normal),
            72 => Some(NodeType::Hidden),
            _ => None,
        }
    }
}

/// What EPMD knows about a registered node.
///
/// ```
/// use mote_dist::epmd::{NodeEntry, NodeType};
///
/// let e = NodeEntry::new("mote", 45000, NodeType::Hidden);
/// assert_eq!((e.highest_version, e.lowest_version), (6, 6));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeEntry {
    /// The node's name without `@host` (EPMD's "alive" name).
    pub name: String,
    /// The port its distribution listener accepts on.
    pub port: u16,
    /// Published or hidden.
    pub node_type: NodeType,
    /// Transport: 0 is TCP/IPv4 (the only value in use).
    pub protocol: u8,
    /// Highest distribution protocol version the node speaks (6 for OTP 23+).
    pub highest_version: u16,
    /// Lowest version (an OTP 25.2 node registers 5; do not refuse it).
    pub lowest_version: u16,
    /// Extra bytes, opaque to EPMD.
    pub extra: Vec<u8>,
}

impl NodeEntry {
    /// A TCP node speaking protocol version 6.
    pub fn new(name: &str, port: u16, node_type: NodeType) -> Self {
        NodeEntry {
            name: name.to_owned(),
            port,
            node_type,
            protocol: 0,
            highest_version: 6,
            lowest_version: 6,
            extra: Vec::new(),
        }
    }

    /// Encodes the fields after the tag, as ALIVE2_REQ and PORT2_RESP share them
    /// (`PortNo, NodeType, Protocol, Highest, Lowest, Nlen, Name, Elen, Extra`).
    pub(crate) fn encode_fields(&self, out: &mut Vec<u8>) -> Result<(), EpmdError> {
        let name_len = u16::try_from(self.name.len())
            .map_err(|_| EpmdError::Malformed("node name longer than 65535 bytes".into()))?;
        let extra_len = u16::try_from(self.extra.len())
            .map_err(|_| EpmdError::Malformed("extra longer than 65535 bytes".into()))?;
        out.extend_from_slice(&self.port.to_be_bytes());
        out.push(self.node_type.to_byte());
        out.push(self.protocol);
        out.extend_from_slice(&self.highest_version.to_be_bytes());
        out.extend_from_slice(&self.lowest_version.to_be_bytes());
        out.extend_from_slice(&name_len.to_be_bytes());
        out.extend_from_slice(self.name.as_bytes());
        out.extend_from_slice(&extra_len.to_be_bytes());
        out.extend_from_slice(&self.extra);
        Ok(())
    }

    /// Decodes the fields [`encode_fields`](Self::encode_fields) writes.
    pub(crate) fn decode_fields(b: &[u8]) -> Result<Self, EpmdError> {
        let mut r = Reader(b);
        let port = r.u16()?;
        let node_type = NodeType::from_byte(r.u8()?)
            .ok_or_else(|| EpmdError::Malformed("unknown node type".into()))?;
        let protocol = r.u8()?;
        let highest_version = r.u16()?;
        let lowest_version = r.u16()?;
        let name_len = usize::from(r.u16()?);
        let name = String::from_utf8(r.take(name_len)?.to_vec())
            .map_err(|_| EpmdError::Malformed("node name is not UTF-8".into()))?;
        // Some clients leave out the extra field entirely.
        let extra = match r.u16() {
            Ok(n) => r.take(usize::from(n))?.to_vec(),
            Err(_) => Vec::new(),
        };
        Ok(NodeEntry {
            name,
            port,
            node_type,
            protocol,
            highest_version,
            lowest_version,
            extra,
        })
    }
}

/// Prefixes a request with its 16-bit length.
pub(crate) fn framed(request: &[u8]) -> Result<Vec<u8>, EpmdError> {
    let len = u16::try_from(request.len())
        .map_err(|_| EpmdError::Malformed("request longer than 65535 bytes".into()))?;
    let mut out = Vec::with_capacity(request.len() + 2);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(request);
    Ok(out)
}

/// Bounds-checked big-endian reads.
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], EpmdError> {
        if self.0.len() < n {
            return Err(EpmdError::Malformed("message truncated".into()));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, EpmdError> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, EpmdError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, EpmdError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Parses NAMES output (`name NAME at port PORT` lines).
pub(crate) fn parse_names(text: &str) -> Vec<(String, u16)> {
    text.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("name ")?;
            let (name, port) = rest.rsplit_once(" at port ")?;
            Some((name.to_owned(), port.trim().parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_names_parse() {
        let e = NodeEntry {
            extra: vec![1, 2],
            lowest_version: 5,
            ..NodeEntry::new("peer", 40841, NodeType::Normal)
        };
        let mut b = Vec::new();
        e.encode_fields(&mut b).unwrap();
        assert_eq!(NodeEntry::decode_fields(&b).unwrap(), e);
        assert!(NodeEntry::decode_fields(&b[..5]).is_err());
        assert_eq!(
            parse_names("name a at port 1\nname b c at port 65535\ngarbage\n"),
            [("a".to_owned(), 1), ("b c".to_owned(), 65535)]
        );
    }
}
