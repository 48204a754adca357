//! The spelling vocabulary, a leaf every layer may use: two-way spelled enums
//! ([`spelled!`](crate::spelled), [`UnknownName`]) and writing code into a `String` piece by
//! piece, what every printer appends text with.
//!
//! A lowering prints tens of pieces per atomic (keywords, names, labels, register numbers).
//! Through `write!`, each piece costs a pass of `core::fmt::write`, a call through a
//! `dyn fmt::Write` and, for an integer, `Formatter::pad_integral`; a name that is itself a
//! `Display` runs a nested `write!`. That machinery was most of a printer's time. A [`Spell`]
//! appends its text directly (`push_str`, a digit loop), and [`spell!`](crate::spell) appends
//! a list of them in order, so a line reads as the text it prints:
//!
//! ```
//! use atomir_ir::spell;
//! use atomir_ir::lower::Hex;
//!
//! let mut out = String::new();
//! spell!(&mut out, "  add.u32 %r", 12u32, ", ", Hex::prefixed(255u32), ";\n");
//! assert_eq!(out, "  add.u32 %r12, 0xff;\n");
//! ```

use std::fmt;

/// Declares an enum with one canonical spelling per variant: `ALL`, `as_str`, `from_name` and
/// `Display` from the one list, so parser and printer cannot drift. Backends use it for their
/// own spelled vocabularies.
#[macro_export]
macro_rules! spelled {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $($(#[$vmeta])* #[doc = ""] #[doc = concat!("Spelled `", $text, "`.")] $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The canonical spelling.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// Parses the canonical spelling.
            pub fn from_name(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::spelling::Spell for $name {
            fn spell(&self, out: &mut ::std::string::String) {
                out.push_str(self.as_str());
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::spelling::UnknownName;

            /// Parses the canonical spelling, as the text form writes it.
            fn from_str(text: &str) -> ::std::result::Result<Self, Self::Err> {
                Self::from_name(text).ok_or_else(|| {
                    $crate::spelling::UnknownName::new(
                        stringify!($name),
                        text,
                        Self::ALL.iter().map(|value| value.as_str()),
                    )
                })
            }
        }
    };
}

/// Why a spelling names no value of an enum: what was given and what is expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    message: String,
}

impl UnknownName {
    /// `text` names no `kind`; `expected` are the spellings that do.
    pub fn new<'a>(kind: &str, text: &str, expected: impl IntoIterator<Item = &'a str>) -> Self {
        let expected: Vec<&str> = expected.into_iter().collect();
        UnknownName {
            message: format!(
                "`{text}` is not a {kind}; expected one of {}",
                expected.join(", ")
            ),
        }
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for UnknownName {}

/// Something with a spelling in printed code.
pub trait Spell {
    /// Appends the spelling to `out`.
    fn spell(&self, out: &mut String);
}

/// Appends each piece's [`Spell::spell`] to `out` (a `&mut String`), in order.
#[macro_export]
macro_rules! spell {
    ($out:expr, $($piece:expr),+ $(,)?) => {{
        let out: &mut ::std::string::String = $out;
        $($crate::spelling::Spell::spell(&$piece, out);)+
    }};
}

impl Spell for str {
    #[inline]
    fn spell(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Spell for String {
    #[inline]
    fn spell(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Spell for char {
    #[inline]
    fn spell(&self, out: &mut String) {
        out.push(*self);
    }
}

impl<T: Spell + ?Sized> Spell for &T {
    #[inline]
    fn spell(&self, out: &mut String) {
        (**self).spell(out);
    }
}

impl<T: Spell + ?Sized> Spell for std::borrow::Cow<'_, T>
where
    T: ToOwned,
{
    #[inline]
    fn spell(&self, out: &mut String) {
        (**self).spell(out);
    }
}

/// A tuple spells its pieces in order: a piece of text made of parts (an opcode and its type
/// suffix, say) passed as one value without building a string.
macro_rules! tuples {
    ($(($($piece:ident),+)),+) => {$(
        impl<$($piece: Spell),+> Spell for ($($piece,)+) {
            #[inline]
            #[allow(non_snake_case)]
            fn spell(&self, out: &mut String) {
                let ($($piece,)+) = self;
                $($piece.spell(out);)+
            }
        }
    )+};
}

tuples!((A, B), (A, B, C), (A, B, C, D), (A, B, C, D, E));

/// A [`Spell`] as a [`Display`](std::fmt::Display), for the text around code that goes through
/// `format!` (a refusal's message), not for code: it spells into a new string each time.
#[derive(Clone, Copy, Debug)]
pub struct Displayed<T>(pub T);

impl<T: Spell> std::fmt::Display for Displayed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = String::new();
        self.0.spell(&mut text);
        f.write_str(&text)
    }
}

/// Appends `value` in decimal.
#[inline]
pub fn decimal(out: &mut String, value: u128) {
    match u64::try_from(value) {
        Ok(value) => decimal_u64(out, value),
        Err(_) => push_ascii(out, digits_of(value, 10, b'0', &mut [0u8; 39])),
    }
}

#[inline]
fn decimal_u64(out: &mut String, value: u64) {
    if value < 10 {
        out.push(char::from(b'0' + value as u8));
        return;
    }
    push_ascii(out, pairs_of(value, &mut [0u8; 20]));
}

/// Pushes ASCII bytes one by one: as a `str` they would be checked as UTF-8 first.
#[inline]
fn push_ascii(out: &mut String, ascii: &[u8]) {
    out.reserve(ascii.len());
    for &byte in ascii {
        out.push(char::from(byte));
    }
}

/// `00` to `99`, two bytes each.
const PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// The decimal digits of `value`, at the end of `buffer`, two at a time.
pub(crate) fn pairs_of(mut value: u64, buffer: &mut [u8; 20]) -> &[u8] {
    let mut start = buffer.len();
    while value >= 100 {
        let pair = (value % 100) as usize * 2;
        value /= 100;
        start -= 2;
        buffer[start..start + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if value >= 10 {
        let pair = value as usize * 2;
        start -= 2;
        buffer[start..start + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        start -= 1;
        buffer[start] = b'0' + value as u8;
    }
    &buffer[start..]
}

/// The digits of `value` in `radix` (10 or 16, letters from `a_or_upper_a`), at the end of
/// `buffer`.
fn digits_of(mut value: u128, radix: u128, a_or_upper_a: u8, buffer: &mut [u8]) -> &[u8] {
    let mut start = buffer.len();
    loop {
        start -= 1;
        let digit = (value % radix) as u8;
        buffer[start] = if digit < 10 {
            b'0' + digit
        } else {
            a_or_upper_a + digit - 10
        };
        value /= radix;
        if value == 0 {
            break;
        }
    }
    &buffer[start..]
}

macro_rules! unsigned {
    ($($ty:ty),+) => {$(
        impl Spell for $ty {
            #[inline]
            fn spell(&self, out: &mut String) {
                decimal_u64(out, u64::from(*self));
            }
        }
    )+};
}

unsigned!(u8, u16, u32, u64);

impl Spell for u128 {
    #[inline]
    fn spell(&self, out: &mut String) {
        decimal(out, *self);
    }
}

impl Spell for usize {
    #[inline]
    fn spell(&self, out: &mut String) {
        decimal_u64(out, *self as u64);
    }
}

macro_rules! signed {
    ($($ty:ty),+) => {$(
        impl Spell for $ty {
            #[inline]
            fn spell(&self, out: &mut String) {
                if *self < 0 {
                    out.push('-');
                }
                decimal_u64(out, u64::from(self.unsigned_abs()));
            }
        }
    )+};
}

signed!(i8, i16, i32, i64);

/// An unsigned integer in hexadecimal: `{:x}`, `{:#x}` or `{:0<width>X}` of `format!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hex {
    value: u128,
    /// The fewest digits, zeros in front.
    width: u8,
    upper: bool,
    prefixed: bool,
}

impl Hex {
    /// Lowercase digits, as `{:x}`.
    pub fn lower(value: impl Into<u128>) -> Hex {
        Hex {
            value: value.into(),
            width: 1,
            upper: false,
            prefixed: false,
        }
    }

    /// `0x` and lowercase digits, as `{:#x}`.
    pub fn prefixed(value: impl Into<u128>) -> Hex {
        Hex {
            prefixed: true,
            ..Hex::lower(value)
        }
    }

    /// Uppercase digits, at least `width` of them (zeros in front), as `{:0<width>X}`.
    pub fn upper(value: impl Into<u128>, width: u8) -> Hex {
        Hex {
            value: value.into(),
            width,
            upper: true,
            prefixed: false,
        }
    }
}

impl Spell for Hex {
    fn spell(&self, out: &mut String) {
        if self.prefixed {
            out.push_str("0x");
        }
        let mut buffer = [0u8; 32];
        let a = if self.upper { b'A' } else { b'a' };
        let digits = digits_of(self.value, 16, a, &mut buffer);
        for _ in digits.len()..usize::from(self.width) {
            out.push('0');
        }
        push_ascii(out, digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelled(piece: impl Spell) -> String {
        let mut out = String::new();
        piece.spell(&mut out);
        out
    }

    #[test]
    fn integers_spell_as_format_does() {
        let samples = [
            0u128,
            1,
            9,
            10,
            99,
            100,
            12_345,
            u128::from(u32::MAX),
            u128::from(u64::MAX) - 1,
            u128::from(u64::MAX),
            u128::from(u64::MAX) + 1,
            u128::MAX,
        ];
        for value in samples {
            assert_eq!(spelled(value), format!("{value}"));
            assert_eq!(spelled(Hex::lower(value)), format!("{value:x}"));
            assert_eq!(spelled(Hex::prefixed(value)), format!("{value:#x}"));
            assert_eq!(spelled(Hex::upper(value, 4)), format!("{value:04X}"));
            assert_eq!(spelled(Hex::upper(value, 16)), format!("{value:016X}"));
            if let Ok(small) = u64::try_from(value) {
                assert_eq!(spelled(small), format!("{small}"));
            }
        }
        let powers = (0..20).map(|power| 10u64.pow(power));
        let around_powers = powers.flat_map(|p| [p - 1, p, p + 1]);
        for value in (0..2_000u64)
            .chain(around_powers)
            .chain([1_000_002, u64::MAX])
        {
            assert_eq!(spelled(value), format!("{value}"));
            assert_eq!(spelled(value as u32), format!("{}", value as u32));
        }
        for value in [0i64, 1, -1, 42, -42, i64::MIN, i64::MAX] {
            assert_eq!(spelled(value), format!("{value}"));
        }
        assert_eq!(spelled(i8::MIN), "-128");
        assert_eq!(spelled(usize::MAX), format!("{}", usize::MAX));
    }

    #[test]
    fn a_tuple_spells_its_pieces_in_order() {
        assert_eq!(spelled(("add", '.', 'u', 32u32)), "add.u32");
        assert_eq!(spelled(("cvt.", 's', 32u32, ".s", 8u8,)), "cvt.s32.s8");
        assert_eq!(spelled(("x", Hex::prefixed(16u8))), "x0x10");
    }

    #[test]
    fn the_macro_appends_pieces_in_order() {
        let mut out = String::from(">");
        let name = String::from("x");
        spell!(
            &mut out,
            " %",
            name,
            '.',
            7u32,
            " = ",
            Hex::upper(0xabu8, 4),
            "\n"
        );
        assert_eq!(out, "> %x.7 = 00AB\n");
    }
}
