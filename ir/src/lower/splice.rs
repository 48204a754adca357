//! Spliceable output: one instruction's code for the inside of a unit the client writes.
//!
//! # The splice contract
//!
//! The client lowers one instruction of a verified kernel with a [`SpliceNames`]:
//!
//! - **Values are the client's.** Every value the instruction reads (its address, operands,
//!   predicate) is bound to a name of the client's ([`SpliceNames::bind`]): a register for PTX
//!   and vISA, an SSA value for LLVM, written without its sigil (`%` in PTX and LLVM). A vector
//!   value is bound lane by lane ([`SpliceNames::bind_lanes`]) where the target keeps lanes in
//!   registers of their own (PTX, vISA) and whole where it has vector values (LLVM). The
//!   target's [`binding_types`](crate::lower::Backend::binding_types) lists the values, the
//!   number of names each takes and the type each name is declared with
//!   ([`BindingTypes`](super::BindingTypes)). An input left unbound is a refusal
//!   ([`KitRule::Unbound`](crate::rule::KitRule::Unbound)), never a guess; so is a binding of
//!   a value the instruction neither reads nor defines (an id out of its kernel's range, of
//!   another instruction or kernel: [`KitRule::SpliceValue`](crate::rule::KitRule::SpliceValue))
//!   and a binding of the wrong number of names
//!   ([`KitRule::SpliceName`](crate::rule::KitRule::SpliceName)). Bind each instruction's values
//!   alone ([`SpliceNames::clear`] between instructions).
//! - **The result is the client's too, or the fragment's.** A bound result is written to the
//!   client's name (PTX, vISA) or defined under it (LLVM: the fragment defines the SSA value).
//!   An unbound result gets a name of the fragment's. Either way [`Fragment::results`] says
//!   where the old value is.
//! - **Everything else the fragment makes up starts with the prefix**: temporaries, labels,
//!   blocks and their SSA values ([`SpliceNames::new`]). The client keeps every name of its own
//!   off the prefixes it hands out, and gives each fragment of one unit its own prefix such that
//!   no prefix starts another; [`SpliceNames::numbered`] makes such prefixes (`f0_`, `f1_`, …:
//!   every name a fragment makes up continues its prefix with a letter, so `f1_` and `f10_`
//!   never meet).
//! - **Declarations are the client's.** The fragment declares nothing; [`Fragment::temps`]
//!   lists each temporary with its type as the target spells it in a declaration, and the
//!   client declares them (PTX `.reg <ty> %<name>;`, vISA `.decl <name> <ty>`, views with
//!   `alias=<…>` after the variables they alias); LLVM fragments need none (their temporaries
//!   are SSA values defined in the code), but may call builtins whose `declare`s
//!   [`Fragment::declarations`] lists for the client's module.
//! - **Control flow** (LLVM): the client names the block the fragment starts in
//!   ([`SpliceNames::with_blocks`]: the predecessor, which the fragment's phis name) and the
//!   block it continues to. The code begins with the predecessor's terminator and ends with a
//!   branch to the continuation, so the client writes `<predecessor>:` (with any code of its
//!   own) before it and `<continuation>:` after it. PTX and vISA fragments fall through.
//!
//! # Naming conventions
//!
//! Names the fragment makes up are `<prefix><kind><number>` (or `<prefix><kind>` where one is
//! enough), kinds starting with a lowercase letter. The one place these names are written is
//! [`SpliceNames::write_made`]; each backend picks its kinds (PTX temporaries by register class,
//! `r`/`d`/`h`/`p`/`q`, labels `b`/`e`/`done`/`end`; vISA temporaries `t`, views of a variable
//! `<name>__<view>`, labels `b`/`done`; LLVM values `t`/`v`, blocks `b`/`end`, the result
//! `result`).

use smallvec::SmallVec;

use crate::kernel::Value;

/// The names a spliced fragment uses: the client's names of values, the prefix of the names
/// the fragment makes up, and (LLVM) the blocks around it. See the [module](self) for the
/// contract. Reusable: [`SpliceNames::set_prefix`] and [`SpliceNames::clear`] keep the storage.
#[derive(Clone, Debug, Default)]
pub struct SpliceNames {
    prefix: String,
    /// The bindings, in the order they were made: one instruction's few values, so a value is
    /// found by a short scan, and an id holds no storage beyond its own entry (a table indexed
    /// by id would grow with the largest id bound).
    bindings: Vec<(Value, Binding)>,
    blocks: Option<(String, String)>,
}

/// The client's name of one value: one name, or one per lane.
pub type Binding = SmallVec<[String; 1]>;

/// Why a prefix or a client's name cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpliceNameError(pub String);

impl std::fmt::Display for SpliceNameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpliceNameError {}

