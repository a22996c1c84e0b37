//! [`BigInteger`]: an integer beyond `i64`, Erlang's bignum.

use std::fmt;
use std::sync::Arc;

use num_bigint::BigInt;
use num_traits::ToPrimitive;

use super::Term;

/// An integer that does not fit in an `i64` (the payload of [`Term::BigInt`]).
///
/// An integer has one form: one that fits in an `i64` is always [`Term::Int`], so two
/// equal integers are equal terms. That is why this type can only be made by converting a
/// [`BigInt`] (or a wide Rust integer) into a [`Term`], which picks the form.
///
/// ```
/// use mote::Term;
/// use mote::term::BigInt;
///
/// let big = Term::from(BigInt::from(i64::MAX) + 1);
/// let Term::BigInt(b) = &big else { panic!("beyond i64") };
/// assert_eq!(b.to_string(), "9223372036854775808");
/// // Back in range: the small form.
/// assert_eq!(Term::from(BigInt::from(42)), Term::Int(42));
/// assert_eq!(Term::from(u64::MAX), Term::from(BigInt::from(u64::MAX)));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BigInteger(Arc<BigInt>);

impl BigInteger {
    /// The value.
    ///
    /// ```
    /// use mote::Term;
    /// use mote::term::BigInt;
    /// let Term::BigInt(b) = Term::from(u64::MAX) else { unreachable!() };
    /// assert_eq!(b.value(), &BigInt::from(u64::MAX));
    /// ```
    pub fn value(&self) -> &BigInt {
        &self.0
    }
}

impl From<BigInt> for Term {
    /// The canonical form: [`Term::Int`] if the value fits in an `i64`.
    fn from(value: BigInt) -> Term {
        match value.to_i64() {
            Some(small) => Term::Int(small),
            None => Term::BigInt(BigInteger(Arc::new(value))),
        }
    }
}

/// Integers that may not fit in an `i64`: the small form when they do.
macro_rules! from_wide_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Term {
            fn from(value: $t) -> Term {
                match i64::try_from(value) {
                    Ok(small) => Term::Int(small),
                    Err(_) => Term::from(BigInt::from(value)),
                }
            }
        }
    )*};
}
from_wide_int!(u64, usize, i128, u128);

impl fmt::Display for BigInteger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for BigInteger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}
