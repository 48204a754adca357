//! Declarations: the registers of each scope with their types (`.reg .b32 %r<10>;` declares
//! `%r0` to `%r9`), the variables of the state spaces (`.shared .align 4 .b8 buf[64];`), and the
//! cache policies made by `createpolicy`.

use std::collections::HashMap;
use std::fmt;

use crate::spell::{PtxEviction, PtxSpace, PtxType};

/// The type of a declared register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegisterType {
    /// `.pred`.
    Pred,
    /// A fundamental type.
    Data(PtxType),
}

/// Why a declaration does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum DeclError {
    /// A `.reg` qualifier that is neither a type, a vector nor `.align`.
    UnknownRegisterType(String),
    /// A `.reg` declaration with no type qualifier.
    UntypedRegisters,
    /// A register range `%r<N>` whose `N` is not a count.
    RangeWithoutCount(String),
}

impl fmt::Display for DeclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeclError::UnknownRegisterType(qualifier) => {
                write!(f, "unknown register type `.{qualifier}`")
            }
            DeclError::UntypedRegisters => f.write_str("a `.reg` declaration without a type"),
            DeclError::RangeWithoutCount(name) => {
                write!(f, "a register range `{name}` without a count")
            }
        }
    }
}

/// What the reader knows of the names in scope: registers with their types, variables with
/// their state space. Scopes nest as the module's blocks do.
#[derive(Clone, Debug, Default)]
pub struct Declarations {
    scopes: Vec<Scope>,
    /// Whether a name that is not declared is an error (a whole module) or of the type the
    /// instruction needs (one instruction read on its own).
    strict: bool,
}

#[derive(Clone, Debug, Default)]
struct Scope {
    registers: HashMap<String, RegisterType>,
    /// `%r<10>`: the prefix `%r` and the count.
    ranges: Vec<(String, u64, RegisterType)>,
    variables: HashMap<String, PtxSpace>,
    policies: HashMap<String, PtxEviction>,
}

impl Declarations {
    /// No declarations: every register's type is unknown (the one-instruction entry checks no
    /// register type then).
    pub fn new() -> Self {
        Declarations {
            scopes: vec![Scope::default()],
            strict: false,
        }
    }

    /// Declarations where every register and variable must be declared (a whole module).
    pub(super) fn strict() -> Self {
        Declarations {
            strict: true,
            ..Declarations::new()
        }
    }

    /// Whether an undeclared name is an error.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// Declares `name` (with its `%`) as a register of type `ty`.
    pub fn declare_register(&mut self, name: &str, ty: RegisterType) {
        self.top().registers.insert(name.to_string(), ty);
    }

    /// Declares `name` as a variable of the state space `space`.
    pub fn declare_variable(&mut self, name: &str, space: PtxSpace) {
        self.top().variables.insert(name.to_string(), space);
    }

    /// The type of register `name`, if declared in a scope that is open.
    pub fn register(&self, name: &str) -> Option<RegisterType> {
        self.scopes.iter().rev().find_map(|scope| {
            scope.registers.get(name).copied().or_else(|| {
                scope.ranges.iter().find_map(|(prefix, count, ty)| {
                    let index = name.strip_prefix(prefix.as_str())?;
                    let digits_only = !index.is_empty()
                        && index.bytes().all(|b| b.is_ascii_digit())
                        && (index == "0" || !index.starts_with('0'));
                    let index: u64 = index.parse().ok().filter(|_| digits_only)?;
                    (index < *count).then_some(*ty)
                })
            })
        })
    }

