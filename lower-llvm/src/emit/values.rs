//! What the printed code refers to, and how each is spelled: values ([`Ref`]), block labels
//! ([`Label`]), literals, and identifiers, with the naming rules for parameters and functions.
//!
//! The spelling is apart from the [`Emitter`](super::Emitter) that tracks them so that every
//! name the printer makes up follows one scheme (`%.<inst>.<n>`, `.<inst>.b<k>`), which the
//! naming rules keep clear of the program's own names.

use atomir_ir::expand::Var;
use atomir_ir::lower::{Hex, NameRules, Spell};
use atomir_ir::{spell, Value};

use super::Scal;

/// A reference to an LLVM value, printed without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ref {
    /// A kernel parameter, printed by its own name.
    Param(Value),
    /// The `n`-th temporary of instruction `inst`: `%.<inst>.<n>`.
    Tmp(u32, u32),
    /// Variable `var` of instruction `inst`'s expansion.
    Var(u32, Var),
    /// A literal of a scalar type, from raw bits.
    Lit(u128, Scal),
    /// `zeroinitializer`.
    Zero,
    /// A pointer parameter of a Vulkan frame, viewed as the element type accessed through it
    /// (see [`super::vulkan`]).
    Bound(Value, Scal),
}

/// Where the numbers of expansion variables start: an instruction prints far fewer temporaries.
const VAR_NUMBERS: u32 = 1_000_000;

impl Ref {
    /// For a register the printer makes up, `%.<inst>.<number>`: its instruction and number.
    pub(crate) fn register(self) -> Option<(u32, u32)> {
        match self {
            Ref::Tmp(inst, n) => Some((inst, n)),
            // Numbered far above the instruction's temporaries, which count from 1.
            Ref::Var(inst, var) => Some((inst, VAR_NUMBERS + var.as_u32())),
            _ => None,
        }
    }
}

/// Parameter names: any string, quoted where needed, but none starting with `.`, which every
/// name the printer makes up does (`%.<inst>.<n>`, `%.out<i>`, `.entry`, `.<inst>.b<k>`).
pub(super) static VALUE_NAMES: NameRules = NameRules {
    char_ok: |_| true,
    well_formed: |name| !name.is_empty(),
    lead: "v",
    keywords: &[],
    prefixes: &["."],
    suffixes: &[],
};

/// Function names: any string, quoted where needed, but not LLVM's own `llvm.` namespace, which
/// llvm-as keeps for intrinsics. NVPTX function names become PTX symbols:
/// [`PTX_ENTRY_NAMES`] there.
///
/// [`PTX_ENTRY_NAMES`]: atomir_ir::lower::PTX_ENTRY_NAMES
pub(super) static FUNCTION_NAMES: NameRules = NameRules {
    char_ok: |_| true,
    well_formed: |name| !name.is_empty(),
    lead: "k",
    keywords: &[],
    prefixes: &["llvm."],
    suffixes: &[],
};

/// Writes `name` as an LLVM identifier after `sigil`, quoting it where it has other characters.
pub(crate) fn write_ident(out: &mut String, sigil: char, name: &str) {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_'));
    out.push(sigil);
    if plain {
        return out.push_str(name);
    }
    out.push('"');
    for c in name.chars() {
        if c == '"' || c == '\\' || !c.is_ascii() || c.is_ascii_control() {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                spell!(out, '\\', Hex::upper(byte, 2));
            }
        } else {
            out.push(c);
        }
    }
    out.push('"');
}

/// A number kept spelled in decimal. A kernel's instructions are printed and stored in order,
/// so the next number is mostly the last plus one, which changes only its last digits.
#[derive(Clone, Debug)]
pub(crate) struct Decimal {
    value: u32,
    digits: String,
}

impl Default for Decimal {
    fn default() -> Self {
        Decimal {
            value: 0,
            digits: String::from("0"),
        }
    }
}

impl Decimal {
    /// Makes it `value`.
    #[inline]
    pub(crate) fn set(&mut self, value: u32) {
        if value == self.value {
            return;
        }
        let last = self.digits.as_bytes().last().copied();
        match last {
            Some(digit) if Some(value) == self.value.checked_add(1) && digit != b'9' => {
                self.digits.truncate(self.digits.len() - 1);
                self.digits.push(char::from(digit + 1));
                self.value = value;
            }
            _ => self.set_slowly(value),
        }
    }

