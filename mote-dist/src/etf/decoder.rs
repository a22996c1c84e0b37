//! The streaming decoder: events over a byte slice, with the container bookkeeping that
//! enforces the depth and length limits whatever the consumer does with the events.

use smallvec::SmallVec;

use super::error::DecodeError;
use super::event::Event;
use super::limits::DecodeLimits;
use super::reader::{self, Cursor};
use super::tag;

/// A pull decoder for one encoded term.
///
/// It yields [`Event`]s depth-first and borrows binaries, strings and atoms from the
/// input. Whatever the consumer does, it enforces [`DecodeLimits`]: at most `max_depth`
/// containers open at once, and no container may announce more elements than the bytes
/// left could hold (summed over all open containers, so nested headers cannot multiply a
/// claim). Compressed terms must be inflated first with
/// [`decompress`](super::decompress).
///
/// ```
/// use mote_dist::etf::{Decoder, Event};
///
/// // term_to_binary({ok, <<"hi">>})
/// let bytes = [131, 104, 2, 119, 2, b'o', b'k', 109, 0, 0, 0, 2, b'h', b'i'];
/// let mut d = Decoder::new(&bytes).unwrap();
/// assert_eq!(d.next_event().unwrap(), Event::Tuple(2));
/// assert_eq!(d.next_event().unwrap(), Event::Atom("ok".into()));
/// assert_eq!(d.next_event().unwrap(), Event::Binary(b"hi"));
/// assert!(d.is_complete());
/// d.finish().unwrap();
/// ```
pub struct Decoder<'a> {
    cur: Cursor<'a>,
    /// Elements still expected by each container enclosing the next term, innermost last.
    open: SmallVec<[u64; 8]>,
    /// Sum of `open`: each pending element needs at least one more byte of input.
    pending: u64,
    /// Whether the root term has been started.
    started: bool,
    limits: DecodeLimits,
}

impl<'a> Decoder<'a> {
    /// A decoder for `input`, which starts with the version byte 131, with the default
    /// limits.
    pub fn new(input: &'a [u8]) -> Result<Self, DecodeError> {
        Self::with_limits(input, DecodeLimits::default())
    }

    /// A decoder for `input` (starting with the version byte) with these limits.
    pub fn with_limits(input: &'a [u8], limits: DecodeLimits) -> Result<Self, DecodeError> {
        if input.len() > limits.max_size {
            return Err(DecodeError::TooLarge {
                size: input.len(),
                limit: limits.max_size,
            });
        }
        match input.first() {
            Some(&tag::VERSION) => {}
            Some(&found) => return Err(DecodeError::BadVersion { found }),
            None => return Err(DecodeError::Truncated { at: 0, needed: 1 }),
        }
        if input.get(1) == Some(&tag::COMPRESSED) {
            return Err(DecodeError::Unsupported {
                tag: tag::COMPRESSED,
                at: 1,
                why: "compressed term: inflate it with etf::decompress first",
            });
        }
        Ok(Self::at(input, 1, limits))
    }

    /// A decoder for the term at `pos` in `input` (after its version byte).
    pub(crate) fn at(input: &'a [u8], pos: usize, limits: DecodeLimits) -> Self {
        Decoder {
            cur: Cursor::new(input, pos),
            open: SmallVec::new(),
            pending: 0,
            started: false,
            limits,
        }
    }

    /// The next event of the term, or an error (also once the term is complete).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn next_event(&mut self) -> Result<Event<'a>, DecodeError> {
        self.take_slot()?;
        let event = reader::parse(&mut self.cur, self.limits.max_atom_chars)?;
        let children = event.children();
        if children > 0 {
            self.open_container(children)?;
        }
        Ok(event)
    }

    /// Looks at the next event without consuming it.
    pub fn peek_event(&self) -> Result<Event<'a>, DecodeError> {
        if self.is_complete() {
            return Err(done());
        }
        let mut cur = self.cur;
        reader::parse(&mut cur, self.limits.max_atom_chars)
    }

    /// Skips one whole term (a container with everything in it).
    ///
    /// ```
    /// use mote_dist::etf::{Decoder, Event, WireTerm};
    ///
    /// let t = WireTerm::Tuple(vec![WireTerm::List(vec![WireTerm::Int(1)]), WireTerm::Int(2)]);
    /// let bytes = t.encode().unwrap();
    /// let mut d = Decoder::new(&bytes).unwrap();
    /// assert_eq!(d.next_event().unwrap(), Event::Tuple(2));
    /// d.skip().unwrap();
    /// assert_eq!(d.next_event().unwrap(), Event::Int(2));
    /// ```
    pub fn skip(&mut self) -> Result<(), DecodeError> {
        let mut terms = 1u64;
        while terms > 0 {
            terms = terms - 1 + self.next_event()?.children();
        }
        Ok(())
    }

    /// Whether the whole term has been read.
    pub fn is_complete(&self) -> bool {
        self.started && self.pending == 0
    }

    /// Offset of the next unread byte in the input.
    pub fn position(&self) -> usize {
        self.cur.pos
    }

    /// Checks that the term is complete and returns the bytes after it (in a distribution
    /// frame, the message that follows a control term).
    pub fn finish(self) -> Result<&'a [u8], DecodeError> {
        if !self.is_complete() {
            return Err(DecodeError::Shape(
                "term not fully read before finishing".into(),
            ));
        }
        Ok(&self.cur.buf[self.cur.pos..])
    }

    /// Like [`finish`](Self::finish), but refuses bytes after the term.
    pub fn finish_exact(self) -> Result<(), DecodeError> {
        match self.finish()?.len() {
            0 => Ok(()),
            count => Err(DecodeError::TrailingBytes { count }),
        }
    }

    /// The whole input the decoder reads.
    pub(crate) fn input(&self) -> &'a [u8] {
        self.cur.buf
    }

    /// The decoder's limits.
    pub fn limits(&self) -> &DecodeLimits {
        &self.limits
    }

    /// Accounts for one term being read: the root, or one element of the innermost
    /// container with elements left. Containers whose last element has been started stay
    /// on the stack until then: they are ancestors of that element, and a consumer that
    /// recurses is still inside them, so they count towards the depth.
    fn take_slot(&mut self) -> Result<(), DecodeError> {
        while self.open.last() == Some(&0) {
            self.open.pop();
        }
        match self.open.last_mut() {
            Some(left) => {
                *left -= 1;
                self.pending -= 1;
            }
            None if !self.started => self.started = true,
            None => return Err(done()),
        }
        Ok(())
    }

    fn open_container(&mut self, children: u64) -> Result<(), DecodeError> {
        if self.open.len() >= self.limits.max_depth {
            return Err(DecodeError::TooDeep {
                limit: self.limits.max_depth,
            });
        }
        let remaining = self.cur.remaining();
        if self.pending + children > remaining as u64 {
            return Err(DecodeError::LengthBeyondInput {
                at: self.cur.pos,
                count: children,
                remaining,
            });
        }
        self.open.push(children);
        self.pending += children;
        Ok(())
    }
}

fn done() -> DecodeError {
    DecodeError::Shape("the term is complete; no more events".into())
}
