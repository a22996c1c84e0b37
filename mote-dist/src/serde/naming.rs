//! How Rust identifiers become atoms: `FooBar` is `foo_bar`.

/// How the serializer turns Rust names (enum variants, unit and record struct names, field
/// names) into atoms.
///
/// ```
/// use mote_dist::serde::{to_vec_with, from_slice_with, AtomCase, Options};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// enum Status { NotFound, HTTPError }
///
/// let snake = Options::default(); // AtomCase::Snake
/// let bytes = to_vec_with(&Status::HTTPError, &snake).unwrap();
/// assert_eq!(&bytes[3..], b"http_error");
/// assert_eq!(from_slice_with::<Status>(&bytes, &snake).unwrap(), Status::HTTPError);
///
/// let verbatim = Options { atom_case: AtomCase::Verbatim, ..Options::default() };
/// assert_eq!(&to_vec_with(&Status::NotFound, &verbatim).unwrap()[3..], b"NotFound");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AtomCase {
    /// snake_case, the Erlang convention (the default). An underscore goes before an
    /// uppercase letter that follows a lowercase letter or a digit, or that starts a new
    /// word after an acronym (`HTTPServer` is `http_server`, `V4Port` is `v4_port`); every
    /// letter is lowercased. Names already in snake_case (`#[serde(rename_all =
    /// "snake_case")]`, field names) are unchanged. Decoding matches an atom against the
    /// converted names of the type's variants or fields.
    #[default]
    Snake,
    /// The Rust name as written (after serde's renames): `NotFound` is `'NotFound'`.
    Verbatim,
}

impl AtomCase {
    /// The atom's characters for a Rust name.
    pub(crate) fn chars(self, ident: &str) -> impl Iterator<Item = char> + '_ {
        let snake = self == AtomCase::Snake;
        let mut prev: Option<char> = None;
        let mut rest = ident.chars().peekable();
        std::iter::from_fn(move || {
            let c = rest.next()?;
            let out = if snake && c.is_uppercase() {
                let next_lower = rest.peek().is_some_and(|n| n.is_lowercase());
                let boundary = match prev {
                    Some(p) if p != '_' => {
                        p.is_lowercase() || p.is_ascii_digit() || (p.is_uppercase() && next_lower)
                    }
                    _ => false,
                };
                let lower = c.to_lowercase();
                Piece::Upper(boundary, lower)
            } else {
                Piece::Plain(c)
            };
            prev = Some(c);
            Some(out)
        })
        .flat_map(Piece::into_chars)
    }

    /// Whether `atom` is the atom for the Rust name `ident`.
    pub(crate) fn matches(self, ident: &str, atom: &str) -> bool {
        if self == AtomCase::Verbatim || ident == atom {
            return ident == atom;
        }
        if ident.is_ascii() {
            let atom = atom.as_bytes();
            let mut i = 0;
            let mut same = true;
            snake_ascii(ident.as_bytes(), |b| {
                same &= atom.get(i) == Some(&b);
                i += 1;
            });
            return same && i == atom.len();
        }
        self.chars(ident).eq(atom.chars())
    }

    /// Appends the atom's UTF-8 text for a Rust name to `out`.
    pub(crate) fn write(self, ident: &str, out: &mut Vec<u8>) {
        if self == AtomCase::Verbatim {
            out.extend_from_slice(ident.as_bytes());
        } else if ident.is_ascii() {
            snake_ascii(ident.as_bytes(), |b| out.push(b));
        } else {
            let mut buf = [0u8; 4];
            for c in self.chars(ident) {
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
}

/// The snake_case rule of [`AtomCase::chars`] for ASCII names, byte by byte.
fn snake_ascii(ident: &[u8], mut emit: impl FnMut(u8)) {
    for (i, &c) in ident.iter().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                let p = ident[i - 1];
                let next_lower = ident.get(i + 1).is_some_and(u8::is_ascii_lowercase);
                if p != b'_'
                    && (p.is_ascii_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_ascii_uppercase() && next_lower))
                {
                    emit(b'_');
                }
            }
            emit(c.to_ascii_lowercase());
        } else {
            emit(c);
        }
    }
}

/// One input character's output: itself, or a lowercased uppercase letter, maybe after
/// an underscore.
enum Piece {
    Plain(char),
    Upper(bool, std::char::ToLowercase),
}

impl Piece {
    fn into_chars(self) -> impl Iterator<Item = char> {
        let (underscore, lower, plain) = match self {
            Piece::Plain(c) => (None, None, Some(c)),
            Piece::Upper(b, lower) => (b.then_some('_'), Some(lower), None),
        };
        underscore
            .into_iter()
            .chain(lower.into_iter().flatten())
            .chain(plain)
    }
}

/// `Result::Err` is written `error`, as Erlang functions return `{error, Reason}`.
pub(crate) fn variant_name<'n>(enum_name: &str, variant: &'n str) -> &'n str {
    if enum_name == "Result" && variant == "Err" {
        "error"
    } else {
        variant
    }
}

/// Whether `atom` is the `error` that stands for `Result::Err`.
pub(crate) fn is_result_error(enum_name: &str, atom: &str) -> bool {
    enum_name == "Result" && atom == "error"
}

#[cfg(test)]
mod tests {
    use super::AtomCase;

    fn snake(s: &str) -> String {
        AtomCase::Snake.chars(s).collect()
    }

    #[test]
    fn snake_case_rule() {
        assert_eq!(snake("FooBar"), "foo_bar");
        assert_eq!(snake("HTTPServer"), "http_server");
        assert_eq!(snake("V4Port"), "v4_port");
        assert_eq!(snake("IOError"), "io_error");
        assert_eq!(snake("A"), "a");
        assert_eq!(snake("already_snake"), "already_snake");
        assert_eq!(snake("Snake_Case"), "snake_case");
        assert_eq!(snake("Ünïcode"), "ünïcode");
        assert!(AtomCase::Snake.matches("NotFound", "not_found"));
        assert!(!AtomCase::Snake.matches("NotFound", "notfound"));
        assert_eq!(
            AtomCase::Verbatim.chars("NotFound").collect::<String>(),
            "NotFound"
        );
        for name in [
            "FooBar",
            "HTTPServer",
            "V4Port",
            "IOError",
            "A",
            "Snake_Case",
            "x9Y",
        ] {
            let mut fast = Vec::new();
            AtomCase::Snake.write(name, &mut fast);
            assert_eq!(String::from_utf8(fast).unwrap(), snake(name), "{name}");
            assert!(AtomCase::Snake.matches(name, &snake(name)));
        }
    }
}
