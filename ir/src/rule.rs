//! Rule ids: every refusal, and every emulation a table chooses for a non-obvious reason, names a
//! rule. Each backend declares its rules once with [`rules!`](crate::rules): a typed enum whose
//! variants carry the stable id and a one-line summary, and `ALL` to list them (the docs and a
//! test read it).

use std::fmt;

/// A rule as data: its stable id (`ptx.b128-needs-sm90`) and what it says in one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleId {
    id: &'static str,
    summary: &'static str,
}

impl RuleId {
    /// A rule with its stable id (`<backend>.<name>`, kebab-case) and one-line summary; the
    /// [`rules!`](crate::rules) enums build theirs with it.
    pub const fn new(id: &'static str, summary: &'static str) -> Self {
        RuleId { id, summary }
    }

    /// The stable id, `<backend>.<name>`.
    pub const fn id(self) -> &'static str {
        self.id
    }

    /// What the rule says, in one line.
    pub const fn summary(self) -> &'static str {
        self.summary
    }

    /// Whether the rule refuses the caller's input to the API rather than a node
    /// ([`KitRule::CALLERS_INPUT`]): the call is at fault, not the target.
    pub fn blames_caller(self) -> bool {
        KitRule::CALLERS_INPUT
            .iter()
            .any(|rule| rule.id() == self.id)
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

/// Declares a typed rule enum: `Variant = "backend.id": "summary",` per rule. The enum gets
/// `ALL`, `id()`, `summary()` and a conversion into [`RuleId`].
#[macro_export]
macro_rules! rules {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $id:literal: $summary:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        $vis enum $name {
            $($(#[$vmeta])* #[doc = concat!("`", $id, "`: ", $summary, ".")] $variant),+
        }

        impl $name {
            /// Every rule of this enum, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stable id.
            pub const fn id(self) -> &'static str {
                match self { $($name::$variant => $id),+ }
            }

            /// What the rule says, in one line.
            pub const fn summary(self) -> &'static str {
                match self { $($name::$variant => $summary),+ }
            }

            /// The rule as backend-independent data.
            pub const fn rule(self) -> $crate::rule::RuleId {
                $crate::rule::RuleId::new(self.id(), self.summary())
            }
        }

        impl From<$name> for $crate::rule::RuleId {
            fn from(rule: $name) -> Self {
                rule.rule()
            }
        }
    };
}

rules! {
    /// Rules of the target-independent framework itself.
    pub enum KitRule {
        Unprintable = "lower.unprintable":
            "the printer cannot print what the table accepted (a bug: the table and the printer disagree)",
        UndefinedNode = "lower.undefined-node":
            "the IR gives the node no meaning (an op its type lacks, an order its op has no part for)",
        Unverified = "lower.unverified":
            "the kernel built for a node does not verify (a bug of the builder)",
        ReadsRefused = "lower.reads-refused-result":
            "the instruction reads the result of an instruction left out of the code",
        NoSuchInstruction = "lower.no-such-instruction":
            "the kernel holds no instruction of that id (an id of another kernel)",
        Unbound = "lower.splice.unbound":
            "a spliced instruction reads a value bound to no name of the client's",
        SpliceName = "lower.splice.name":
            "a client's name is no plain identifier, lies in the fragment's namespace, or names a vector's lanes in the wrong number",
        SpliceValue = "lower.splice.value":
            "a bound value is not one the spliced instruction reads or defines (an id out of its kernel's range, of another kernel or of another instruction)",
        NoSuchKernel = "lower.no-such-kernel":
            "the module holds no kernel of that number",
    }
}

impl KitRule {
    /// The rules that refuse the caller's input to the API (an id it does not hold, a binding
    /// of a splice), not a node: no target would accept the call as it stands.
    pub const CALLERS_INPUT: &'static [KitRule] = &[
        KitRule::NoSuchKernel,
        KitRule::NoSuchInstruction,
        KitRule::Unbound,
        KitRule::SpliceName,
        KitRule::SpliceValue,
    ];
}
