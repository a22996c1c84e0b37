//! Erlang syntax for terms, as the shell prints them (`io:format("~tp", [T])` on one line,
//! with the default printable range, Latin-1).
//!
//! The rules below were checked against an OTP 25 `erl`:
//!
//! * an atom is quoted unless it starts with a lowercase letter, continues with letters,
//!   digits, `_` and `@` (Latin-1 letters count), and is not a reserved word: `ok`,
//!   `'EXIT'`, `'hello world'`, `'and'`, `a@b`;
//! * a list of printable Latin-1 characters prints as a string, `"hi"`; a binary of them
//!   as `<<"hi">>`; a UTF-8 binary of them with some character beyond ASCII as
//!   `<<"é"/utf8>>`; other binaries as bytes, `<<1,2,3>>`; a bitstring as `<<97,5:3>>`;
//! * a float prints in the shortest form that reads back as the same float: plain
//!   (`0.1`, `100.0`) unless scientific is shorter (`1.0e6`, `1.2345e-4`) or the value is
//!   at least 2^53 (`9.007199254740992e15`);
//! * maps print their pairs in key order, `#{a => 1,k => v}`.

use std::fmt::{self, Write};

use super::{BitBinary, List, Map, Term};

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Int(n) => write!(f, "{n}"),
            Term::BigInt(n) => write!(f, "{n}"),
            Term::Float(x) => write_float(f, *x),
            Term::Atom(a) => write_atom(f, a.as_str()),
            Term::Reference(r) => write!(f, "{r}"),
            Term::Fun(fun) => write!(f, "{fun}"),
            Term::Port(p) => write!(f, "{p}"),
            Term::Pid(p) => write!(f, "{p}"),
            Term::Tuple(items) => {
                f.write_char('{')?;
                write_seq(f, items)?;
                f.write_char('}')
            }
            Term::Map(map) => write!(f, "{map}"),
            Term::List(list) => write!(f, "{list}"),
            Term::Binary(bytes) => write_binary(f, bytes),
            Term::BitBinary(bits) => write!(f, "{bits}"),
        }
    }
}

impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("#{")?;
        for (i, (k, v)) in self.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            write!(f, "{k} => {v}")?;
        }
        f.write_char('}')
    }
}

impl fmt::Display for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_list(f, self)
    }
}

impl fmt::Display for BitBinary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.bytes();
        f.write_str("<<")?;
        for b in &bytes[..bytes.len() - 1] {
            write!(f, "{b},")?;
        }
        write!(f, "{}:{}>>", self.tail_value(), self.tail_bits())
    }
}

/// `Debug` is the Erlang syntax too: what a reader of a failed assertion wants to see.
macro_rules! debug_is_display {
    ($($t:ty),*) => {$(
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
    )*};
}
debug_is_display!(Term, Map, List, BitBinary);

fn write_seq(f: &mut fmt::Formatter<'_>, items: &[Term]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_char(',')?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

fn write_list(f: &mut fmt::Formatter<'_>, list: &List) -> fmt::Result {
    let items = list.items();
    if list.is_proper() && !items.is_empty() {
        let chars: Option<String> = items
            .iter()
            .map(|t| match t {
                Term::Int(c) => u8::try_from(*c)
                    .ok()
                    .filter(|&b| printable(b))
                    .map(char::from),
                _ => None,
            })
            .collect();
        if let Some(text) = chars {
            return write_quoted(f, text.chars(), '"');
        }
    }
    f.write_char('[')?;
    write_seq(f, items)?;
    if let Some(tail) = list.tail() {
        write!(f, "|{tail}")?;
    }
    f.write_char(']')
}

fn write_binary(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    if let Ok(text) = std::str::from_utf8(bytes) {
        let latin1 = text
            .chars()
            .all(|c| u8::try_from(u32::from(c)).is_ok_and(printable));
        if latin1 && !text.is_ascii() {
            f.write_str("<<")?;
            write_quoted(f, text.chars(), '"')?;
            return f.write_str("/utf8>>");
        }
    }
    if !bytes.is_empty() && bytes.iter().all(|&b| printable(b)) {
        f.write_str("<<")?;
        write_quoted(f, bytes.iter().map(|&b| char::from(b)), '"')?;
        return f.write_str(">>");
    }
    f.write_str("<<")?;
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            f.write_char(',')?;
        }
        write!(f, "{b}")?;
    }
    f.write_str(">>")
}

