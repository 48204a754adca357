//! Target names for IR names: valid in the target, injective, and clear of the printer's own.
//!
//! IR names are any strings (the text form allows `$`, a kernel built in code anything), while
//! each target has its own identifier syntax, reserved words, and names its printer makes up
//! from a value's name (PTX `<entry>_param_<i>`, vISA `v_<name>__e<i>`) or from nothing (LLVM
//! `%.<inst>.<n>`). A [`Namer`] maps the names of one namespace (a module's kernels, a kernel's
//! values) under one set of [`NameRules`]:
//!
//! - a name the rules allow keeps its spelling, so well-behaved programs print as they read;
//! - any other name is escaped: characters the target lacks become `_`, a [`NameRules::lead`]
//!   goes before a name that is malformed or starts with a reserved prefix, and `_<n>` after it
//!   until it is allowed and free.
//!
//! Every allowed name is claimed before any name is escaped, so an escaped name can never take
//! the spelling of a name that was valid as it stood; two IR names never get one target name.
//!
//! Architecture Invariant: every name a printer takes from the IR goes through a [`Namer`], and
//! every name a printer makes up is outside what its [`NameRules`] allow.

use std::borrow::Cow;
use std::collections::HashSet;

/// A printer's own suffix: `text`, followed by one or more decimal digits where `digits` holds.
///
/// A suffix must not match a name ending in `_<digits>` (the escape's counter), so that an
/// escaped name is always allowed.
#[derive(Clone, Copy, Debug)]
pub struct Suffix {
    /// The literal part of the suffix.
    pub text: &'static str,
    /// Whether decimal digits follow it.
    pub digits: bool,
}

impl Suffix {
    /// `text` exactly.
    pub const fn exact(text: &'static str) -> Self {
        Suffix {
            text,
            digits: false,
        }
    }

    /// `text` and a number.
    pub const fn numbered(text: &'static str) -> Self {
        Suffix { text, digits: true }
    }

    /// Whether `name` ends in this suffix.
    pub fn ends(&self, name: &str) -> bool {
        if !self.digits {
            return name.ends_with(self.text);
        }
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        stem.len() < name.len() && stem.ends_with(self.text)
    }
}

/// What a target accepts as a name in one namespace, and what its printer keeps for itself.
#[derive(Clone, Copy, Debug)]
pub struct NameRules {
    /// Whether a character may appear in a name; an escaped name has `_` for the others, so
    /// `_` must be allowed.
    pub char_ok: fn(char) -> bool,
    /// Whether a name of allowed characters is well formed (its first character, its length).
    pub well_formed: fn(&str) -> bool,
    /// Put before an escaped name that is malformed or starts with a reserved prefix; it must
    /// make any string of allowed characters well formed and start no reserved prefix.
    pub lead: &'static str,
    /// The target's reserved words.
    pub keywords: &'static [&'static str],
    /// Prefixes of the printer's own names.
    pub prefixes: &'static [&'static str],
    /// Suffixes the printer appends to a name of this namespace to make others.
    pub suffixes: &'static [Suffix],
}

impl NameRules {
    /// Whether `name` may be used as it is (where no other name has it).
    pub fn allows(&self, name: &str) -> bool {
        name.chars().all(self.char_ok)
            && (self.well_formed)(name)
            && !self.keywords.contains(&name)
            && !self.prefixes.iter().any(|prefix| name.starts_with(prefix))
            && !self.suffixes.iter().any(|suffix| suffix.ends(name))
    }
}

