//! The expansion's primitives: ALU, compare, select, memory, and the soft-float sequences
//! (float min/max with -0 < +0, bf16 arithmetic).

use std::fmt::Write;

use atomir_ir::expand::{BinaryOp, CmpCond, Expansion, MemAttrs, Prim, PrimType, UnaryOp, Var};
use atomir_ir::ElemType;

use atomir_ir::lower::FenceBracket;
use atomir_ir::semantics::canonical_nan;

use super::regs::{format_op, Operand};
use super::{Class, KernelEmitter, Src, Temp};
use crate::legal::{PtxOp, PtxPlan};
use crate::target::Feature;

/// The sign bits of a float or packed-float type, or `None` for integers.
pub(super) fn float_sign_mask(ty: ElemType) -> Option<u128> {
    match ty {
        ElemType::F16 | ElemType::Bf16 => Some(0x8000),
        ElemType::F32 => Some(0x8000_0000),
        ElemType::F64 => Some(0x8000_0000_0000_0000),
        ElemType::F16x2 | ElemType::Bf16x2 => Some(0x8000_8000),
        _ => None,
    }
}

impl<'k> KernelEmitter<'k> {
    /// `-x` in a register: integer negation, or a flip of the sign bit(s) of a float.
    pub(super) fn negate(&mut self, out: &mut String, src: Src, ty: ElemType) -> Temp {
        let class = Class::of_bits(ty.bits());
        let temp = self.temp(class);
        match float_sign_mask(ty) {
            Some(sign) => {
                let _ = write!(out, "\txor.b{} ", class.bits());
                self.put_temp(out, temp);
                out.push_str(", ");
                self.put(out, src);
                let _ = writeln!(out, ", {sign:#x};");
            }
            None => {
                let _ = write!(out, "\tneg.s{} ", class.bits());
                self.put_temp(out, temp);
                out.push_str(", ");
                self.put(out, src);
                out.push_str(";\n");
            }
        }
        temp
    }
}

impl<'k> KernelEmitter<'k> {
    /// The one place the primitives of an expansion are printed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prim(
        &mut self,
        out: &mut String,
        plan: &PtxPlan,
        element: Option<PtxOp>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        vars: &[Temp],
        expansion: &Expansion,
    ) {
        use Operand::{Imm, T};
        let bracket = |mem: MemAttrs| bracket.unwrap_or(FenceBracket::bare(mem.order));
        let t = |v: Var| vars[v.as_u32() as usize];
        let ty = |v: Var| expansion.vars[v];
        match *prim {
            Prim::Const { dst, bits } => {
                let width = ty(dst).bits();
                self.mov_const(out, t(dst), width, bits);
                self.zero_extended[dst.as_u32() as usize] = true;
            }
            Prim::Load { dst, addr, mem } => {
                self.load(out, plan, mem, bracket(mem), t(dst), t(addr));
            }
            Prim::Cas {
                dst,
                addr,
                expected,
                new,
                mem,
            } => {
                let bits = Class::of_prim(ty(dst)).bits();
                let bracket = bracket(mem);
                self.fence(out, bracket.leading, plan);
                self.atom_head(out, plan, mem, bracket.order, false);
                let _ = write!(out, ".cas.b{bits} ");
                self.put_temp(out, t(dst));
                out.push_str(", [");
                self.put_temp(out, t(addr));
                out.push_str("], ");
                self.put_temp(out, t(expected));
                out.push_str(", ");
                self.put_temp(out, t(new));
                out.push_str(";\n");
                self.fence(out, bracket.trailing, plan);
            }
            Prim::Rmw {
                dst,
                ty: elem,
                addr,
                value,
                mem,
                ..
            } => {
                // The expansion was checked to have an element form before printing began.
                let Some(spelling) = element else { return };
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
                    out.push_str(".noftz");
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
                out.push('[');
                self.put_temp(out, t(addr));
                out.push_str("], ");
                self.put_temp(out, value);
                out.push_str(";\n");
                self.fence(out, bracket.trailing, plan);
            }
            Prim::Unary { dst, op, src } => {
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
                        let known = self.zero_extended[src.as_u32() as usize];
                        self.zero_extended[dst.as_u32() as usize] = known;
                    }
                    UnaryOp::Bitcast => {
                        self.mov(out, Src::Temp(t(dst)), Src::Temp(t(src)), dc.bits())
                    }
                    UnaryOp::Zext | UnaryOp::Trunc if dc == sc => {
                        let src = if op == UnaryOp::Zext {
                            self.zero_extended(out, src, vars, expansion)
                        } else {
                            t(src)
                        };
                        self.mov(out, Src::Temp(t(dst)), Src::Temp(src), dc.bits());
                    }
                    UnaryOp::Zext | UnaryOp::Trunc => {
                        let src = if op == UnaryOp::Zext {
                            self.zero_extended(out, src, vars, expansion)
                        } else {
                            t(src)
                        };
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
            }
            Prim::Binary { dst, op, a, b } => {
                let (reads_high_a, reads_high_b) = match op {
                    BinaryOp::UMin | BinaryOp::UMax | BinaryOp::LShr => (true, true),
                    BinaryOp::Shl => (false, true),
                    _ => (false, false),
                };
                let known = |this: &Self, v: Var| this.zero_extended[v.as_u32() as usize];
                let dst_zero_extended = match op {
                    BinaryOp::UMin | BinaryOp::UMax | BinaryOp::LShr => true,
                    BinaryOp::And => known(self, a) || known(self, b),
                    BinaryOp::Or | BinaryOp::Xor => known(self, a) && known(self, b),
                    _ => false,
                };
                let a = if reads_high_a {
                    self.zero_extended(out, a, vars, expansion)
                } else {
                    t(a)
                };
                let b = if reads_high_b {
                    self.zero_extended(out, b, vars, expansion)
                } else {
                    t(b)
                };
                self.binary(out, op, ty(dst), t(dst), a, b);
                self.zero_extended[dst.as_u32() as usize] = dst_zero_extended;
            }
            Prim::Cmp { dst, cond, a, b } => {
                let bits = Class::of_prim(ty(a)).bits();
                let (a, b) = (
                    self.zero_extended(out, a, vars, expansion),
                    self.zero_extended(out, b, vars, expansion),
                );
                let cond = match cond {
                    CmpCond::Eq => "eq",
                    CmpCond::Ne => "ne",
                    CmpCond::Ult => "lo",
                    CmpCond::Ule => "ls",
                    CmpCond::Ugt => "hi",
                    CmpCond::Uge => "hs",
                };
                let _ = write!(out, "\tsetp.{cond}.u{bits} ");
                self.put_temp(out, t(dst));
                out.push_str(", ");
                self.put_temp(out, a);
                out.push_str(", ");
                self.put_temp(out, b);
                out.push_str(";\n");
            }
            Prim::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let bits = Class::of_prim(ty(dst)).bits();
                self.zero_extended[dst.as_u32() as usize] = self.zero_extended
                    [if_true.as_u32() as usize]
                    && self.zero_extended[if_false.as_u32() as usize];
                let _ = write!(out, "\tselp.b{bits} ");
                self.put_temp(out, t(dst));
                out.push_str(", ");
                self.put_temp(out, t(if_true));
                out.push_str(", ");
                self.put_temp(out, t(if_false));
                out.push_str(", ");
                self.put_temp(out, t(cond));
                out.push_str(";\n");
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
            Prim::PtrAdd { dst, ptr, bytes } => {
                self.line(
                    out,
                    "add.u64",
                    &[T(t(dst)), T(t(ptr)), Imm(u128::from(bytes))],
                );
            }
        }
    }
}

