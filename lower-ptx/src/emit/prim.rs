//! The expansion's primitives: ALU, compare, select, memory, and the soft-float sequences
//! (float min/max with -0 < +0, bf16 arithmetic).

use std::fmt::Write;

use atomir_ir::expand::{BinaryOp, CmpCond, Expansion, MemAttrs, Prim, PrimType, UnaryOp, Var};
use atomir_ir::semantics::width_mask;
use atomir_ir::ElemType;

use atomir_ir::lower::{FenceBracket, Unprintable};

use super::regs::Operand;
use super::{Class, KernelEmitter, Known, Src, Temp};
use crate::legal::{PtxPlan, RmwForms};
use crate::spell::{PtxFlag, PtxRmw, PtxType};
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
        rmw: RmwForms,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        vars: &[Temp],
        expansion: &Expansion,
    ) -> Result<(), Unprintable> {
        use Operand::{Imm, T};
        let bracket = |mem: MemAttrs| bracket.unwrap_or(FenceBracket::bare(mem.order));
        let t = |v: Var| vars[v.as_u32() as usize];
        let ty = |v: Var| expansion.vars[v];
        match *prim {
            Prim::Const { dst, bits } => {
                let width = ty(dst).bits();
                self.mov_const(out, t(dst), width, bits);
                self.zero_extended[dst.as_u32() as usize] = true;
                self.known[dst.as_u32() as usize] = Known::Const(bits);
            }
            Prim::Load { dst, addr, mem } => {
                self.load(
                    out,
                    plan,
                    mem,
                    bracket(mem),
                    t(dst),
                    self.memory_operand(addr, vars),
                );
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
                let _ = write!(out, ".{}.{} ", PtxRmw::Cas, PtxType::of_bits(bits));
                self.put_temp(out, t(dst));
                out.push_str(", ");
                self.put_address(out, self.memory_operand(addr, vars));
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
                    let _ = write!(out, ".{}", PtxFlag::Noftz);
                }
                let policy = self.rmw_policy.filter(|_| spelling.hint);
                if policy.is_some() {
                    let _ = write!(out, ".{}", PtxFlag::CacheHint);
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
                self.put_address(out, self.memory_operand(addr, vars));
                out.push_str(", ");
                self.put_temp(out, value);
                if let Some(policy) = policy {
                    out.push_str(", ");
                    self.put_temp(out, policy);
                }
                out.push_str(";\n");
                self.fence(out, bracket.trailing, plan);
            }
            Prim::Unary { dst, op, src } => {
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
                        let wide = self.wide_copies[src.as_u32() as usize];
                        if let (UnaryOp::Zext, Class::B32, Some(wide)) = (op, dc, wide) {
                            let wide = self.read_wide_param(wide);
                            self.mov(out, Src::Temp(t(dst)), Src::Temp(wide), 32);
                            return Ok(());
                        }
                        let src = if op == UnaryOp::Zext
                            && !self.byte_shifted_out[dst.as_u32() as usize]
                        {
                            self.zero_extended(out, src, vars, expansion)
                        } else {
                            t(src)
                        };
                        // For a result, and inside a loop where the half is a 16-bit float
                        // (`unpack_float_halves`); an integer half inside a loop keeps the
                        // shift, which ptxas folds into the arithmetic that follows
                        // (`LEA.HI`) and not the unpack.
                        let known = self.known[src_var.as_u32() as usize];
                        if matches!(dt, PrimType::I8 | PrimType::I16) && sc == Class::B32 {
                            self.known[dst.as_u32() as usize] = match known {
                                Known::Shifted { word, by } => Known::Part { word, at: by },
                                _ => Known::Part {
                                    word: src_var,
                                    at: 0,
                                },
                            };
                        }
                        let upper = match known {
                            Known::Shifted { word, by: 16 }
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
            }
            Prim::Binary { dst, op, a, b } => {
                let (a_var, b_var) = (a, b);
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
                // Signed 8-bit min/max compares the operands sign-extended to 16 bits.
                let (ty_dst, a, b) = match (op, ty(dst)) {
                    (BinaryOp::SMin | BinaryOp::SMax, PrimType::I8) => (
                        PrimType::I16,
                        self.sign_extended_byte(out, a_var, a, vars),
                        self.sign_extended_byte(out, b_var, b, vars),
                    ),
                    (_, ty_dst) => (ty_dst, a, b),
                };
                self.binary(out, op, ty_dst, t(dst), a, b).map_err(|op| {
                    Unprintable(format!("{op:?} is rewritten by the soft-float pass"))
                })?;
                self.zero_extended[dst.as_u32() as usize] = dst_zero_extended;
                if let (BinaryOp::LShr, PrimType::I32, Known::Const(by @ 1..=31)) =
                    (op, ty(dst), self.known[b_var.as_u32() as usize])
                {
                    self.known[dst.as_u32() as usize] = Known::Shifted {
                        word: a_var,
                        by: by as u32,
                    };
                }
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
                self.line(
                    out,
                    format_args!("setp.{cond}.u{bits}"),
                    &[T(t(dst)), T(a), T(b)],
                );
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
                self.line(
                    out,
                    format_args!("selp.b{bits}"),
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
            Prim::PtrAdd { dst, .. } if self.offset_addresses[dst.as_u32() as usize].is_some() => {}
            Prim::PtrAdd { dst, ptr, bytes } => {
                self.line(
                    out,
                    "add.u64",
                    &[T(t(dst)), T(t(ptr)), Imm(u128::from(bytes))],
                );
            }
            Prim::WarpPeers {
                dst,
                key,
                key_stride,
            } => {
                let active = self.temp(Class::B32);
                self.line(out, "activemask.b32", &[T(active)]);
                if self.target.has(Feature::WarpRedux) {
                    self.warp_peers_unless_distinct(out, t(dst), t(key), key_stride, active);
                } else {
                    let operands = [T(t(dst)), T(t(key)), T(active)];
                    self.line(out, "match.any.sync.b64", &operands);
                }
                self.zero_extended[dst.as_u32() as usize] = true;
            }
            Prim::WarpLeads { dst, peers } | Prim::WarpFirst { dst, peers } => {
                let others = if matches!(prim, Prim::WarpLeads { .. }) {
                    "%lanemask_gt"
                } else {
                    "%lanemask_lt"
                };
                let others = self.special(out, others);
                self.line(out, "and.b32", &[T(others), T(others), T(t(peers))]);
                self.line(out, "setp.eq.u32", &[T(t(dst)), T(others), Imm(0)]);
            }
            Prim::WarpSync { peers } => self.line(out, "bar.warp.sync", &[T(t(peers))]),
            Prim::WarpBroadcast { dst, peers, value } => {
                let highest = self.temp(Class::B32);
                self.line(out, "bfind.u32", &[T(highest), T(t(peers))]);
                let wide = self.warp_widen(out, t(value), ty(value), false);
                let received = self.temp(Class::of_prim(ty(value)).warp_register());
                self.shfl_idx(out, received, wide, highest, t(peers));
                self.warp_narrow(out, t(dst), ty(dst), received);
                let exact = ty(dst) != PrimType::I8;
                self.zero_extended[dst.as_u32() as usize] = exact;
            }
            Prim::WarpFromRank {
                dst,
                peers,
                value,
                rank,
            } => {
                // The lane of rank `rank`: the one lane whose count of lanes of `peers` below
                // it is `rank`, found by a ballot.
                let below = self.special(out, "%lanemask_lt");
                self.line(out, "and.b32", &[T(below), T(below), T(t(peers))]);
                self.line(out, "popc.b32", &[T(below), T(below)]);
                let at_rank = self.temp(Class::Pred);
                self.line(out, "setp.eq.u32", &[T(at_rank), T(below), T(t(rank))]);
                let source = self.temp(Class::B32);
                let ballot = [T(source), T(at_rank), T(t(peers))];
                self.line(out, "vote.sync.ballot.b32", &ballot);
                self.line(out, "bfind.u32", &[T(source), T(source)]);
                let wide = self.warp_widen(out, t(value), ty(value), false);
                let received = self.temp(Class::of_prim(ty(value)).warp_register());
                self.shfl_idx(out, received, wide, source, t(peers));
                self.warp_narrow(out, t(dst), ty(dst), received);
                let exact = ty(dst) != PrimType::I8;
                self.zero_extended[dst.as_u32() as usize] = exact;
            }
            Prim::WarpScan {
                dst,
                op,
                peers,
                value,
                inclusive,
            } => {
                self.warp_scan(out, op, t(peers), (t(value), ty(value)), inclusive, t(dst))
                    .map_err(|op| Unprintable(format!("a warp scan of {op:?}")))?;
                let exact = ty(dst) != PrimType::I8;
                self.zero_extended[dst.as_u32() as usize] = exact;
            }
        }
        Ok(())
    }

    /// [`Prim::WarpPeers`] where `match.any.sync` runs only if two active lanes may share a
    /// key: each lane sets the bit of its key's bucket (the key divided by `key_stride`, modulo
    /// 32) and `redux.sync.or` unites them; as many buckets as active lanes means every key is
    /// distinct, and each lane is its own group. `match.any.sync` costs about as much as the
    /// masked loop of an uncontended 8-bit add (H100: 0.031 against 0.018 ms for 2^20 lanes
    /// on distinct addresses). The test gives every active lane the same answer, so either all
    /// of them run `match.any.sync` or none.
    fn warp_peers_unless_distinct(
        &mut self,
        out: &mut String,
        dst: Temp,
        key: Temp,
        key_stride: u32,
        active: Temp,
    ) {
        use Operand::{Imm, T};
        let bucket = self.temp(Class::B32);
        self.line(out, "cvt.u32.u64", &[T(bucket), T(key)]);
        let shift = key_stride.max(1).trailing_zeros();
        if shift > 0 {
            self.line(
                out,
                "shr.u32",
                &[T(bucket), T(bucket), Imm(u128::from(shift))],
            );
        }
        self.line(out, "and.b32", &[T(bucket), T(bucket), Imm(31)]);
        let bit = self.temp(Class::B32);
        self.line(out, "mov.b32", &[T(bit), Imm(1)]);
        self.line(out, "shl.b32", &[T(bit), T(bit), T(bucket)]);
        let buckets = self.temp(Class::B32);
        self.line(out, "redux.sync.or.b32", &[T(buckets), T(bit), T(active)]);
        let (filled, lanes) = (self.temp(Class::B32), self.temp(Class::B32));
        self.line(out, "popc.b32", &[T(filled), T(buckets)]);
        self.line(out, "popc.b32", &[T(lanes), T(active)]);
        let may_share = self.temp(Class::Pred);
        self.line(out, "setp.ne.u32", &[T(may_share), T(filled), T(lanes)]);
        // Each lane its own group unless `match.any.sync` runs.
        out.push_str("\tmov.u32 ");
        self.put_temp(out, dst);
        out.push_str(", %lanemask_eq;\n");
        self.guarded_line(
            out,
            may_share,
            "match.any.sync.b64",
            &[T(dst), T(key), T(active)],
        );
    }

    /// A special register's value in a new 32-bit temporary.
    fn special(&mut self, out: &mut String, register: &str) -> Temp {
        let temp = self.temp(Class::B32);
        out.push_str("\tmov.u32 ");
        self.put_temp(out, temp);
        let _ = writeln!(out, ", {register};");
        temp
    }

    /// An integer of at most 32 bits in a 32-bit register: sign- or zero-extended from its
    /// width (an 8-bit value's register may hold anything above its byte).
    fn warp_widen(&mut self, out: &mut String, value: Temp, ty: PrimType, signed: bool) -> Temp {
        let from = match ty {
            PrimType::I8 => 8,
            PrimType::I16 => 16,
            _ => return value,
        };
        let wide = self.temp(Class::B32);
        let kind = if signed { 's' } else { 'u' };
        self.line(
            out,
            format_args!("cvt.{kind}32.{kind}{from}"),
            &[Operand::T(wide), Operand::T(value)],
        );
        wide
    }

    /// `shfl.sync.idx` of a 32- or 64-bit register (a 64-bit one as its two halves): `dst`
    /// gets `value` of lane `source`, among the lanes of `peers`.
    fn shfl_idx(&mut self, out: &mut String, dst: Temp, value: Temp, source: Temp, peers: Temp) {
        let scratch = self.shfl_scratch(value.class);
        self.shfl_idx_in(out, [dst, value, source, peers], scratch);
    }

    /// The 32-bit halves [`Self::shfl_idx_in`] needs for a register of `class`.
    fn shfl_scratch(&mut self, class: Class) -> Option<[Temp; 4]> {
        (class == Class::B64).then(|| [(); 4].map(|()| self.temp(Class::B32)))
    }

    /// [`Self::shfl_idx`] with its halves allocated (`scratch`, for a 64-bit register).
    fn shfl_idx_in(
        &self,
        out: &mut String,
        [dst, value, source, peers]: [Temp; 4],
        scratch: Option<[Temp; 4]>,
    ) {
        use Operand::{Imm, T};
        let Some([low, high, got_low, got_high]) = scratch else {
            self.line(
                out,
                "shfl.sync.idx.b32",
                &[T(dst), T(value), T(source), Imm(31), T(peers)],
            );
            return;
        };
        self.pack64(out, [low, high], value, false);
        for (half, got) in [(low, got_low), (high, got_high)] {
            self.line(
                out,
                "shfl.sync.idx.b32",
                &[T(got), T(half), T(source), Imm(31), T(peers)],
            );
        }
        self.pack64(out, [got_low, got_high], dst, true);
    }

    /// `mov.b64` between a 64-bit register and its two 32-bit halves (low first): into the
    /// halves, or (`join`) from them.
    fn pack64(&self, out: &mut String, [low, high]: [Temp; 2], wide: Temp, join: bool) {
        out.push_str("\tmov.b64 ");
        let halves = |this: &Self, out: &mut String| {
            out.push('{');
            this.put_temp(out, low);
            out.push_str(", ");
            this.put_temp(out, high);
            out.push('}');
        };
        if join {
            self.put_temp(out, wide);
            out.push_str(", ");
            halves(self, out);
        } else {
            halves(self, out);
            out.push_str(", ");
            self.put_temp(out, wide);
        }
        out.push_str(";\n");
    }

    /// The low bits of a 32-bit register in `dst`, an integer of `ty` (a 64-bit register as it
    /// is).
    fn warp_narrow(&mut self, out: &mut String, dst: Temp, ty: PrimType, wide: Temp) {
        if matches!(Class::of_prim(ty), Class::B32 | Class::B64) {
            let bits = wide.class.bits();
            self.mov(out, Src::Temp(dst), Src::Temp(wide), bits);
        } else {
            self.line(out, "cvt.u16.u32", &[Operand::T(dst), Operand::T(wide)]);
        }
    }

    /// [`Prim::WarpScan`]: a Hillis-Steele scan over the ranks of `peers` (the lanes of one
    /// group need not be adjacent), by pointer jumping: each lane starts from the nearest lane
    /// of `peers` below it (`bfind` of those lanes), and in step `d` folds in the running value
    /// of the lane its pointer names and takes that lane's pointer, `2d` ranks below. (`fns`
    /// finds a step's lane directly, but ptxas expands each `fns` into dozens of instructions:
    /// a relaxed u8 add's warp-combined code was over 480 SASS instructions with six of them.)
    /// Every lane of `peers` takes the same steps, so each `shfl.sync` has all of them. The
    /// exclusive scan is the inclusive one of the nearest lane below, or the identity.
    fn warp_scan(
        &mut self,
        out: &mut String,
        op: BinaryOp,
        peers: Temp,
        (value, ty): (Temp, PrimType),
        inclusive: bool,
        dst: Temp,
    ) -> Result<(), BinaryOp> {
        use Operand::{Imm, T};
        // The fold runs on 32-bit registers, or 64-bit ones for 64-bit values.
        let class = Class::of_prim(ty).warp_register();
        let width = class.bits();
        let (opcode, signed) = match op {
            BinaryOp::Add => ("add.u", false),
            BinaryOp::And => ("and.b", false),
            BinaryOp::Or => ("or.b", false),
            BinaryOp::Xor => ("xor.b", false),
            BinaryOp::UMin => ("min.u", false),
            BinaryOp::UMax => ("max.u", false),
            // Round to nearest even, subnormals kept: the expansion's float add.
            BinaryOp::FAdd if ty == PrimType::F32 => ("add.rn.f", false),
            BinaryOp::SMin => ("min.s", true),
            BinaryOp::SMax => ("max.s", true),
            _ => return Err(op),
        };
        let bits = ty.bits();
        let identity = op.scan_identity(ty).ok_or(op)?;
        // The identity in the form the fold runs on: extended as the values are.
        let sign = 1u128 << (bits - 1);
        let identity = if signed && identity & sign != 0 {
            identity | (width_mask(width) & !((sign << 1) - 1))
        } else {
            identity
        };
        let below_mask = self.special(out, "%lanemask_lt");
        self.line(out, "and.b32", &[T(below_mask), T(below_mask), T(peers)]);
        // The nearest peer below, or 0xffffffff where there is none.
        let nearest = self.temp(Class::B32);
        self.line(out, "bfind.u32", &[T(nearest), T(below_mask)]);
        let lane = self.special(out, "%laneid");
        let mut acc = self.temp(class);
        let first = self.warp_widen(out, value, ty, signed);
        self.mov(out, Src::Temp(acc), Src::Temp(first), width);
        let (pointer, next) = (self.temp(Class::B32), self.temp(Class::B32));
        self.mov(out, Src::Temp(pointer), Src::Temp(nearest), 32);
        let (source, received) = (self.temp(Class::B32), self.temp(class));
        let scratch = self.shfl_scratch(class);
        let below = self.temp(Class::Pred);
        // A lane whose pointer names no peer reads its own register: the source is always a
        // lane of `peers`.
        let fetch = |this: &Self, out: &mut String, pointer: Temp, from: Temp| {
            this.line(
                out,
                "setp.ne.u32",
                &[T(below), T(pointer), Imm(0xffff_ffff)],
            );
            this.line(out, "selp.b32", &[T(source), T(pointer), T(lane), T(below)]);
            this.shfl_idx_in(out, [received, from, source, peers], scratch);
        };
        let opcode = format!("{opcode}{width}");
        for step in 0..5 {
            fetch(self, out, pointer, acc);
            self.guarded_line(out, below, &opcode, &[T(acc), T(acc), T(received)]);
            if step < 4 {
                self.line(
                    out,
                    "shfl.sync.idx.b32",
                    &[T(next), T(pointer), T(source), Imm(31), T(peers)],
                );
                self.mov(out, Src::Temp(pointer), Src::Temp(next), 32);
            }
        }
        if !inclusive {
            fetch(self, out, nearest, acc);
            let folded = self.temp(class);
            self.line(
                out,
                format_args!("selp.b{width}"),
                &[T(folded), T(received), Imm(identity), T(below)],
            );
            acc = folded;
        }
        self.warp_narrow(out, dst, ty, acc);
        Ok(())
    }
}

impl<'k> KernelEmitter<'k> {
    /// The 8-bit `var` (in register `reg`) sign-extended into a new 16-bit register: the byte
    /// of its word by `bfe.s32` where it was truncated from one ([`Known::Part`]), otherwise
    /// `cvt.s16.s8`.
    fn sign_extended_byte(&mut self, out: &mut String, var: Var, reg: Temp, vars: &[Temp]) -> Temp {
        use Operand::{Imm, T};
        let extended = self.temp(Class::B16);
        match self.known[var.as_u32() as usize] {
            Known::Part { word, at } => {
                let word = vars[word.as_u32() as usize];
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
            this.line(
                out,
                format_args!("{name}.{kind}{bits}"),
                &[T(d), T(a), T(b)],
            );
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
                    PrimType::F32 => {
                        self.line(out, format_args!("{name}.rn.f32"), &[T(d), T(a), T(b)])
                    }
                    PrimType::F64 => {
                        self.line(out, format_args!("{name}.rn.f64"), &[T(d), T(a), T(b)])
                    }
                    PrimType::F16 => {
                        self.line(out, format_args!("{name}.rn.f16"), &[T(d), T(a), T(b)])
                    }
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
                self.line(out, format_args!("{name}.{spelled}"), &[T(d), T(a), T(b)]);
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
        self.line(out, format_args!("{name}.rn.f32"), &[T(sum), T(wa), T(wb)]);
        self.line(out, "cvt.rn.bf16.f32", &[T(d), T(sum)]);
    }
}