/// PTX function names, for every printer whose output becomes PTX (ours, and llc's from our
/// NVPTX LLVM IR): PTX identifiers (`[a-zA-Z][a-zA-Z0-9_$]*`, or `_`/`$` and at least one more
/// character), not the predefined `WARP_SZ` (ptxas 12.9 and 13.5 reject it; opcodes, directive
/// names and special-register names without `%` they accept), and never the symbol of another
/// function's parameter (`<name>_param_<i>`, our result pointers `<name>_out_<i>`: ptxas 12.9
/// and 13.5 crash on a module where one is). llc 22 refuses a function name with other
/// characters ("Symbol name with unsupported characters") and passes `1k`, `_` or `WARP_SZ`
/// through to PTX that ptxas rejects.
pub static PTX_ENTRY_NAMES: NameRules = NameRules {
    char_ok: |c| c.is_ascii_alphanumeric() || c == '_' || c == '$',
    well_formed: |name| {
        let mut chars = name.chars();
        match chars.next() {
            Some(c) if c.is_ascii_alphabetic() => true,
            Some('_' | '$') => chars.next().is_some(),
            _ => false,
        }
    },
    lead: "k",
    keywords: &["WARP_SZ"],
    prefixes: &[],
    suffixes: &[Suffix::numbered("_param_"), Suffix::numbered("_out_")],
};

/// [`NameRules::allows`] answered from byte masks for the common name: ASCII, no keyword of its
/// length, no prefix starting with its first byte, no suffix ending with its last. A namer asks
/// once per name, and a kernel has a name per value, so the rules' keyword and prefix lists
/// (PTX's 28 special registers) and one call of `char_ok` per character would otherwise be paid
/// for each of them; any name the masks cannot clear goes through [`NameRules::allows`] itself.
#[derive(Clone, Copy, Debug)]
struct Screen {
    /// Entry `b`: the ASCII character `b` is allowed (a table: one load per byte).
    ascii_ok: [bool; 128],
    /// Bit `n` (`n < 63`): a keyword has `n` bytes; bit 63: one has 63 or more.
    keyword_lengths: u64,
    /// Bit `b`: a keyword starts with the ASCII byte `b`; all ones where a keyword is empty or
    /// starts with another byte.
    keyword_firsts: u128,
    /// Bit `b`: a prefix starts with the ASCII byte `b`; all ones where a prefix is empty or
    /// starts with another byte.
    prefix_firsts: u128,
    /// Bit `b`: an exact suffix ends with the ASCII byte `b`; all ones where one is empty or
    /// ends with another byte.
    exact_lasts: u128,
    /// Bit `b`: a numbered suffix's text (before its number) ends with the ASCII byte `b`;
    /// all ones where one is empty or ends with another byte. A name ending in digits is
    /// checked only where the byte before its digits is one of these: value names such as
    /// `r123` end in digits, and each would otherwise be compared with every suffix.
    numbered_lasts: u128,
}

impl Screen {
    fn new(rules: &NameRules) -> Self {
        let byte_bit = |byte: Option<&u8>| match byte {
            Some(&b) if b.is_ascii() => 1u128 << b,
            _ => u128::MAX,
        };
        Screen {
            ascii_ok: std::array::from_fn(|b| (rules.char_ok)(char::from(b as u8))),
            keyword_lengths: rules
                .keywords
                .iter()
                .fold(0, |mask, keyword| mask | 1 << keyword.len().min(63)),
            keyword_firsts: rules.keywords.iter().fold(0, |mask, keyword| {
                mask | byte_bit(keyword.as_bytes().first())
            }),
            prefix_firsts: rules
                .prefixes
                .iter()
                .fold(0, |mask, prefix| mask | byte_bit(prefix.as_bytes().first())),
            exact_lasts: rules
                .suffixes
                .iter()
                .filter(|suffix| !suffix.digits)
                .fold(0, |mask, suffix| {
                    mask | byte_bit(suffix.text.as_bytes().last())
                }),
            numbered_lasts: rules
                .suffixes
                .iter()
                .filter(|suffix| suffix.digits)
                .fold(0, |mask, suffix| {
                    mask | byte_bit(suffix.text.as_bytes().last())
                }),
        }
    }

