//! Who a waker wakes, kept as plain addresses.

use std::task::Waker;

/// A waker's data and vtable pointers, what [`Waker::will_wake`] compares, as addresses:
/// for code that stored a waker where it may no longer read it (a cell another thread now
/// owns) and must still tell whether a new waker is the same. Whoever keeps a `WakerId`
/// keeps the waker it came from alive meanwhile (a stored clone), so the addresses cannot
/// come to name another waker. Never dereferenced, so holders stay `Send`.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub(crate) struct WakerId(usize, usize);

impl WakerId {
    pub(crate) fn of(waker: &Waker) -> Self {
        WakerId(waker.data() as usize, waker.vtable() as *const _ as usize)
    }
}