/// Erlang's printable Latin-1 characters (`io_lib:printable_latin1_list/1`).
fn printable(b: u8) -> bool {
    matches!(b, 32..=126 | 160..=255 | 8..=13 | 27)
}

/// Words Erlang reserves, which an atom must be quoted to be (OTP 25).
const RESERVED: [&str; 27] = [
    "after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr", "bxor", "case",
    "catch", "cond", "div", "end", "fun", "if", "let", "not", "of", "or", "orelse", "receive",
    "rem", "try", "when", "xor",
];

/// An atom in Erlang syntax, quoted where Erlang quotes it.
pub(super) fn write_atom(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let mut chars = name.chars();
    let bare = chars.next().is_some_and(starts_name)
        && chars.all(continues_name)
        && !RESERVED.contains(&name);
    if bare {
        f.write_str(name)
    } else {
        write_quoted(f, name.chars(), '\'')
    }
}

/// A lowercase letter, ASCII or Latin-1 (`ß` to `ÿ`, but not `÷`).
fn starts_name(c: char) -> bool {
    c.is_ascii_lowercase() || matches!(u32::from(c), 223..=255 if c != '÷')
}

/// A letter, digit, `_` or `@`, Latin-1 letters included (not `×` or `÷`).
fn continues_name(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || c == '_'
        || c == '@'
        || matches!(u32::from(c), 192..=255 if c != '×' && c != '÷')
}

/// Text between `quote`s, escaped as Erlang escapes it.
fn write_quoted(
    f: &mut fmt::Formatter<'_>,
    text: impl Iterator<Item = char>,
    quote: char,
) -> fmt::Result {
    f.write_char(quote)?;
    for c in text {
        match c {
            '\\' => f.write_str("\\\\")?,
            c if c == quote => write!(f, "\\{c}")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{b}' => f.write_str("\\v")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            '\u{1b}' => f.write_str("\\e")?,
            '\u{7f}' => f.write_str("\\d")?,
            c if u32::from(c) < 32 || (128..160).contains(&u32::from(c)) => {
                write!(f, "\\{:03o}", u32::from(c))?
            }
            c => f.write_char(c)?,
        }
    }
    f.write_char(quote)
}