/// Whether `name` is an identifier every backend takes as it stands: `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl SpliceNames {
    /// Names for a fragment whose own names start with `prefix`, an identifier every backend
    /// takes (`[A-Za-z_][A-Za-z0-9_]*`).
    pub fn new(prefix: &str) -> Result<Self, SpliceNameError> {
        let mut names = SpliceNames::default();
        names.set_prefix(prefix)?;
        Ok(names)
    }

    /// Names for fragment number `number` of a unit: prefix `<base><number>_`. Prefixes made
    /// from one base this way never start one another.
    pub fn numbered(base: &str, number: u32) -> Result<Self, SpliceNameError> {
        let mut names = SpliceNames::default();
        names.set_numbered(base, number)?;
        Ok(names)
    }

    /// Changes the prefix, keeping the bindings.
    pub fn set_prefix(&mut self, prefix: &str) -> Result<(), SpliceNameError> {
        if !plain_identifier(prefix) {
            return Err(SpliceNameError(format!(
                "`{prefix}` is not a prefix every target takes: expected [A-Za-z_][A-Za-z0-9_]*"
            )));
        }
        self.prefix.clear();
        self.prefix.push_str(prefix);
        Ok(())
    }

    /// Changes the prefix to `<base><number>_` ([`SpliceNames::numbered`]), keeping the
    /// bindings.
    pub fn set_numbered(&mut self, base: &str, number: u32) -> Result<(), SpliceNameError> {
        if !plain_identifier(base) {
            return Err(SpliceNameError(format!(
                "`{base}` is not a prefix every target takes: expected [A-Za-z_][A-Za-z0-9_]*"
            )));
        }
        self.prefix.clear();
        crate::spell!(&mut self.prefix, base, number, '_');
        Ok(())
    }

    /// The prefix of every name the fragment makes up.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Binds `value` to the client's `name` (without its sigil). Bind only the values of the
    /// instruction spliced ([`splice`](crate::lower::splice_inst) refuses any other, as it
    /// refuses an id its kernel does not hold); the target's
    /// [`binding_types`](crate::lower::Backend::binding_types) lists them.
    pub fn bind(&mut self, value: Value, name: &str) -> &mut Self {
        let binding = self.entry(value);
        binding.clear();
        binding.push(name.to_owned());
        self
    }

    /// Binds the lanes of a vector value to the client's names, lane 0 first.
    pub fn bind_lanes<'a>(
        &mut self,
        value: Value,
        names: impl IntoIterator<Item = &'a str>,
    ) -> &mut Self {
        let binding = self.entry(value);
        binding.clear();
        binding.extend(names.into_iter().map(str::to_owned));
        self
    }

    /// The binding of `value`, made empty where there was none.
    fn entry(&mut self, value: Value) -> &mut Binding {
        match self.bindings.iter().position(|(bound, _)| *bound == value) {
            Some(index) => &mut self.bindings[index].1,
            None => {
                self.bindings.push((value, Binding::new()));
                &mut self.bindings.last_mut().expect("just pushed").1
            }
        }
    }

    /// Forgets every binding.
    pub fn clear(&mut self) {
        self.bindings.clear();
    }

    /// The client's names of `value`, if bound (to no name at all where
    /// [`SpliceNames::bind_lanes`] was handed none, which a splice refuses).
    pub fn binding(&self, value: Value) -> Option<&[String]> {
        self.bindings
            .iter()
            .find(|(bound, _)| *bound == value)
            .map(|(_, binding)| &binding[..])
    }

    /// Every binding, in the order made: the value and its names.
    pub fn bindings(&self) -> impl ExactSizeIterator<Item = (Value, &[String])> + '_ {
        self.bindings
            .iter()
            .map(|(value, binding)| (*value, &binding[..]))
    }

    /// The client's name of `value` whole (a scalar, or an LLVM vector), if bound so.
    pub fn name(&self, value: Value) -> Option<&str> {
        match self.binding(value) {
            Some([name]) => Some(name),
            _ => None,
        }
    }

    /// These names, with the fragment starting in the client's block `predecessor` and
    /// continuing to its block `continuation` (LLVM; without them the fragment names its own
    /// `<prefix>entry` and `<prefix>cont`).
    pub fn with_blocks(mut self, predecessor: &str, continuation: &str) -> Self {
        self.set_blocks(predecessor, continuation);
        self
    }

    /// Sets the blocks around the fragment ([`SpliceNames::with_blocks`]).
    pub fn set_blocks(&mut self, predecessor: &str, continuation: &str) {
        let (pred, cont) = self.blocks.get_or_insert_with(Default::default);
        pred.clear();
        pred.push_str(predecessor);
        cont.clear();
        cont.push_str(continuation);
    }

    /// The client's predecessor and continuation blocks, if named.
    pub fn blocks(&self) -> Option<(&str, &str)> {
        self.blocks
            .as_ref()
            .map(|(pred, cont)| (pred.as_str(), cont.as_str()))
    }

    /// Appends a name the fragment makes up: `<prefix><kind>[<number>]`. The one place such a
    /// name is spelled; `kind` starts with a lowercase letter.
    pub fn write_made(&self, out: &mut String, kind: &str, number: Option<u32>) {
        debug_assert!(kind.starts_with(|c: char| c.is_ascii_lowercase()));
        crate::spell!(out, self.prefix, kind);
        if let Some(number) = number {
            crate::spell!(out, number);
        }
    }

    /// A name the fragment makes up, as a new string ([`SpliceNames::write_made`]).
    pub fn made(&self, kind: &str, number: Option<u32>) -> String {
        let mut name = String::new();
        self.write_made(&mut name, kind, number);
        name
    }

    /// Whether the client's `name` lies in the fragment's namespace (it would clash).
    pub fn is_made(&self, name: &str) -> bool {
        name.strip_prefix(self.prefix.as_str())
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_lowercase()))
    }
}

