//! The typing rules of primitives ([`Prim::check_types`]), written once for the validator and
//! the interpreter.

use cranelift_entity::PrimaryMap;
use std::fmt;

use super::{BinaryOp, Prim, PrimType, UnaryOp, Var};
use crate::types::{AtomicOp, ElemType};

/// A primitive whose registers do not have the types it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeError {
    /// The offending register.
    pub var: Var,
    /// The register's type, `None` when the register does not exist.
    pub found: Option<PrimType>,
    /// What the primitive needs of it.
    pub detail: &'static str,
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.found {
            Some(found) => write!(f, "{} has type {found}: {}", self.var, self.detail),
            None => write!(f, "{} does not exist: {}", self.var, self.detail),
        }
    }
}

impl Prim {
    /// Checks the types of the registers this primitive reads and defines: the one place the
    /// typing rules of primitives are written (the validator and the interpreter both use it).
    pub fn check_types(&self, vars: &PrimaryMap<Var, PrimType>) -> Result<(), TypeError> {
        let types = Typing { vars };
        match *self {
            Prim::Const { dst, .. } => types.ty(dst, "a constant's register").map(drop),
            Prim::Load { dst, addr, .. } => {
                types.expect_if(dst, PrimType::is_int, "a load defines an integer")?;
                types.expect(addr, PrimType::Ptr, "an address")
            }
            Prim::Cas {
                dst,
                addr,
                expected,
                new,
                ..
            } => {
                let width = types.expect_if(dst, PrimType::is_int, "a cas defines an integer")?;
                types.expect(addr, PrimType::Ptr, "an address")?;
                types.expect(expected, width, "cas operands have the cas's type")?;
                types.expect(new, width, "cas operands have the cas's type")
            }
            Prim::Rmw {
                dst,
                op,
                ty: elem,
                addr,
                value,
                ..
            } => types.rmw(dst, op, elem, addr, value),
            Prim::Unary { dst, op, src } => types.unary(dst, op, src),
            Prim::Binary { dst, op, a, b } => types.binary(dst, op, a, b),
            Prim::Cmp { dst, a, b, .. } => {
                let operand = types.expect_if(
                    a,
                    |t| t.is_int() || t == PrimType::Ptr || t == PrimType::Pred,
                    "comparisons are on integer bit patterns",
                )?;
                types.expect(b, operand, "compared values have one type")?;
                types.expect(dst, PrimType::Pred, "a comparison gives a predicate")
            }
            Prim::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                types.expect(cond, PrimType::Pred, "a select condition is a predicate")?;
                let value = types.ty(if_true, "a selected value")?;
                types.expect(if_false, value, "selected values have one type")?;
                types.expect(dst, value, "a select gives its values' type")
            }
            Prim::PtrAlignDown { dst, ptr, align } => {
                types.expect(ptr, PrimType::Ptr, "an address")?;
                types.expect(dst, PrimType::Ptr, "an aligned address")?;
                power_of_two(ptr, align)
            }
            Prim::PtrLowBits { dst, ptr, align } => {
                types.expect(ptr, PrimType::Ptr, "an address")?;
                types.expect(dst, PrimType::I32, "the low bits of an address are an i32")?;
                power_of_two(ptr, align)
            }
            Prim::PtrAdd { dst, ptr, .. } => {
                types.expect(ptr, PrimType::Ptr, "an address")?;
                types.expect(dst, PrimType::Ptr, "an offset address")
            }
            Prim::WarpActive { dst } => types.expect(dst, PrimType::I32, "a lane mask is an i32"),
            Prim::WarpBallot { dst, pred, members } => {
                types.expect(members, PrimType::I32, "a lane mask is an i32")?;
                types.expect(pred, PrimType::Pred, "a ballot counts a predicate")?;
                types.expect(dst, PrimType::I32, "a lane mask is an i32")
            }
            Prim::WarpPeers {
                dst, key, members, ..
            } => {
                types.expect(members, PrimType::I32, "a lane mask is an i32")?;
                types.expect(
                    key,
                    PrimType::Ptr,
                    "a warp's lanes are grouped by an address",
                )?;
                types.expect(dst, PrimType::I32, "a lane mask is an i32")
            }
            Prim::WarpLeads { dst, peers } | Prim::WarpFirst { dst, peers } => {
                types.expect(peers, PrimType::I32, "a lane mask is an i32")?;
                types.expect(dst, PrimType::Pred, "whether a lane leads is a predicate")
            }
            Prim::WarpSync { members } => {
                types.expect(members, PrimType::I32, "a lane mask is an i32")
            }
            Prim::WarpScan {
                dst,
                op,
                peers,
                members,
                value,
                ..
            } => {
                types.expect(peers, PrimType::I32, "a lane mask is an i32")?;
                types.expect(members, PrimType::I32, "a lane mask is an i32")?;
                let lane = types.ty(value, "a warp scan's value")?;
                if op.scan_identity(lane).is_none() {
                    return Err(TypeError {
                        var: value,
                        found: Some(lane),
                        detail: "a warp scan folds an associative, commutative integer op on at \
                                 most 64 bits, or float add on f32",
                    });
                }
                types.expect(dst, lane, "a warp scan gives its value's type")
            }
            Prim::WarpBroadcast {
                dst,
                peers,
                members,
                value,
            } => {
                types.expect(peers, PrimType::I32, "a lane mask is an i32")?;
                types.expect(members, PrimType::I32, "a lane mask is an i32")?;
                let lane = types.expect_if(
                    value,
                    |t| t.is_int() && t.bits() <= 64,
                    "a warp exchanges integers of at most 64 bits",
                )?;
                types.expect(dst, lane, "a broadcast gives its value's type")
            }
            Prim::WarpFromRank {
                dst,
                peers,
                members,
                value,
                rank,
            } => {
                types.expect(peers, PrimType::I32, "a lane mask is an i32")?;
                types.expect(members, PrimType::I32, "a lane mask is an i32")?;
                types.expect(rank, PrimType::I32, "a lane's rank is an i32")?;
                let lane = types.expect_if(
                    value,
                    |t| t.is_int() && t.bits() <= 64,
                    "a warp exchanges integers of at most 64 bits",
                )?;
                types.expect(dst, lane, "a value from another lane keeps its type")
            }
        }
    }
}

