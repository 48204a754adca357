//! The expansion's primitives: ALU, compare, select, memory, and the soft-float sequences
//! (float min/max with -0 < +0, bf16 arithmetic); the warp ones are in `warp.rs`.

use atomir_ir::expand::{BinaryOp, CmpCond, MemAttrs, Prim, PrimType, UnaryOp, Var};

use atomir_ir::lower::{reads_above_byte, FenceBracket, Unprintable};
use atomir_ir::spell;

use super::regs::Operand;
use super::{Class, KernelEmitter, Src, Temp, Walk};
use crate::legal::{PtxPlan, RmwForms};
use crate::spell::{PtxFlag, PtxRmw, PtxType};
use crate::target::Feature;

impl<'k> KernelEmitter<'k> {
    /// The one place the primitives of an expansion are printed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prim(
        &mut self,
        out: &mut String,
        plan: &PtxPlan,
        rmw: RmwForms,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        walk: Walk<'_>,
    ) -> Result<(), Unprintable> {
        use Operand::{Imm, T};
        let Walk {
            vars, expansion, ..
        } = walk;
        let given = bracket;
        let bracket = |mem: MemAttrs| given.unwrap_or(FenceBracket::bare(mem.order));
        let t = |v: Var| vars[v.as_u32() as usize];
        let ty = |v: Var| expansion.vars[v];
        match *prim {
            Prim::Const { dst, bits } => {
                let width = ty(dst).bits();
                self.mov_const(out, t(dst), width, bits);
            }
            Prim::Load { dst, addr, mem } => {
                self.load(
                    out,
                    plan,
                    mem,
                    bracket(mem),
                    t(dst),
                    self.memory_operand(addr, walk),
                );
            }
            Prim::Cas { .. } | Prim::Rmw { .. } => {
                self.atomic_prim(out, plan, rmw, prim, given, walk)?;
            }
            Prim::Unary { dst, op, src } => self.unary_prim(out, (dst, op, src), walk)?,
            Prim::Binary { .. } => self.binary_prim(out, prim, walk)?,
            Prim::Cmp { dst, cond, a, b } => {
                let bits = Class::of_prim(ty(a)).bits();
                let (a, b) = (
                    self.zero_extended(out, a, walk),
                    self.zero_extended(out, b, walk),
                );
                let cond = match cond {
                    CmpCond::Eq => "eq",
                    CmpCond::Ne => "ne",
                    CmpCond::Ult => "lo",
                    CmpCond::Ule => "ls",
                    CmpCond::Ugt => "hi",
                    CmpCond::Uge => "hs",
                };
                self.line(out, ("setp.", cond, ".u", bits), &[T(t(dst)), T(a), T(b)]);
            }
            Prim::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let bits = Class::of_prim(ty(dst)).bits();
                self.line(
                    out,
                    ("selp.b", bits),
                    &[T(t(dst)), T(t(if_true)), T(t(if_false)), T(t(cond))],
                );
            }
            Prim::PtrAlignDown { dst, ptr, align } => {
                let keep = !(u64::from(align) - 1);
                self.line(
                    out,
                    "and.b64",
                    &[T(t(dst)), T(t(ptr)), Imm(u128::from(keep))],
                );
            }
            Prim::PtrLowBits { dst, ptr, align } => {
                self.line(out, "cvt.u32.u64", &[T(t(dst)), T(t(ptr))]);
                self.line(
                    out,
                    "and.b32",
                    &[T(t(dst)), T(t(dst)), Imm(u128::from(align - 1))],
                );
            }
            Prim::PtrAdd { dst, .. } if walk.facts.folded_address(dst).is_some() => {}
            Prim::PtrAdd { dst, ptr, bytes } => {
                self.line(
                    out,
                    "add.u64",
                    &[T(t(dst)), T(t(ptr)), Imm(u128::from(bytes))],
                );
            }
            Prim::WarpActive { .. }
            | Prim::WarpBallot { .. }
            | Prim::WarpPeers { .. }
            | Prim::WarpLeads { .. }
            | Prim::WarpFirst { .. }
            | Prim::WarpSync { .. }
            | Prim::WarpBroadcast { .. }
            | Prim::WarpFromRank { .. }
            | Prim::WarpScan { .. } => self.warp_prim(out, prim, walk)?,
        }
        Ok(())
    }

    /// A `Cas` or `Rmw` primitive: one `atom` between the fences of its bracket.
    fn atomic_prim(
        &mut self,
        out: &mut String,
        plan: &PtxPlan,
        rmw: RmwForms,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        walk: Walk<'_>,
    ) -> Result<(), Unprintable> {
        let vars = walk.vars;
        let bracket = |mem: MemAttrs| bracket.unwrap_or(FenceBracket::bare(mem.order));
        let t = |v: Var| vars[v.as_u32() as usize];
        match *prim {
            Prim::Cas {
                dst,
                addr,
                expected,
                new,
                mem,
            } => {
                let bits = t(dst).class.bits();
                let bracket = bracket(mem);
                self.fence(out, bracket.leading, plan);
                self.atom_head(out, plan, mem, bracket.order, false);
                spell!(out, '.', PtxRmw::Cas, '.', PtxType::of_bits(bits), ' ');
                self.put_temp(out, t(dst));
                out.push_str(", ");
                self.put_address(out, self.memory_operand(addr, walk));
                out.push_str(", ");
                self.put_temp(out, t(expected));
                out.push_str(", ");
                self.put_temp(out, t(new));
                out.push_str(";\n");
                self.fence(out, bracket.trailing, plan);
            }
            Prim::Rmw {
                dst,
                op,
                ty: elem,
                addr,
                value,
                mem,
            } => {
                // The expansion was checked to have an element form before printing began.
                let Some(spelling) = rmw.of(op, elem) else {
                    return Err(Unprintable("an rmw without an element form".into()));
                };
                let value = if spelling.negate {
                    self.negate(out, Src::Temp(t(value)), elem)
                } else {
                    t(value)
                };
                let reduction = spelling.reduction;
                let bracket = bracket(mem);
                self.fence(out, bracket.leading, plan);
                self.atom_head(out, plan, mem, bracket.order, reduction);
                out.push('.');
                out.push_str(spelling.op.as_str());
                if spelling.noftz {
                    spell!(out, '.', PtxFlag::Noftz);
                }
                let policy = self.rmw_policy.filter(|_| spelling.hint);
                if policy.is_some() {
                    spell!(out, '.', PtxFlag::CacheHint);
                }
                out.push('.');
                out.push_str(spelling.ty.as_str());
                out.push(' ');
                if !reduction {
                    let dst = match dst {
                        Some(dst) => t(dst),
                        None => self.temp(Class::of_bits(elem.bits())),
                    };
                    self.put_temp(out, dst);
                    out.push_str(", ");
                }
                self.put_address(out, self.memory_operand(addr, walk));
                out.push_str(", ");
                self.put_temp(out, value);
                if let Some(policy) = policy {
                    out.push_str(", ");
                    self.put_temp(out, policy);
                }
                out.push_str(";\n");
                self.fence(out, bracket.trailing, plan);
            }
            _ => {}
        }
        Ok(())
    }

    /// A `Unary` primitive: `dst = op src`.
    fn unary_prim(
        &mut self,
        out: &mut String,
        (dst, op, src): (Var, UnaryOp, Var),
        walk: Walk<'_>,
    ) -> Result<(), Unprintable> {
        let Walk {
            vars, expansion, ..
        } = walk;
        use Operand::T;
        let t = |v: Var| vars[v.as_u32() as usize];
        let ty = |v: Var| expansion.vars[v];
        let src_var = src;
        let (dt, st) = (ty(dst), ty(src));
        let (dc, sc) = (Class::of_prim(dt), Class::of_prim(st));
        match op {
            UnaryOp::Not if dc == Class::Pred => {
                self.line(out, "not.pred", &[T(t(dst)), T(t(src))]);
            }
            UnaryOp::Not => {
                let opcode = match dc {
                    Class::B16 => "not.b16",
                    Class::B32 => "not.b32",
                    Class::B64 => "not.b64",
                    _ => "not.b128",
                };
                self.line(out, opcode, &[T(t(dst)), T(t(src))]);
            }
            UnaryOp::Copy => {
                self.mov(out, Src::Temp(t(dst)), Src::Temp(t(src)), dc.bits());
            }
            UnaryOp::Bitcast => self.mov(out, Src::Temp(t(dst)), Src::Temp(t(src)), dc.bits()),
            UnaryOp::Zext | UnaryOp::Trunc if dc == sc => {
                let src = if op == UnaryOp::Zext {
                    self.zero_extended(out, src, walk)
                } else {
                    t(src)
                };
                self.mov(out, Src::Temp(t(dst)), Src::Temp(src), dc.bits());
            }
            UnaryOp::Zext | UnaryOp::Trunc => {
                if let (UnaryOp::Zext, Class::B32) = (op, dc) {
                    if let Some(wide) = self.entry_wide_read(src) {
                        self.mov(out, Src::Temp(t(dst)), Src::Temp(wide), 32);
                        return Ok(());
                    }
                }
                let src = if op == UnaryOp::Zext && !walk.facts.byte_shifted_out(dst) {
                    self.zero_extended(out, src, walk)
                } else {
                    t(src)
                };
                // For a result, and inside a loop where the half is a 16-bit float
                // (`unpack_float_halves`); an integer half inside a loop keeps the
                // shift, which ptxas folds into the arithmetic that follows
                // (`LEA.HI`) and not the unpack.
                let upper = match walk.facts.shifted(src_var, self.block) {
                    Some((word, 16))
                        if self.unpack_float_halves || expansion.results.contains(&dst) =>
                    {
                        Some(t(word))
                    }
                    _ => None,
                };
                if let (Class::B16, Some(word)) = (dc, upper) {
                    let low = self.temp(Class::B16);
                    out.push_str("\tmov.b32 {");
                    self.put_temp(out, low);
                    out.push_str(", ");
                    self.put_temp(out, t(dst));
                    out.push_str("}, ");
                    self.put_temp(out, word);
                    out.push_str(";\n");
                    return Ok(());
                }
                let opcode = match (dc, sc) {
                    (Class::B32, Class::B16) => "cvt.u32.u16",
                    (Class::B64, Class::B16) => "cvt.u64.u16",
                    (Class::B64, Class::B32) => "cvt.u64.u32",
                    (Class::B16, Class::B32) => "cvt.u16.u32",
                    (Class::B16, Class::B64) => "cvt.u16.u64",
                    _ => "cvt.u32.u64",
                };
                self.line(out, opcode, &[T(t(dst)), T(src)]);
            }
        }
        Ok(())
    }

    /// A `Binary` primitive: `dst = a op b`, the operands zero-extended where it reads above
    /// an 8-bit value's byte.
    fn binary_prim(
        &mut self,
        out: &mut String,
        prim: &Prim,
        walk: Walk<'_>,
    ) -> Result<(), Unprintable> {
        let Walk {
            vars, expansion, ..
        } = walk;
        let Prim::Binary { dst, op, a, b } = *prim else {
            return Ok(());
        };
        let t = |v: Var| vars[v.as_u32() as usize];
        let ty = |v: Var| expansion.vars[v];
        let (a_var, b_var) = (a, b);
        let (reads_high_a, reads_high_b) = (reads_above_byte(prim, 0), reads_above_byte(prim, 1));
        let a = if reads_high_a {
            self.zero_extended(out, a, walk)
        } else {
            t(a)
        };
        let b = if reads_high_b {
            self.zero_extended(out, b, walk)
        } else {
            t(b)
        };
        // Signed 8-bit min/max compares the operands sign-extended to 16 bits.
        let (ty_dst, a, b) = match (op, ty(dst)) {
            (BinaryOp::SMin | BinaryOp::SMax, PrimType::I8) => (
                PrimType::I16,
                self.sign_extended_byte(out, a_var, a, walk),
                self.sign_extended_byte(out, b_var, b, walk),
            ),
            (_, ty_dst) => (ty_dst, a, b),
        };
        self.binary(out, op, ty_dst, t(dst), a, b)
            .map_err(|op| Unprintable(format!("{op:?} is rewritten by the soft-float pass")))?;
        Ok(())
    }
}