/// A temporary a fragment needs, for the client to declare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentTemp {
    /// Its name, without a sigil.
    pub name: String,
    /// Its type as the target spells it in a declaration: PTX `.b32` (`.reg .b32 %<name>;`),
    /// vISA `v_type=G type=ud num_elts=16 align=GRF` (`.decl <name> <ty>`).
    pub ty: String,
}

/// Where a fragment leaves the old value of its instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentResult {
    /// The instruction's result value.
    pub value: Value,
    /// Its names, without a sigil: one, or one per lane ([`SpliceNames::bind_lanes`]).
    pub names: Binding,
    /// Whether the names are the client's (bound), rather than the fragment's own (then listed
    /// in [`Fragment::temps`] where the target declares registers).
    pub bound: bool,
}

/// One instruction's code for the inside of the client's unit. Reusable: lowering into a
/// fragment clears it first and keeps its storage and scratch space.
#[derive(Default)]
pub struct Fragment {
    /// The code, one instruction a line.
    pub code: String,
    /// The temporaries the code uses, for the client to declare.
    pub temps: Vec<FragmentTemp>,
    /// The instruction's result, if it has one.
    pub results: Vec<FragmentResult>,
    /// The number of instructions in the code (its lines less labels and comments): the size
    /// [`crate::lower::LowerOptions::plain_loops`] trades against contended speed.
    pub instructions: u32,
    /// What the code needs at the top level of the client's unit, one item a line: LLVM's
    /// `declare`s of the builtins it calls (SPIR-V loads, stores, fences). The client puts
    /// each distinct line in its module once.
    pub declarations: Vec<String>,
    /// What expanding the instruction reuses from one fragment to the next.
    pub(crate) scratch: super::Scratch,
}

impl std::fmt::Debug for Fragment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fragment")
            .field("code", &self.code)
            .field("temps", &self.temps)
            .field("results", &self.results)
            .field("instructions", &self.instructions)
            .field("declarations", &self.declarations)
            .finish()
    }
}

impl Fragment {
    /// Empties the fragment, keeping its storage.
    pub fn clear(&mut self) {
        self.code.clear();
        self.temps.clear();
        self.results.clear();
        self.instructions = 0;
        self.declarations.clear();
    }

    /// Lists a temporary for the client to declare.
    pub fn temp(&mut self, name: String, ty: impl Into<String>) {
        self.temps.push(FragmentTemp {
            name,
            ty: ty.into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    #[test]
    fn prefixes_must_be_plain_identifiers() {
        assert!(SpliceNames::new("f0_").is_ok());
        assert!(SpliceNames::new("_x").is_ok());
        for bad in ["", "0f", "a-b", "a$", "%a", "é"] {
            assert!(SpliceNames::new(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn numbered_prefixes_never_start_one_another() {
        let names: Vec<String> = (0..200)
            .map(|n| SpliceNames::numbered("f", n).unwrap().made("r", Some(n)))
            .collect();
        for (i, a) in names.iter().enumerate() {
            for (j, b) in names.iter().enumerate() {
                assert!(i == j || a != b);
            }
        }
        let one = SpliceNames::numbered("f", 1).unwrap();
        assert!(!one.is_made("f10_r0"));
        assert!(one.is_made("f1_r0"));
        assert!(!one.is_made("f1_0"));
    }

    #[test]
    fn bindings_are_kept_per_value() {
        let mut names = SpliceNames::new("p").unwrap();
        names
            .bind(Value::new(2), "x")
            .bind_lanes(Value::new(3), ["a", "b"]);
        assert_eq!(names.name(Value::new(2)), Some("x"));
        assert_eq!(names.binding(Value::new(3)).map(<[String]>::len), Some(2));
        assert_eq!(names.name(Value::new(3)), None);
        assert_eq!(names.binding(Value::new(0)), None);
        names.clear();
        assert_eq!(names.binding(Value::new(2)), None);
    }
}