/// The registers' types, as [`Prim::check_types`] reads them.
struct Typing<'a> {
    vars: &'a PrimaryMap<Var, PrimType>,
}

impl Typing<'_> {
    /// The type of `var`, which must exist.
    fn ty(&self, var: Var, detail: &'static str) -> Result<PrimType, TypeError> {
        self.vars.get(var).copied().ok_or(TypeError {
            var,
            found: None,
            detail,
        })
    }

    /// That `var` has type `wanted`.
    fn expect(&self, var: Var, wanted: PrimType, detail: &'static str) -> Result<(), TypeError> {
        self.expect_if(var, |found| found == wanted, detail)
            .map(drop)
    }

    /// The type of `var`, which must satisfy `holds`.
    fn expect_if(
        &self,
        var: Var,
        holds: impl Fn(PrimType) -> bool,
        detail: &'static str,
    ) -> Result<PrimType, TypeError> {
        let found = self.ty(var, detail)?;
        if holds(found) {
            Ok(found)
        } else {
            Err(TypeError {
                var,
                found: Some(found),
                detail,
            })
        }
    }

    /// The types of an rmw: an address, and an operand and result of the natural type.
    fn rmw(
        &self,
        dst: Option<Var>,
        op: AtomicOp,
        elem: ElemType,
        addr: Var,
        value: Var,
    ) -> Result<(), TypeError> {
        if op == AtomicOp::Cas {
            return Err(TypeError {
                var: value,
                found: None,
                detail: "a cas is a Cas primitive, not an rmw",
            });
        }
        let natural = PrimType::natural(elem);
        self.expect(addr, PrimType::Ptr, "an address")?;
        self.expect(
            value,
            natural,
            "an rmw operand has the natural type of the rmw's type",
        )?;
        match dst {
            Some(dst) => self.expect(dst, natural, "an rmw result has the rmw's natural type"),
            None => Ok(()),
        }
    }

    /// The types of a unary op.
    fn unary(&self, dst: Var, op: UnaryOp, src: Var) -> Result<(), TypeError> {
        let from = self.ty(src, "a unary operand")?;
        let to = self.ty(dst, "a unary result")?;
        let fits = match op {
            UnaryOp::Copy => from == to,
            UnaryOp::Not => from == to && (from.is_int() || from == PrimType::Pred),
            UnaryOp::Bitcast => {
                from.bits() == to.bits() && from != PrimType::Pred && to != PrimType::Pred
            }
            UnaryOp::Zext => from.is_int() && to.is_int() && to.bits() >= from.bits(),
            UnaryOp::Trunc => from.is_int() && to.is_int() && to.bits() <= from.bits(),
        };
        if fits {
            Ok(())
        } else {
            Err(TypeError {
                var: src,
                found: Some(from),
                detail: match op {
                    UnaryOp::Copy => "a copy keeps its type",
                    UnaryOp::Not => "not keeps an integer or predicate type",
                    UnaryOp::Bitcast => "a bitcast keeps the width of a non-predicate",
                    UnaryOp::Zext => "zext widens an integer",
                    UnaryOp::Trunc => "trunc narrows an integer",
                },
            })
        }
    }

    /// The types of a binary op: one type, float or integer as the op wants.
    fn binary(&self, dst: Var, op: BinaryOp, a: Var, b: Var) -> Result<(), TypeError> {
        let operand = self.ty(a, "a binary operand")?;
        self.expect(b, operand, "binary operands have one type")?;
        self.expect(dst, operand, "a binary result has its operands' type")?;
        let float_op = op.is_float();
        let logical = matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor);
        let fits = if float_op {
            operand.is_float()
        } else {
            operand.is_int() || (logical && operand == PrimType::Pred)
        };
        if fits {
            Ok(())
        } else {
            Err(TypeError {
                var: a,
                found: Some(operand),
                detail: if float_op {
                    "float arithmetic needs a float type"
                } else {
                    "integer arithmetic needs integers (and/or/xor also take predicates)"
                },
            })
        }
    }
}

/// That an alignment is a power of two.
fn power_of_two(var: Var, align: u32) -> Result<(), TypeError> {
    if align.is_power_of_two() {
        Ok(())
    } else {
        Err(TypeError {
            var,
            found: None,
            detail: "alignment must be a power of two",
        })
    }
}