    /// Whether a suffix may end the (ASCII, non-empty) name `bytes`: `false` only where none
    /// does.
    fn may_end_in_suffix(&self, bytes: &[u8]) -> bool {
        let in_mask = |mask: u128, byte: Option<&u8>| byte.is_some_and(|&b| mask >> b & 1 == 1);
        if in_mask(self.exact_lasts, bytes.last()) || self.exact_lasts == u128::MAX {
            return true;
        }
        if !bytes.last().is_some_and(u8::is_ascii_digit) || self.numbered_lasts == 0 {
            return false;
        }
        let stem = bytes.iter().rposition(|b| !b.is_ascii_digit());
        let before_digits = stem.map(|index| &bytes[index]);
        self.numbered_lasts == u128::MAX || in_mask(self.numbered_lasts, before_digits)
    }

    /// Exactly [`NameRules::allows`] for the rules the screen was made from.
    fn allows(&self, rules: &NameRules, name: &str) -> bool {
        let bytes = name.as_bytes();
        let mut chars_ok = !bytes.is_empty();
        for &b in bytes {
            if !b.is_ascii() {
                return rules.allows(name);
            }
            chars_ok &= self.ascii_ok[usize::from(b)];
        }
        if bytes.is_empty() {
            return rules.allows(name);
        }
        let in_mask = |mask: u128, byte: Option<&u8>| byte.is_some_and(|&b| mask >> b & 1 == 1);
        chars_ok
            && (rules.well_formed)(name)
            && (self.keyword_lengths >> bytes.len().min(63) & 1 == 0
                || !in_mask(self.keyword_firsts, bytes.first())
                || !rules.keywords.contains(&name))
            && (!in_mask(self.prefix_firsts, bytes.first())
                || !rules.prefixes.iter().any(|prefix| name.starts_with(prefix)))
            && (!self.may_end_in_suffix(bytes)
                || !rules.suffixes.iter().any(|suffix| suffix.ends(name)))
    }
}

/// Names the members of one namespace; keeps its storage between namespaces.
#[derive(Debug)]
pub struct Namer {
    rules: &'static NameRules,
    screen: Screen,
    taken: HashSet<String>,
}

impl Namer {
    /// A namer under `rules` that has handed out no name yet.
    pub fn new(rules: &'static NameRules) -> Self {
        Namer {
            rules,
            screen: Screen::new(rules),
            taken: HashSet::new(),
        }
    }