impl<'k> KernelEmitter<'k> {
    /// The 8-bit `var` (in register `reg`) sign-extended into a new 16-bit register: the byte
    /// of its word by `bfe.s32` where it was truncated from one ([`Facts::part`]), otherwise
    /// `cvt.s16.s8`.
    fn sign_extended_byte(
        &mut self,
        out: &mut String,
        var: Var,
        reg: Temp,
        walk: Walk<'_>,
    ) -> Temp {
        use Operand::{Imm, T};
        let extended = self.temp(Class::B16);
        match walk.facts.part(var, self.block) {
            Some((word, at)) => {
                let word = walk.vars[word.as_u32() as usize];
                let field = self.temp(Class::B32);
                self.line(
                    out,
                    "bfe.s32",
                    &[T(field), T(word), Imm(u128::from(at)), Imm(8)],
                );
                self.line(out, "cvt.u16.u32", &[T(extended), T(field)]);
            }
            _ => self.line(out, "cvt.s16.s8", &[T(extended), T(reg)]),
        }
        extended
    }

    pub(super) fn binary(
        &mut self,
        out: &mut String,
        op: BinaryOp,
        ty: PrimType,
        d: Temp,
        a: Temp,
        b: Temp,
    ) -> Result<(), BinaryOp> {
        use Operand::{Imm, T};
        let class = Class::of_prim(ty);
        let bits = class.bits();
        if class == Class::Pred {
            let opcode = match op {
                BinaryOp::And => "and.pred",
                BinaryOp::Or => "or.pred",
                _ => "xor.pred",
            };
            self.line(out, opcode, &[T(d), T(a), T(b)]);
            return Ok(());
        }
        let int = |this: &Self, out: &mut String, name: &str, kind: char, a: Temp, b: Temp| {
            this.line(out, (name, '.', kind, bits), &[T(d), T(a), T(b)]);
        };
        match op {
            BinaryOp::Add => int(self, out, "add", 'u', a, b),
            BinaryOp::Sub => int(self, out, "sub", 'u', a, b),
            BinaryOp::And => int(self, out, "and", 'b', a, b),
            BinaryOp::Or => int(self, out, "or", 'b', a, b),
            BinaryOp::Xor => int(self, out, "xor", 'b', a, b),
            BinaryOp::UMin => int(self, out, "min", 'u', a, b),
            BinaryOp::UMax => int(self, out, "max", 'u', a, b),
            BinaryOp::SMin => int(self, out, "min", 's', a, b),
            BinaryOp::SMax => int(self, out, "max", 's', a, b),
            BinaryOp::Shl | BinaryOp::LShr => {
                let amount = if bits == 32 {
                    b
                } else {
                    let amount = self.temp(Class::B32);
                    let cvt = if bits == 16 {
                        "cvt.u32.u16"
                    } else {
                        "cvt.u32.u64"
                    };
                    self.line(out, cvt, &[T(amount), T(b)]);
                    amount
                };
                let name = if op == BinaryOp::Shl { "shl" } else { "shr" };
                let kind = if op == BinaryOp::Shl { 'b' } else { 'u' };
                int(self, out, name, kind, a, amount);
            }
            BinaryOp::FAdd | BinaryOp::FSub => {
                let name = if op == BinaryOp::FAdd { "add" } else { "sub" };
                match ty {
                    PrimType::F32 => self.line(out, (name, ".rn.f32"), &[T(d), T(a), T(b)]),
                    PrimType::F64 => self.line(out, (name, ".rn.f64"), &[T(d), T(a), T(b)]),
                    PrimType::F16 => self.line(out, (name, ".rn.f16"), &[T(d), T(a), T(b)]),
                    _ if self.target.has(Feature::CvtBf16) => self.bf16_arith(out, name, d, a, b),
                    _ => return Err(op),
                }
            }
            BinaryOp::FMinAnyNan | BinaryOp::FMaxAnyNan => {
                let name = if op == BinaryOp::FMinAnyNan {
                    "min"
                } else {
                    "max"
                };
                // The soft-float pass makes these only for the types `PtxTarget::passes` names.
                let spelled = match ty {
                    PrimType::F64 => "f64",
                    PrimType::F16 => "f16",
                    PrimType::Bf16 => "bf16",
                    _ => "f32",
                };
                self.line(out, (name, '.', spelled), &[T(d), T(a), T(b)]);
            }
            // Rewritten by the soft-float pass before printing (`PtxTarget::passes`).
            BinaryOp::FMin | BinaryOp::FMax => return Err(op),
        }
        let _ = Imm;
        Ok(())
    }

    /// bf16 add/sub computed exactly in f32 and rounded once to nearest even by the target's
    /// conversion (innocuous double rounding: 24 >= 2 * 8 + 2); without one, the soft-float
    /// pass has rewritten it (`PtxTarget::passes`).
    pub(super) fn bf16_arith(&mut self, out: &mut String, name: &str, d: Temp, a: Temp, b: Temp) {
        use Operand::{Imm, T};
        let (wa, wb, sum) = (
            self.temp(Class::B32),
            self.temp(Class::B32),
            self.temp(Class::B32),
        );
        for (wide, narrow) in [(wa, a), (wb, b)] {
            self.line(out, "cvt.u32.u16", &[T(wide), T(narrow)]);
            self.line(out, "shl.b32", &[T(wide), T(wide), Imm(16)]);
        }
        self.line(out, (name, ".rn.f32"), &[T(sum), T(wa), T(wb)]);
        self.line(out, "cvt.rn.bf16.f32", &[T(d), T(sum)]);
    }
}