    /// The state space of variable `name`, if declared.
    pub fn variable(&self, name: &str) -> Option<PtxSpace> {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.variables.get(name).copied())
    }

    /// The eviction policy a `createpolicy.fractional` with fraction 1.0 put in `register`.
    pub(super) fn policy(&self, register: &str) -> Option<PtxEviction> {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.policies.get(register).copied())
    }

    pub(super) fn open(&mut self) {
        self.scopes.push(Scope::default());
    }

    pub(super) fn close(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    fn top(&mut self) -> &mut Scope {
        if self.scopes.is_empty() {
            self.scopes.push(Scope::default());
        }
        let last = self.scopes.len() - 1;
        &mut self.scopes[last]
    }

    /// Reads a declaration statement (`.reg`, `.shared`, `.global`, … or a function's
    /// parameter list); `Err` names what does not parse. Other statements are left alone.
    pub(super) fn statement(&mut self, text: &str) -> Result<(), DeclError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let Some(&first) = words.first() else {
            return Ok(());
        };
        let first = match first {
            ".visible" | ".extern" | ".weak" | ".common" => match words.get(1) {
                Some(&word) => word,
                None => return Ok(()),
            },
            other => other,
        };
        match first {
            ".reg" => self.registers(text),
            ".global" | ".shared" | ".const" | ".local" => {
                let space = PtxSpace::from_name(&first[1..]).unwrap_or(PtxSpace::Global);
                let space = match words.iter().find_map(|w| w.strip_prefix(".shared::")) {
                    Some("cluster") => PtxSpace::SharedCluster,
                    _ => space,
                };
                if let Some(name) = variable_name(text) {
                    self.declare_variable(name, space);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `createpolicy.fractional.L2::evict_last{.L2::evict_unchanged}.b64 d, fraction;`: `d`
    /// holds the policy where the whole fraction (1.0, also the default) is evicted so.
    pub(super) fn create_policy(&mut self, opcode: &str, operands: &[&str]) {
        let mut parts = opcode.split('.');
        if parts.next() != Some("createpolicy") || parts.next() != Some("fractional") {
            return;
        }
        let Some(primary) = parts.next().and_then(PtxEviction::from_name) else {
            return;
        };
        let whole = match operands.get(1) {
            None => true,
            Some(fraction) => matches!(*fraction, "1.0" | "1" | "0f3F800000" | "0F3F800000"),
        };
        if let (Some(register), true) = (operands.first(), whole) {
            self.top().policies.insert(register.to_string(), primary);
        } else if let Some(register) = operands.first() {
            self.top().policies.remove(*register);
        }
    }

    fn registers(&mut self, text: &str) -> Result<(), DeclError> {
        let rest = text.trim_start().trim_start_matches(".reg").trim_start();
        let mut ty = None;
        let mut vector = false;
        let mut names = rest;
        while let Some(word) = names.strip_prefix('.') {
            let end = word
                .find(|c: char| c.is_ascii_whitespace())
                .unwrap_or(word.len());
            let qualifier = &word[..end];
            match qualifier {
                "pred" => ty = Some(RegisterType::Pred),
                "v2" | "v4" | "v8" => vector = true,
                _ => match PtxType::from_name(qualifier) {
                    Some(data) => ty = Some(RegisterType::Data(data)),
                    // `.align N` and other attributes carry no type.
                    None if qualifier == "align" => {}
                    None => return Err(DeclError::UnknownRegisterType(qualifier.to_owned())),
                },
            }
            names = word[end..].trim_start();
            if qualifier == "align" {
                names = names
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim_start();
            }
        }
        let Some(ty) = ty else {
            return Err(DeclError::UntypedRegisters);
        };
        if vector {
            // A vector register is read as a whole by no atomic instruction.
            return Ok(());
        }
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name.split_once('<') {
                Some((prefix, count)) => {
                    let count = count.trim_end_matches('>').trim();
                    let count: u64 = count
                        .parse()
                        .map_err(|_| DeclError::RangeWithoutCount(name.to_owned()))?;
                    self.top()
                        .ranges
                        .push((prefix.trim().to_string(), count, ty));
                }
                None => self.declare_register(name, ty),
            }
        }
        Ok(())
    }
}

/// The name a variable declaration declares: the last word before `[`, `=` or the end.
fn variable_name(text: &str) -> Option<&str> {
    let head = text.split(['[', '=']).next()?;
    let name = head.split_whitespace().last()?;
    (!name.starts_with('.')).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_lists_and_variables() {
        let mut decls = Declarations::new();
        decls.statement(".reg .b32 %r<10>").unwrap();
        decls.statement(".reg .f32 %f1, %f2").unwrap();
        decls.statement(".reg .pred %p<2>").unwrap();
        decls
            .statement(".shared .align 4 .b8 _ZZ1kE3buf[1024]")
            .unwrap();
        let r = RegisterType::Data(PtxType::B32);
        assert_eq!(decls.register("%r0"), Some(r));
        assert_eq!(decls.register("%r9"), Some(r));
        assert_eq!(decls.register("%r10"), None);
        assert_eq!(decls.register("%r01"), None);
        assert_eq!(
            decls.register("%f2"),
            Some(RegisterType::Data(PtxType::F32))
        );
        assert_eq!(decls.register("%p1"), Some(RegisterType::Pred));
        assert_eq!(decls.variable("_ZZ1kE3buf"), Some(PtxSpace::Shared));
        assert_eq!(
            decls.statement(".reg .q32 %x"),
            Err(DeclError::UnknownRegisterType("q32".into()))
        );
        assert_eq!(decls.statement(".reg %x"), Err(DeclError::UntypedRegisters));
        assert_eq!(
            decls.statement(".reg .b32 %r<n>"),
            Err(DeclError::RangeWithoutCount("%r<n>".into()))
        );
    }
}