    /// The target names of `names`, one namespace, in order: `out[i]` names `names[i]`.
    /// Names the rules allow are kept (a repeated one only the first time), borrowed; the
    /// others are escaped. Distinct entries of `out` for any input.
    pub fn assign<'a, I>(&mut self, names: I, out: &mut Vec<Cow<'a, str>>)
    where
        I: IntoIterator<Item = &'a str>,
        I::IntoIter: Clone,
    {
        self.assign_names(names, out, false);
    }

    /// [`Namer::assign`] for names known to be distinct, as a verified module's kernels and a
    /// verified kernel's values are (the verifier refuses a name defined twice): where every
    /// name is allowed, as in most programs, nothing is hashed or copied. Names that are not
    /// distinct would keep their one spelling.
    pub fn assign_distinct<'a, I>(&mut self, names: I, out: &mut Vec<Cow<'a, str>>)
    where
        I: IntoIterator<Item = &'a str>,
        I::IntoIter: Clone,
    {
        self.assign_names(names, out, true);
    }

    fn assign_names<'a, I>(&mut self, names: I, out: &mut Vec<Cow<'a, str>>, distinct: bool)
    where
        I: IntoIterator<Item = &'a str>,
        I::IntoIter: Clone,
    {
        let names = names.into_iter();
        self.taken.clear();
        out.clear();
        out.reserve(names.size_hint().0);
        let mut escapes = false;
        for name in names.clone() {
            let kept = self.screen.allows(self.rules, name)
                && (distinct || self.taken.insert(name.to_owned()));
            escapes |= !kept;
            // An empty entry is a placeholder: no target name is empty.
            out.push(Cow::Borrowed(if kept { name } else { "" }));
        }
        if !escapes {
            return;
        }
        if distinct {
            // The kept names, which no escaped name may take.
            let kept = out.iter().filter(|name| !name.is_empty());
            self.taken.extend(kept.map(|name| name.to_string()));
        }
        for (name, slot) in names.zip(out.iter_mut()) {
            if slot.is_empty() {
                *slot = Cow::Owned(self.escape(name));
            }
        }
    }

    /// A fresh allowed name for `name`, claimed.
    fn escape(&mut self, name: &str) -> String {
        let rules = self.rules;
        let mut base: String = name
            .chars()
            .map(|c| if (rules.char_ok)(c) { c } else { '_' })
            .collect();
        if !(rules.well_formed)(&base) || rules.prefixes.iter().any(|p| base.starts_with(p)) {
            base.insert_str(0, rules.lead);
        }
        if rules.allows(&base) && self.taken.insert(base.clone()) {
            return base;
        }
        let mut number = 1u32;
        loop {
            let candidate = format!("{base}_{number}");
            if !rules.allows(&candidate) {
                // A keyword or a reserved suffix caught the counter: move it off.
                base.push('_');
                number = 1;
                continue;
            }
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            number += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static RULES: NameRules = NameRules {
        char_ok: |c| c.is_ascii_alphanumeric() || c == '_',
        well_formed: |name| name.starts_with(|c: char| c.is_ascii_alphabetic()),
        lead: "n",
        keywords: &["ret", "do", "do_1"],
        prefixes: &["pm"],
        suffixes: &[Suffix::numbered("__e"), Suffix::exact("__f")],
    };

    fn assign<'a>(names: &[&'a str]) -> Vec<Cow<'a, str>> {
        let mut out = Vec::new();
        Namer::new(&RULES).assign(names.iter().copied(), &mut out);
        out
    }

    /// Over distinct names, both entry points agree, escapes included.
    #[test]
    fn distinct_names_are_named_alike_by_both_entry_points() {
        let sets: [&[&str]; 4] = [
            &["a", "b1", "c_d"],
            &["a$b", "a_b"],
            &["ret", "pm0", "", "_", "9", "x__e0", "x", "do"],
            &["a$b", "a%b", "a_b_1"],
        ];
        for names in sets {
            let mut distinct = Vec::new();
            Namer::new(&RULES).assign_distinct(names.iter().copied(), &mut distinct);
            assert_eq!(distinct, assign(names), "{names:?}");
        }
    }

    /// The screen answers exactly as the rules, for names around every keyword, prefix and
    /// suffix, non-ASCII and empty ones, under rules with empty and non-ASCII affixes too.
    #[test]
    fn the_screen_answers_as_the_rules() {
        static ODD: NameRules = NameRules {
            char_ok: |c| c != '%',
            well_formed: |_| true,
            lead: "n",
            keywords: &[
                "",
                "a_very_long_keyword_of_more_than_sixty_three_bytes_which_is_kept_too",
            ],
            prefixes: &["", "é"],
            suffixes: &[Suffix::exact(""), Suffix::exact("ü"), Suffix::numbered("")],
        };
        let parts = [
            "",
            "a",
            "A",
            "_",
            "$",
            "%",
            "0",
            "9",
            "__e",
            "__f",
            "ret",
            "do",
            "do_1",
            "pm",
            "é",
            "ü",
            "WARP_SZ",
            "_param_",
            "_out_",
            "a_very_long_keyword_of_more_than_sixty_three_",
            "bytes_which_is_kept_too",
        ];
        let mut checked = 0;
        for rules in [&RULES, &PTX_ENTRY_NAMES, &ODD] {
            let screen = Screen::new(rules);
            for a in parts {
                for b in parts {
                    for c in ["", "0", "12", "_"] {
                        let name = format!("{a}{b}{c}");
                        assert_eq!(screen.allows(rules, &name), rules.allows(&name), "{name:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 3 * 21 * 21 * 4);
    }

    #[test]
    fn allowed_names_keep_their_spelling() {
        assert_eq!(assign(&["a", "b1", "c_d"]), ["a", "b1", "c_d"]);
    }

    #[test]
    fn names_equal_after_mapping_stay_apart() {
        assert_eq!(assign(&["a$b", "a_b"]), ["a_b_1", "a_b"]);
        assert_eq!(assign(&["a$b", "a%b", "a_b_1"]), ["a_b", "a_b_2", "a_b_1"]);
    }

    #[test]
    fn keywords_prefixes_and_malformed_names_are_escaped() {
        assert_eq!(
            assign(&["ret", "pm0", "", "_", "9"]),
            ["ret_1", "npm0", "n", "n_", "n9"]
        );
    }

    #[test]
    fn the_printers_suffixes_are_never_a_names_end() {
        assert_eq!(assign(&["x", "x__e0", "x__f"]), ["x", "x__e0_1", "x__f_1"]);
        assert_eq!(assign(&["x$", "x_"]), ["x__1", "x_"]);
    }

    #[test]
    fn a_counter_that_makes_a_keyword_moves_off_it() {
        assert_eq!(assign(&["do"]), ["do__1"]);
    }

    #[test]
    fn a_repeated_name_is_kept_once() {
        assert_eq!(assign(&["a", "a"]), ["a", "a_1"]);
    }

    /// Every name made, with every suffix the printer may add, is distinct from every other, over
    /// many adversarial names.
    #[test]
    fn injective_with_the_printers_suffixes() {
        let parts = [
            "", "a", "_", "$", "__e", "0", "__f", "_1", "ret", "pm", "x_", "é",
        ];
        let mut names = Vec::new();
        for a in parts {
            for b in parts {
                for c in parts {
                    names.push(format!("{a}{b}{c}"));
                }
            }
        }
        names.sort();
        names.dedup();
        let mut out = Vec::new();
        Namer::new(&RULES).assign(names.iter().map(String::as_str), &mut out);
        let mut printed = HashSet::new();
        for name in &out {
            assert!(RULES.allows(name), "{name:?} is not allowed");
            for suffix in ["", "__e0", "__e12", "__f", "__e0__f"] {
                assert!(
                    printed.insert(format!("{name}{suffix}")),
                    "{name}{suffix} twice"
                );
            }
        }
        for (name, target) in names.iter().zip(&out) {
            if RULES.allows(name) {
                assert_eq!(name, &**target, "an allowed name was renamed");
            }
        }
    }

    #[test]
    fn ptx_entries_never_take_a_parameters_symbol() {
        let names = [
            "k",
            "k_param_0",
            "k_out_0",
            "k_param",
            "a$b",
            "a_b",
            "_",
            "$",
            "",
            "WARP_SZ",
            "1k",
            "é",
        ];
        let mut out = Vec::new();
        Namer::new(&PTX_ENTRY_NAMES).assign(names, &mut out);
        // `""` and `é` escape to `k` and `k_`, which `k` and `_` took first.
        let expected = [
            "k",
            "k_param_0_1",
            "k_out_0_1",
            "k_param",
            "a$b",
            "a_b",
            "k_",
            "k$",
            "k_1",
            "WARP_SZ_1",
            "k1k",
            "k__1",
        ];
        assert_eq!(out, expected);
        let mut symbols = HashSet::new();
        for name in &out {
            assert!(symbols.insert(name.to_string()), "{name} twice");
            for i in 0..3 {
                assert!(symbols.insert(format!("{name}_param_{i}")));
                assert!(symbols.insert(format!("{name}_out_{i}")));
            }
        }
    }
}
