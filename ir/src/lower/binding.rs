//! What a client binds for a spliced instruction: every value the instruction reads or defines,
//! its role, and the type each of the client's names must have on the target.
//!
//! The types are the printer's own (the registers it reads, the SSA types it writes), asked of
//! the target through [`Target::splice_type`](super::Target::splice_type), so that the list a
//! client declares by and the code the fragment holds cannot disagree.

use std::fmt;

use crate::kernel::{InstData, Kernel, Operand, Scalar, Value};
use crate::types::{AddressSpace, ValueType};

/// What a value is to the instruction that reads or defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValueRole {
    /// The address of the first element (a pointer).
    Address,
    /// The operand (an element of it, for a brace list): for `cas` the expected value, for a
    /// store the value stored.
    Operand,
    /// `cas`'s new value.
    NewValue,
    /// The guard (a `pred`).
    Predicate,
    /// The old value the instruction returns; the fragment writes (PTX, vISA) or defines (LLVM)
    /// it.
    Result,
}

impl ValueRole {
    /// The role in words: `address`, `operand`, `new value`, `predicate`, `result`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ValueRole::Address => "address",
            ValueRole::Operand => "operand",
            ValueRole::NewValue => "new value",
            ValueRole::Predicate => "predicate",
            ValueRole::Result => "result",
        }
    }
}

impl fmt::Display for ValueRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a target keeps a value of one IR type in a spliced fragment: how many names the client
/// binds it to, and the type of each.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SpliceType {
    /// One name, or one per lane where the target keeps a vector's lanes in registers of their
    /// own (PTX, vISA).
    pub names: usize,
    /// The type of each name as the target spells it where the client declares it: a PTX
    /// register type (`.b16` for 8/16-bit data, `.b32` for f16x2, `.b64` for a pointer,
    /// `.pred`), a vISA variable's declaration (`v_type=G type=ud num_elts=16 align=GRF`), an
    /// LLVM type (`i32`, `<4 x float>`, `ptr addrspace(1)`, x86-64's `ptr`, `i1`).
    pub ty: String,
}

/// One value a spliced instruction reads or defines, and what the client binds it to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueBinding {
    /// What the value is to the instruction.
    pub role: ValueRole,
    /// The value, an id of the instruction's kernel.
    pub value: Value,
    /// The kernel's name of it, without `%`.
    pub name: String,
    /// Its IR type.
    pub ir_type: ValueType,
    /// The names to bind it to and their type on the target.
    pub splice: SpliceType,
    /// For a pointer, the address space its address lies in (the pointer type's).
    pub space: Option<AddressSpace>,
    /// Whether the client must bind it: every value read. A result may be left to the
    /// fragment, which then names it ([`super::Fragment::results`]).
    pub required: bool,
}

impl fmt::Display for ValueBinding {
    /// `operand %x (f32): 1 name of type .b32`, `address %p (ptr.global): 1 name of type
    /// .b64, an address in global`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} %{} ({}): {} name{} of type {}",
            self.role,
            self.name,
            self.ir_type,
            self.splice.names,
            if self.splice.names == 1 { "" } else { "s" },
            self.splice.ty
        )?;
        if let Some(space) = self.space {
            write!(f, ", an address in {space}")?;
        }
        if !self.required {
            f.write_str(", optional")?;
        }
        Ok(())
    }
}

/// Every value a spliced instruction reads or defines, each once, in the order address,
/// operands, new value, predicate, result. A fence has none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BindingTypes {
    /// The values, each listed once (under its first role).
    pub values: Vec<ValueBinding>,
}

impl BindingTypes {
    /// The values of one role.
    pub fn of_role(&self, role: ValueRole) -> impl Iterator<Item = &ValueBinding> + '_ {
        self.values.iter().filter(move |value| value.role == role)
    }

    /// The entry of `value`, if the instruction reads or defines it.
    pub fn get(&self, value: Value) -> Option<&ValueBinding> {
        self.values.iter().find(|binding| binding.value == value)
    }

    /// The instruction's values for `kernel`'s instruction `data`, typed by `splice_type`.
    pub(crate) fn of(
        kernel: &Kernel,
        data: &InstData,
        splice_type: impl Fn(ValueType) -> SpliceType,
    ) -> Self {
        let mut types = BindingTypes::default();
        let InstData::Atomic(atomic) = data else {
            return types;
        };
        let mut add = |value: Value, role: ValueRole| {
            let Some(data) = kernel.values.get(value) else {
                return;
            };
            if types.get(value).is_some() {
                return;
            }
            let space = match data.ty {
                ValueType::Ptr(space) => Some(space),
                _ => None,
            };
            types.values.push(ValueBinding {
                role,
                value,
                name: data.name.to_string(),
                ir_type: data.ty,
                splice: splice_type(data.ty),
                space,
                required: role != ValueRole::Result,
            });
        };
        add(atomic.addr, ValueRole::Address);
        let operands = [
            (atomic.operand, ValueRole::Operand),
            (atomic.new_value, ValueRole::NewValue),
        ];
        for (operand, role) in operands {
            let elements = match operand {
                None => &[][..],
                Some(Operand::Scalar(ref scalar)) => std::slice::from_ref(scalar),
                Some(Operand::Vector(list)) => kernel.checked_vector_elements(list).unwrap_or(&[]),
            };
            for scalar in elements {
                if let Scalar::Value(value) = scalar {
                    add(*value, role);
                }
            }
        }
        if let Some(predicate) = atomic.predicate {
            add(predicate.value, ValueRole::Predicate);
        }
        if let Some(result) = atomic.result {
            add(result, ValueRole::Result);
        }
        types
    }
}

impl fmt::Display for BindingTypes {
    /// One value a line ([`ValueBinding`]'s spelling); nothing for a fence.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for value in &self.values {
            writeln!(f, "{value}")?;
        }
        Ok(())
    }
}
