//! The expansion's ALU primitives (float min/max and bf16 arithmetic come rewritten by the
//! soft-float pass).

use cranelift_entity::EntityRef;

use atomir_ir::expand::{BinaryOp, CmpCond, Expansion, Prim, PrimType, UnaryOp, Var};
use atomir_ir::lower::Hex;
use atomir_ir::spell;

use super::{low_mask, EmitError, EmitPart, Storage, View, VisaPrinter};

/// The register slots of a two-operand primitive and the type of its operands.
#[derive(Clone, Copy)]
struct TwoOperands {
    dst: usize,
    a: usize,
    b: usize,
    ty: PrimType,
}

impl<'m> VisaPrinter<'m> {
    /// The one place that prints the expansion's ALU primitives.
    pub(super) fn alu(&mut self, expansion: &Expansion, prim: &Prim) -> Result<(), EmitError> {
        let n = self.n;
        let s = |v: Var| self.var_slots[v.index()];
        let ty = |v: Var| expansion.vars[v];
        match *prim {
            Prim::Const { dst, bits } => {
                let bits = if ty(dst).bits() >= 128 {
                    bits
                } else {
                    bits & ((1u128 << ty(dst).bits()) - 1)
                };
                self.constant(s(dst), bits);
            }
            Prim::Unary { dst, op, src } => self.unary(expansion, dst, op, src),
            Prim::Binary { dst, op, a, b } => {
                self.binary(op, self.operands(expansion, dst, a, b))?;
            }
            Prim::Cmp { dst, cond, a, b } => {
                self.compare(cond, self.operands(expansion, dst, a, b))?;
            }
            Prim::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let (d, p, x, y) = (s(dst), s(cond), s(if_true), s(if_false));
                let cols: &[u32] = if ty(dst).bits() == 64 { &[0, 1] } else { &[0] };
                for &col in cols {
                    let (view, stride) = if cols.len() == 2 {
                        (View::Halves, 2)
                    } else {
                        (View::Base, 1)
                    };
                    self.op_start(Some((p, false)), "sel", n);
                    self.dst(d, view, col, stride);
                    self.body.push(' ');
                    self.src(x, view, col, stride);
                    self.body.push(' ');
                    self.src(y, view, col, stride);
                    self.body.push('\n');
                }
            }
            Prim::PtrAlignDown { dst, ptr, align } => {
                let (d, p) = (s(dst), s(ptr));
                if self.slots[p].storage == Storage::Qword {
                    self.half_line("and", n, d, p, 0, Some(!(align - 1)));
                    self.half_line("mov", n, d, p, 1, None);
                } else {
                    self.whole_line("and", n, d, p, Some(!(align - 1)));
                }
            }
            Prim::PtrLowBits { dst, ptr, align } => {
                let (d, p) = (s(dst), s(ptr));
                let (view, stride) = if self.slots[p].storage == Storage::Qword {
                    (View::Halves, 2)
                } else {
                    (View::Base, 1)
                };
                self.line(
                    "and",
                    n,
                    (d, View::Base, 0, 1),
                    (p, view, 0, stride),
                    None,
                    Some(align - 1),
                );
            }
            Prim::PtrAdd { dst, ptr, bytes } => {
                let (d, p) = (s(dst), s(ptr));
                if self.slots[p].storage == Storage::Qword {
                    // 64-bit add on dword halves: low + bytes, carry into the high half.
                    let carry = self.temp(Storage::Pred);
                    self.half_line("add", n, d, p, 0, Some(bytes));
                    self.op_start(None, "cmp.lt", n);
                    self.name(carry, View::Base);
                    self.body.push(' ');
                    self.src(d, View::Halves, 0, 2);
                    spell!(&mut self.body, ' ', Hex::prefixed(bytes), ":ud\n");
                    self.half_line("mov", n, d, p, 1, None);
                    self.op_start(Some((carry, false)), "add", n);
                    self.dst(d, View::Halves, 1, 2);
                    self.body.push(' ');
                    self.src(d, View::Halves, 1, 2);
                    self.body.push_str(" 0x1:ud\n");
                } else {
                    self.whole_line("add", n, d, p, Some(bytes));
                }
            }
            Prim::Load { .. } | Prim::Cas { .. } | Prim::Rmw { .. } => {
                return Err(EmitError::new(
                    EmitPart::Alu,
                    "memory primitive printed as ALU",
                ));
            }
            Prim::WarpActive { .. }
            | Prim::WarpBallot { .. }
            | Prim::WarpPeers { .. }
            | Prim::WarpLeads { .. }
            | Prim::WarpFirst { .. }
            | Prim::WarpScan { .. }
            | Prim::WarpBroadcast { .. }
            | Prim::WarpFromRank { .. }
            | Prim::WarpSync { .. } => {
                return Err(EmitError::new(
                    EmitPart::Alu,
                    "warp primitives: no vISA table combines lanes",
                ));
            }
        }
        Ok(())
    }

    /// `op d, a[, imm]` on two whole registers.
    fn whole_line(&mut self, op: &str, exec: u32, d: usize, a: usize, imm: Option<u32>) {
        self.line(
            op,
            exec,
            (d, View::Base, 0, 1),
            (a, View::Base, 0, 1),
            None,
            imm,
        );
    }

    /// `op d, a[, imm]` on dword column `col` (0 low, 1 high) of two 64-bit registers.
    fn half_line(&mut self, op: &str, exec: u32, d: usize, a: usize, col: u32, imm: Option<u32>) {
        self.line(
            op,
            exec,
            (d, View::Halves, col, 2),
            (a, View::Halves, col, 2),
            None,
            imm,
        );
    }

    /// A unary primitive: not, copies, zero extensions and truncations.
    fn unary(&mut self, expansion: &Expansion, dst: Var, op: UnaryOp, src: Var) {
        let n = self.n;
        let s = |v: Var| self.var_slots[v.index()];
        let ty = |v: Var| expansion.vars[v];
        let (d, a, from, to) = (s(dst), s(src), ty(src), ty(dst));
        match op {
            UnaryOp::Not if to == PrimType::Pred => {
                self.whole_line("not", n, d, a, None);
            }
            UnaryOp::Not if to.bits() == 64 => {
                self.line(
                    "not",
                    2 * n,
                    (d, View::Halves, 0, 1),
                    (a, View::Halves, 0, 1),
                    None,
                    None,
                );
            }
            UnaryOp::Not => {
                self.whole_line("not", n, d, a, None);
                self.mask(d, to.bits());
            }
            UnaryOp::Bitcast | UnaryOp::Copy => {
                if d != a {
                    self.copy(None, d, a);
                }
            }
            UnaryOp::Zext if to.bits() == 64 => {
                if from.bits() == 64 {
                    self.copy(None, d, a);
                } else {
                    self.line(
                        "mov",
                        n,
                        (d, View::Halves, 0, 2),
                        (a, View::Base, 0, 1),
                        None,
                        None,
                    );
                    self.op_start(None, "mov", n);
                    self.dst(d, View::Halves, 1, 2);
                    self.body.push_str(" 0x0:ud\n");
                }
            }
            UnaryOp::Zext => {
                self.whole_line("mov", n, d, a, None);
            }
            UnaryOp::Trunc => {
                if from.bits() == 64 {
                    self.line(
                        "mov",
                        n,
                        (d, View::Base, 0, 1),
                        (a, View::Halves, 0, 2),
                        None,
                        None,
                    );
                    self.mask(d, to.bits());
                } else {
                    self.whole_line("and", n, d, a, Some(low_mask(to.bits())));
                }
            }
        }
    }

    /// The slots of a two-operand primitive's destination and operands, and the operands' type.
    fn operands(&self, expansion: &Expansion, dst: Var, a: Var, b: Var) -> TwoOperands {
        let slot = |v: Var| self.var_slots[v.index()];
        TwoOperands {
            dst: slot(dst),
            a: slot(a),
            b: slot(b),
            ty: expansion.vars[a],
        }
    }

    /// A binary primitive (float min/max and bf16 arrive rewritten).
    fn binary(&mut self, op: BinaryOp, operands: TwoOperands) -> Result<(), EmitError> {
        let (n, has64) = (self.n, self.target.platform.has_64bit_alu());
        let (d, x, y, t) = (operands.dst, operands.a, operands.b, operands.ty);
        let bits = t.bits();
        let opname = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::FAdd | BinaryOp::FSub => "add",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::Shl => "shl",
            BinaryOp::LShr => "shr",
            BinaryOp::SMin | BinaryOp::UMin => "min",
            BinaryOp::SMax | BinaryOp::UMax => "max",
            // The hardware's float min/max may differ from the semantics on NaNs and
            // signed zeros: the soft-float pass (`VisaTarget::passes`) rewrites them.
            BinaryOp::FMin | BinaryOp::FMax | BinaryOp::FMinAnyNan | BinaryOp::FMaxAnyNan => {
                return Err(EmitError::new(
                    EmitPart::Alu,
                    format!("{op:?} is rewritten by the soft-float pass"),
                ));
            }
        };
        let negate = matches!(op, BinaryOp::Sub | BinaryOp::FSub);
        let bitwise = matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor);
        match t {
            PrimType::Pred => {
                if !bitwise {
                    return Err(EmitError::new(
                        EmitPart::Alu,
                        format!("{op:?} on predicates"),
                    ));
                }
                self.binary_line(opname, n, View::Base, d, x, y, false);
            }
            PrimType::F32 => self.binary_line(opname, n, View::F, d, x, y, negate),
            PrimType::F16 => {
                self.line(
                    opname,
                    n,
                    (d, View::Hf, 0, 2),
                    (x, View::Hf, 0, 2),
                    Some((y, View::Hf, 0, 2, negate)),
                    None,
                );
                self.mask(d, 16);
            }
            // bf16 arithmetic is rewritten by the soft-float pass (no bf16 ALU type).
            PrimType::Bf16 => {
                return Err(EmitError::new(
                    EmitPart::Alu,
                    format!("{op:?} on bf16 is not rewritten"),
                ))
            }
            PrimType::F64 | PrimType::I64 | PrimType::Ptr if bitwise => {
                self.binary_line(opname, 2 * n, View::Halves, d, x, y, false);
            }
            PrimType::F64 | PrimType::I64 if !has64 => {
                return Err(EmitError::new(
                    EmitPart::Alu,
                    format!("64-bit {op:?} on a platform without a 64-bit ALU"),
                ));
            }
            PrimType::F64 => self.binary_line(opname, n, View::Df, d, x, y, negate),
            PrimType::I64 => {
                let view = if matches!(op, BinaryOp::SMin | BinaryOp::SMax) {
                    View::Q
                } else {
                    View::Base
                };
                self.binary_line(opname, n, view, d, x, y, negate);
            }
            _ if matches!(op, BinaryOp::SMin | BinaryOp::SMax) && bits < 32 => {
                // Sign-extend the low bits into dword temps.
                let view = if bits == 16 { View::W } else { View::B };
                let stride = 32 / bits;
                let (ex, ey) = (self.temp(Storage::Dword), self.temp(Storage::Dword));
                self.line(
                    "mov",
                    n,
                    (ex, View::D, 0, 1),
                    (x, view, 0, stride),
                    None,
                    None,
                );
                self.line(
                    "mov",
                    n,
                    (ey, View::D, 0, 1),
                    (y, view, 0, stride),
                    None,
                    None,
                );
                self.binary_line(opname, n, View::D, d, ex, ey, false);
                self.mask(d, bits);
            }
            _ => {
                let view = if matches!(op, BinaryOp::SMin | BinaryOp::SMax) {
                    View::D
                } else {
                    View::Base
                };
                self.binary_line(opname, n, view, d, x, y, negate);
                if matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Shl) {
                    self.mask(d, bits);
                }
            }
        }
        Ok(())
    }

    /// A compare into a predicate; a 64-bit equality compares the halves' xor with zero.
    fn compare(&mut self, cond: CmpCond, operands: TwoOperands) -> Result<(), EmitError> {
        let (n, has64) = (self.n, self.target.platform.has_64bit_alu());
        let (d, x, y, ty) = (operands.dst, operands.a, operands.b, operands.ty);
        let c = match cond {
            CmpCond::Eq => "cmp.eq",
            CmpCond::Ne => "cmp.ne",
            CmpCond::Ult => "cmp.lt",
            CmpCond::Ule => "cmp.le",
            CmpCond::Ugt => "cmp.gt",
            CmpCond::Uge => "cmp.ge",
        };
        if ty.bits() == 64 {
            if matches!(cond, CmpCond::Eq | CmpCond::Ne) {
                let diff = self.temp(Storage::Qword);
                let any = self.temp(Storage::Dword);
                self.binary_line("xor", 2 * n, View::Halves, diff, x, y, false);
                self.line(
                    "or",
                    n,
                    (any, View::Base, 0, 1),
                    (diff, View::Halves, 0, 2),
                    Some((diff, View::Halves, 1, 2, false)),
                    None,
                );
                self.op_start(None, c, n);
                self.name(d, View::Base);
                self.body.push(' ');
                self.src(any, View::Base, 0, 1);
                self.body.push_str(" 0x0:ud\n");
                return Ok(());
            }
            if !has64 {
                return Err(EmitError::new(
                    EmitPart::Alu,
                    "64-bit ordered compare on a platform without a 64-bit ALU",
                ));
            }
        }
        self.op_start(None, c, n);
        self.name(d, View::Base);
        self.body.push(' ');
        self.src(x, View::Base, 0, 1);
        self.body.push(' ');
        self.src(y, View::Base, 0, 1);
        self.body.push('\n');
        Ok(())
    }
}