    /// [`Decimal::set`] where the last digit does not just go up: one more carries (the
    /// trailing nines turn to zeros and the digit before them goes up; a number of nines only
    /// grows a digit), any other number is respelled.
    fn set_slowly(&mut self, value: u32) {
        if Some(value) != self.value.checked_add(1) {
            return self.respell(value);
        }
        let nines = self
            .digits
            .bytes()
            .rev()
            .take_while(|&digit| digit == b'9')
            .count();
        let Some(up) = self.digits.len().checked_sub(nines + 1) else {
            return self.respell(value);
        };
        let digit = self.digits.as_bytes()[up];
        self.digits.truncate(up);
        self.digits.push(char::from(digit + 1));
        for _ in 0..nines {
            self.digits.push('0');
        }
        self.value = value;
    }

    /// The value spelled.
    #[inline]
    pub(crate) fn value(&self) -> u32 {
        self.value
    }

    fn respell(&mut self, value: u32) {
        self.value = value;
        self.digits.clear();
        value.spell(&mut self.digits);
    }

    #[cfg(test)]
    fn as_str(&self) -> &str {
        &self.digits
    }
}

impl Spell for Decimal {
    #[inline]
    fn spell(&self, out: &mut String) {
        out.push_str(&self.digits);
    }
}

/// A block label: the entry, or block `k` / the end of instruction `inst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Label {
    Entry,
    Block(u32, u32),
    End(u32),
}

impl Spell for Label {
    fn spell(&self, out: &mut String) {
        match self {
            Label::Entry => out.push_str(".entry"),
            Label::Block(inst, k) => spell!(out, '.', inst, ".b", k),
            Label::End(inst) => spell!(out, '.', inst, ".end"),
        }
    }
}

pub(super) fn write_literal(out: &mut String, bits: u128, scal: Scal) {
    match scal {
        Scal::I(width) => {
            let mask = if width >= 128 {
                u128::MAX
            } else {
                (1u128 << width) - 1
            };
            (bits & mask).spell(out);
        }
        Scal::Half => spell!(out, "0xH", Hex::upper(bits as u16, 4)),
        Scal::BFloat => spell!(out, "0xR", Hex::upper(bits as u16, 4)),
        Scal::F32 => spell!(out, "0x", Hex::upper(f32_bits_as_f64_bits(bits as u32), 16)),
        Scal::F64 => spell!(out, "0x", Hex::upper(bits as u64, 16)),
    }
}

/// LLVM writes `float` literals in `double` format; the conversion is exact and keeps NaN
/// payloads (a hardware conversion would quiet a signalling NaN).
fn f32_bits_as_f64_bits(bits: u32) -> u64 {
    let value = f32::from_bits(bits);
    if value.is_nan() {
        let sign = u64::from(bits >> 31) << 63;
        let mantissa = u64::from(bits & 0x7F_FFFF) << 29;
        sign | (0x7FFu64 << 52) | mantissa
    } else {
        f64::from(value).to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::Decimal;

    #[test]
    fn a_decimal_counts_up_and_jumps() {
        let mut number = Decimal::default();
        let mut spelled = Vec::new();
        for value in [
            0,
            1,
            2,
            9,
            10,
            11,
            99,
            100,
            101,
            1999,
            2000,
            7,
            8,
            1_000_000,
            4_294_967_295,
            0,
            1,
        ] {
            number.set(value);
            spelled.push(number.as_str().to_owned());
        }
        let expected = [
            "0",
            "1",
            "2",
            "9",
            "10",
            "11",
            "99",
            "100",
            "101",
            "1999",
            "2000",
            "7",
            "8",
            "1000000",
            "4294967295",
            "0",
            "1",
        ];
        assert_eq!(spelled, expected);
        let mut number = Decimal::default();
        for value in 1..=12_345 {
            number.set(value);
            assert_eq!(number.as_str(), value.to_string());
        }
        assert_eq!(number.as_str(), "12345");
    }
}