impl<'k> KernelEmitter<'k> {
    pub(super) fn binary(
        &mut self,
        out: &mut String,
        op: BinaryOp,
        ty: PrimType,
        d: Temp,
        a: Temp,
        b: Temp,
    ) {
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
            return;
        }
        let int = |this: &Self, out: &mut String, name: &str, kind: char, a: Temp, b: Temp| {
            let _ = write!(out, "\t{name}.{kind}{bits} ");
            this.put_temp(out, d);
            out.push_str(", ");
            this.put_temp(out, a);
            out.push_str(", ");
            this.put_temp(out, b);
            out.push_str(";\n");
        };
        match op {
            BinaryOp::Add => int(self, out, "add", 'u', a, b),
            BinaryOp::Sub => int(self, out, "sub", 'u', a, b),
            BinaryOp::And => int(self, out, "and", 'b', a, b),
            BinaryOp::Or => int(self, out, "or", 'b', a, b),
            BinaryOp::Xor => int(self, out, "xor", 'b', a, b),
            BinaryOp::UMin => int(self, out, "min", 'u', a, b),
            BinaryOp::UMax => int(self, out, "max", 'u', a, b),
            BinaryOp::SMin | BinaryOp::SMax if ty == PrimType::I8 => {
                let (sa, sb) = (self.temp(Class::B16), self.temp(Class::B16));
                self.line(out, "cvt.s16.s8", &[T(sa), T(a)]);
                self.line(out, "cvt.s16.s8", &[T(sb), T(b)]);
                let name = if op == BinaryOp::SMin { "min" } else { "max" };
                int(self, out, name, 's', sa, sb);
            }
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
                    PrimType::F32 => self.line(out, &format_op(name, "f32"), &[T(d), T(a), T(b)]),
                    PrimType::F64 => self.line(out, &format_op(name, "f64"), &[T(d), T(a), T(b)]),
                    PrimType::F16 => self.line(out, &format_op(name, "f16"), &[T(d), T(a), T(b)]),
                    _ => self.bf16_arith(out, name, d, a, b),
                }
            }
            BinaryOp::FMin | BinaryOp::FMax => self.float_min_max(out, op, ty, d, a, b),
        }
        let _ = Imm;
    }

    /// bf16 add/sub computed exactly in f32 and rounded once to nearest even (innocuous double
    /// rounding: 24 >= 2 * 8 + 2).
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
        self.line(out, &format_op(name, "f32"), &[T(sum), T(wa), T(wb)]);
        if self.target.has(Feature::CvtBf16) {
            self.line(out, "cvt.rn.bf16.f32", &[T(d), T(sum)]);
            return;
        }
        let (abs, lsb, rounded, quiet) = (
            self.temp(Class::B32),
            self.temp(Class::B32),
            self.temp(Class::B32),
            self.temp(Class::B32),
        );
        let nan = self.temp(Class::Pred);
        self.line(out, "and.b32", &[T(abs), T(sum), Imm(0x7fff_ffff)]);
        self.line(out, "setp.gt.u32", &[T(nan), T(abs), Imm(0x7f80_0000)]);
        self.line(out, "shr.u32", &[T(lsb), T(sum), Imm(16)]);
        self.line(out, "and.b32", &[T(lsb), T(lsb), Imm(1)]);
        self.line(out, "add.u32", &[T(lsb), T(lsb), Imm(0x7fff)]);
        self.line(out, "add.u32", &[T(rounded), T(sum), T(lsb)]);
        self.line(out, "shr.u32", &[T(rounded), T(rounded), Imm(16)]);
        self.line(out, "shr.u32", &[T(quiet), T(sum), Imm(16)]);
        self.line(out, "or.b32", &[T(quiet), T(quiet), Imm(0x40)]);
        self.line(out, "selp.b32", &[T(rounded), T(quiet), T(rounded), T(nan)]);
        self.line(out, "cvt.u16.u32", &[T(d), T(rounded)]);
    }

    /// IEEE minNum/maxNum with -0 < +0 on the bit patterns (exact for every input, NaNs
    /// included: one NaN gives the other operand, two give the canonical NaN).
    pub(super) fn float_min_max(
        &mut self,
        out: &mut String,
        op: BinaryOp,
        ty: PrimType,
        d: Temp,
        a: Temp,
        b: Temp,
    ) {
        use Operand::{Imm, T};
        let class = Class::of_prim(ty);
        let bits = class.bits();
        let (infinity, float) = match ty {
            PrimType::F16 => (0x7c00u128, ElemType::F16),
            PrimType::Bf16 => (0x7f80, ElemType::Bf16),
            PrimType::F32 => (0x7f80_0000, ElemType::F32),
            _ => (0x7ff0_0000_0000_0000, ElemType::F64),
        };
        let canonical = canonical_nan(float).unwrap_or_default();
        let sign = 1u128 << (bits - 1);
        let op_b = |name: &str| format!("{name}.b{bits}");
        let mut nan = [Temp {
            class: Class::Pred,
            number: 0,
        }; 2];
        let mut key = [Temp { class, number: 0 }; 2];
        for (index, x) in [a, b].into_iter().enumerate() {
            let abs = self.temp(class);
            nan[index] = self.temp(Class::Pred);
            self.line(out, &op_b("and"), &[T(abs), T(x), Imm(sign - 1)]);
            self.line(
                out,
                &format!("setp.gt.u{bits}"),
                &[T(nan[index]), T(abs), Imm(infinity)],
            );
            let spread = self.temp(class);
            key[index] = self.temp(class);
            self.line(
                out,
                &format!("shr.s{bits}"),
                &[T(spread), T(x), Imm(u128::from(bits - 1))],
            );
            self.line(out, &op_b("or"), &[T(spread), T(spread), Imm(sign)]);
            self.line(out, &op_b("xor"), &[T(key[index]), T(x), T(spread)]);
        }
        let a_less = self.temp(Class::Pred);
        self.line(
            out,
            &format!("setp.lo.u{bits}"),
            &[T(a_less), T(key[0]), T(key[1])],
        );
        let pick = self.temp(class);
        let (first, second) = if op == BinaryOp::FMin { (a, b) } else { (b, a) };
        self.line(
            out,
            &op_b("selp"),
            &[T(pick), T(first), T(second), T(a_less)],
        );
        self.line(out, &op_b("selp"), &[T(pick), T(a), T(pick), T(nan[1])]);
        self.line(out, &op_b("selp"), &[T(pick), T(b), T(pick), T(nan[0])]);
        let both = self.temp(Class::Pred);
        self.line(out, "and.pred", &[T(both), T(nan[0]), T(nan[1])]);
        self.line(
            out,
            &op_b("selp"),
            &[T(d), Imm(canonical), T(pick), T(both)],
        );
    }
}