/// A float as Erlang prints it (see the module docs).
fn write_float(f: &mut fmt::Formatter<'_>, x: f64) -> fmt::Result {
    if !x.is_finite() {
        // Erlang has none; Rust's own spelling.
        return write!(f, "{x}");
    }
    // Rust's `{:e}` gives the shortest digits that read back as `x`: `1.2345e-4`, `1e6`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("a decimal exponent");
    let digits = round_half_even(
        x.abs(),
        mantissa.chars().filter(|c| *c != '.').collect(),
        exp,
    );
    let scientific = format!(
        "{}.{}e{exp}",
        &digits[..1],
        if digits.len() > 1 { &digits[1..] } else { "0" }
    );
    let plain = if exp < 0 {
        format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
    } else {
        let point = exp as usize + 1;
        if digits.len() <= point {
            format!("{digits}{}.0", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    };
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let shorter_scientific = scientific.len() < plain.len();
    if shorter_scientific || x.abs() >= 9_007_199_254_740_992.0 {
        write!(f, "{sign}{scientific}")
    } else {
        write!(f, "{sign}{plain}")
    }
}

/// Of two shortest digit strings exactly as close to `x`, Erlang (Ryu) takes the one ending
/// in an even digit; Rust's formatting takes the upper one. `digits` (`x` is `0.digits` times
/// `10^(exp+1)`) are Rust's.
fn round_half_even(x: f64, digits: String, exp: i32) -> String {
    let last = digits.as_bytes()[digits.len() - 1] - b'0';
    if last % 2 == 0 {
        return digits;
    }
    let lower = format!("{}{}", &digits[..digits.len() - 1], last - 1);
    let reads = |d: &str| format!("{}.{}e{exp}", &d[..1], &d[1..]).parse::<f64>().ok();
    if reads(&lower) != Some(x) {
        return digits;
    }
    // A tie: `x` is exactly `lower` followed by a 5. A double has at most 767 significant
    // decimal digits, so 800 show it exactly.
    let exact = format!("{x:.800e}");
    let exact: String = exact
        .split_once('e')
        .expect("`{:e}` has an exponent")
        .0
        .chars()
        .filter(|c| *c != '.')
        .collect();
    let tie = exact.starts_with(&lower)
        && exact[lower.len()..].starts_with('5')
        && exact[lower.len() + 1..].bytes().all(|b| b == b'0');
    if tie {
        lower
    } else {
        digits
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::values::term::Atom;

    fn atom(name: &str) -> String {
        Atom::new(name).unwrap().to_string()
    }

    /// Each pair: the term, and what an OTP 25 `erl` printed for it with `~tp`.
    #[test]
    fn atoms_print_as_in_erl() {
        for (name, erl) in [
            ("ok", "ok"),
            ("EXIT", "'EXIT'"),
            ("hello world", "'hello world'"),
            ("A", "'A'"),
            ("a@b", "a@b"),
            ("hello_World1", "hello_World1"),
            ("_x", "'_x'"),
            ("a.b", "'a.b'"),
            ("and", "'and'"),
            ("receive", "'receive'"),
            ("xor", "'xor'"),
            ("maybe", "maybe"),
            ("query", "query"),
            ("", "''"),
            ("a\\b", "'a\\\\b'"),
            ("it's", "'it\\'s'"),
            ("a\nb", "'a\\nb'"),
            ("a\u{1}b", "'a\\001b'"),
            ("a\u{7f}", "'a\\d'"),
            ("a\u{96}", "'a\\226'"),
            ("a\t\n\u{1b} ", "'a\\t\\n\\e '"),
            ("a\"b", "'a\"b'"),
            ("é", "é"),
            ("ñandu", "ñandu"),
            ("Ñ", "'Ñ'"),
            ("aÑ", "aÑ"),
            ("ß", "ß"),
            ("a÷", "'a÷'"),
            ("日本", "'日本'"),
        ] {
            assert_eq!(atom(name), erl, "{name:?}");
        }
    }

    #[test]
    fn floats_print_as_in_erl() {
        for (x, erl) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (1000.0, "1.0e3"),
            (10000.0, "1.0e4"),
            (123.0, "123.0"),
            (1230.0, "1230.0"),
            (12300.0, "1.23e4"),
            (1.0e15, "1.0e15"),
            (1.5e15, "1.5e15"),
            (1.0e20, "1.0e20"),
            (1.5e-7, "1.5e-7"),
            (0.01, "0.01"),
            (0.001, "0.001"),
            (0.0001, "0.0001"),
            (0.00001, "1.0e-5"),
            (0.0005, "0.0005"),
            (0.00012345, "1.2345e-4"),
            (123.456, "123.456"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (-5.5, "-5.5"),
            (2.5e300, "2.5e300"),
            (5.0e-324, "5.0e-324"),
            (1.7976931348623157e308, "1.7976931348623157e308"),
            (1000000.0, "1.0e6"),
            (12345678.9, "12345678.9"),
            (123456789012345680000.0, "1.2345678901234568e20"),
            (9007199254740992.0, "9.007199254740992e15"),
            (9007199254740991.0, "9007199254740991.0"),
            (0.30000000000000004, "0.30000000000000004"),
            // Two shortest forms exactly as close (...513.25): the even one.
            (2248112005364513.0 + 0.25, "2248112005364513.2"),
            (-(276580546844963.0 + 0.125), "-276580546844963.12"),
        ] {
            assert_eq!(Term::Float(x).to_string(), erl, "{x:e}");
        }
    }

    #[test]
    fn compound_terms_print_as_in_erl() {
        let a = Term::atom;
        let i = Term::Int;
        let pid = crate::values::pid::ProcessId::local(9, 0);
        for (t, erl) in [
            (
                Term::tuple([
                    a("shutdown"),
                    Term::tuple([a("failed_to_start_child"), a("db"), a("econnrefused")]),
                ]),
                "{shutdown,{failed_to_start_child,db,econnrefused}}",
            ),
            (
                Term::tuple([a("EXIT"), Term::Pid(pid), a("normal")]),
                "{'EXIT',<0.9.0>,normal}",
            ),
            (Term::binary("hi"), "<<\"hi\">>"),
            (Term::improper_list([a("a")], a("b")), "[a|b]"),
            (Term::improper_list([i(1), i(2)], i(3)), "[1,2|3]"),
            (
                Term::map([(a("k"), a("v")), (a("a"), Term::list([i(1), i(2)]))]),
                "#{a => [1,2],k => v}",
            ),
            (
                Term::map([
                    (Term::binary("k"), a("f")),
                    (Term::list([i(1)]), a("e")),
                    (Term::tuple([a("x")]), a("d")),
                    (a("a"), a("c")),
                    (Term::Float(1.0), a("b")),
                    (i(1), a("a")),
                ]),
                "#{1 => a,1.0 => b,a => c,{x} => d,[1] => e,<<\"k\">> => f}",
            ),
            (
                Term::map([(i(2), a("a")), (Term::Float(1.0), a("b"))]),
                "#{2 => a,1.0 => b}",
            ),
            (Term::list([i(104), i(105)]), "\"hi\""),
            (Term::list([i(104), i(105), i(300)]), "[104,105,300]"),
            (Term::list([i(97), i(34), i(98), i(10)]), "\"a\\\"b\\n\""),
            (Term::list([i(200), i(97)]), "\"Èa\""),
            (Term::list([i(160)]), "\"\u{a0}\""),
            (Term::list([i(7)]), "[7]"),
            (Term::list([i(27)]), "\"\\e\""),
            (Term::list([i(127)]), "[127]"),
            (Term::list([i(97), i(0)]), "[97,0]"),
            (Term::improper_list([i(97)], i(98)), "[97|98]"),
            (Term::list([Term::nil()]), "[[]]"),
            (Term::nil(), "[]"),
            (Term::tuple([]), "{}"),
            (Term::map([]), "#{}"),
            (Term::binary(vec![1, 2, 3]), "<<1,2,3>>"),
            (Term::binary(Vec::new()), "<<>>"),
            (Term::binary("a\"b\n"), "<<\"a\\\"b\\n\">>"),
            (Term::binary("a'b\\"), "<<\"a'b\\\\\">>"),
            (Term::binary("é"), "<<\"é\"/utf8>>"),
            (Term::binary("é\n"), "<<\"é\\n\"/utf8>>"),
            (Term::binary(vec![97, 200]), "<<\"aÈ\">>"),
            (Term::binary(vec![255]), "<<\"ÿ\">>"),
            (Term::binary(vec![127]), "<<127>>"),
            (Term::binary(vec![128]), "<<128>>"),
            (Term::binary("日本"), "<<230,151,165,230,156,172>>"),
            (
                Term::bits(vec![97, 98, 0b1010_0000], 3).unwrap(),
                "<<97,98,5:3>>",
            ),
            (Term::bits(vec![0x80], 1).unwrap(), "<<1:1>>"),
            (Term::bits(vec![0], 3).unwrap(), "<<0:3>>"),
            (
                Term::bits(vec![97, 98, 99, 0b0000_1010], 7).unwrap(),
                "<<97,98,99,5:7>>",
            ),
            (Term::bits(vec![255, 0x10], 4).unwrap(), "<<255,1:4>>"),
            (Term::tuple([a("a"), a("B"), a("c d")]), "{a,'B','c d'}"),
            (
                Term::tuple([Term::binary("hi"), Term::list([i(104), i(105)])]),
                "{<<\"hi\">>,\"hi\"}",
            ),
            (i(-5), "-5"),
            (
                Term::from(
                    "123456789012345678901234567890"
                        .parse::<num_bigint::BigInt>()
                        .unwrap(),
                ),
                "123456789012345678901234567890",
            ),
            (
                Term::from(
                    "-123456789012345678901234567890"
                        .parse::<num_bigint::BigInt>()
                        .unwrap(),
                ),
                "-123456789012345678901234567890",
            ),
        ] {
            assert_eq!(t.to_string(), erl);
        }
    }
}
