//! A frame ready to write: one buffer, or its pieces with large binaries between them.

use bytes::{BufMut, Bytes, BytesMut};

/// A whole frame (length prefix included) in the order its bytes go on the wire. A frame
/// whose message holds a large shared binary keeps that binary as a piece of its own (see
/// [`FrameBuilder::finish_frame`](super::FrameBuilder)): written with the frame's other
/// pieces in one `writev`, it is never copied in user space on the sending side.
///
/// The pieces of one frame are queued together, under the lock that orders a connection's
/// frames, so no other frame can come between them.
#[derive(Debug, Clone)]
pub(crate) enum Frame {
    /// The common case: one buffer.
    One(Bytes),
    /// Pieces, in order.
    Pieces(Vec<Bytes>),
}

impl Frame {
    /// Bytes in the whole frame.
    pub(crate) fn len(&self) -> usize {
        match self {
            Frame::One(b) => b.len(),
            Frame::Pieces(p) => p.iter().map(Bytes::len).sum(),
        }
    }

    /// The pieces, in order.
    pub(crate) fn into_pieces(self) -> impl Iterator<Item = Bytes> {
        let (one, pieces) = match self {
            Frame::One(b) => (Some(b), Vec::new()),
            Frame::Pieces(p) => (None, p),
        };
        one.into_iter().chain(pieces)
    }

    /// The frame in one buffer (copying the pieces of a pieced frame): for the paths that
    /// read a frame rather than write it.
    pub(crate) fn into_contiguous(self) -> Bytes {
        match self {
            Frame::One(b) => b,
            Frame::Pieces(p) => {
                let mut all = BytesMut::with_capacity(p.iter().map(Bytes::len).sum());
                for piece in p {
                    all.put(piece);
                }
                all.freeze()
            }
        }
    }
}

impl From<Bytes> for Frame {
    fn from(frame: Bytes) -> Self {
        Frame::One(frame)
    }
}
