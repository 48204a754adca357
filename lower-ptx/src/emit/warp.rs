//! The warp primitives of an expansion: grouping the lanes that share an address, choosing
//! the one that carries the atomic, broadcasting its result and scanning the operands.

use atomir_ir::expand::{BinaryOp, Prim, PrimType, ScanSpan, Var};
use atomir_ir::lower::Unprintable;
use atomir_ir::semantics::width_mask;
use atomir_ir::spell;

use super::regs::Operand;
use super::{Class, KernelEmitter, Src, Temp, Walk};
use crate::target::Feature;

impl<'k> KernelEmitter<'k> {
    /// A warp primitive.
    pub(super) fn warp_prim(
        &mut self,
        out: &mut String,
        prim: &Prim,
        walk: Walk<'_>,
    ) -> Result<(), Unprintable> {
        use Operand::{Imm, T};
        let Walk {
            vars,
            expansion,
            facts,
            ..
        } = walk;
        let t = |v: Var| vars[v.as_u32() as usize];
        let ty = |v: Var| expansion.vars[v];
        match *prim {
            Prim::WarpActive { dst } => self.line(out, "activemask.b32", &[T(t(dst))]),
            Prim::WarpBallot { dst, pred, members } => {
                let operands = [T(t(dst)), T(t(pred)), T(t(members))];
                self.line(out, "vote.sync.ballot.b32", &operands);
            }
            Prim::WarpPeers {
                dst,
                key,
                key_stride,
                members,
            } => {
                if self.target.has(Feature::WarpRedux) {
                    self.warp_peers_unless_distinct(out, t(dst), t(key), key_stride, t(members));
                } else {
                    let operands = [T(t(dst)), T(t(key)), T(t(members))];
                    self.line(out, "match.any.sync.b64", &operands);
                }
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
            Prim::WarpSync { members } => self.line(out, "bar.warp.sync", &[T(t(members))]),
            Prim::WarpBroadcast {
                dst,
                peers,
                members,
                value,
            } => {
                let highest = self.temp(Class::B32);
                self.line(out, "bfind.u32", &[T(highest), T(t(peers))]);
                let wide = self.warp_widen(out, t(value), ty(value), false);
                let received = self.temp(Class::of_prim(ty(value)).warp_register());
                self.shfl_idx(out, received, wide, highest, t(members));
                self.warp_narrow(out, t(dst), ty(dst), received);
            }
            Prim::WarpFromRank {
                dst,
                peers,
                members,
                value,
                rank,
            } => {
                // The lane of rank `rank`: the one lane of `peers` whose count of lanes of
                // `peers` below it is `rank`, found by a ballot of the members.
                let below = self.special(out, "%lanemask_lt");
                self.line(out, "and.b32", &[T(below), T(below), T(t(peers))]);
                self.line(out, "popc.b32", &[T(below), T(below)]);
                let at_rank = self.temp(Class::Pred);
                self.line(out, "setp.eq.u32", &[T(at_rank), T(below), T(t(rank))]);
                let source = self.temp(Class::B32);
                let ballot = [T(source), T(at_rank), T(t(members))];
                self.line(out, "vote.sync.ballot.b32", &ballot);
                if members != peers {
                    self.line(out, "and.b32", &[T(source), T(source), T(t(peers))]);
                }
                self.line(out, "bfind.u32", &[T(source), T(source)]);
                let wide = self.warp_widen(out, t(value), ty(value), false);
                let received = self.temp(Class::of_prim(ty(value)).warp_register());
                self.shfl_idx(out, received, wide, source, t(members));
                self.warp_narrow(out, t(dst), ty(dst), received);
            }
            Prim::WarpScan {
                dst,
                op: BinaryOp::Add,
                peers,
                value,
                span,
                ..
            } if facts.constant(value) == Some(1) && ty(dst).bits() <= 32 => {
                self.warp_rank(out, t(peers), span, (t(dst), ty(dst)));
            }
            Prim::WarpScan {
                dst,
                op,
                peers,
                members,
                value,
                span,
                max_peers,
            } => {
                if !(1..=32).contains(&max_peers) {
                    return Err(Unprintable(format!("a warp scan of {max_peers} lanes")));
                }
                let masks = [t(peers), t(members)];
                let span = (span, max_peers);
                self.warp_scan(out, op, masks, (t(value), ty(value)), span, t(dst))
                    .map_err(|op| Unprintable(format!("a warp scan of {op:?}")))?;
            }
            _ => {}
        }
        Ok(())
    }

    /// [`Prim::WarpPeers`] where `match.any.sync` runs only if two of its members may share a
    /// key: each lane sets the bit of its key's bucket (the key divided by `key_stride`, modulo
    /// 32) and `redux.sync.or` unites them; as many buckets as members means every key is
    /// distinct, and each lane is its own group. `match.any.sync` costs about as much as the
    /// masked loop of an uncontended 8-bit add (H100: 0.031 against 0.018 ms for 2^20 lanes
    /// on distinct addresses). The test gives every member the same answer, so either all of
    /// them run `match.any.sync` or none.
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
        spell!(out, ", ", register, ";\n");
        temp
    }

    /// An integer of at most 32 bits in a 32-bit register: sign- or zero-extended from its
    /// width (an 8-bit value's register may hold anything above its byte).
    fn warp_widen(&mut self, out: &mut String, value: Temp, ty: PrimType, signed: bool) -> Temp {
        let from = match ty {
            PrimType::I8 => 8u32,
            PrimType::I16 => 16,
            _ => return value,
        };
        let wide = self.temp(Class::B32);
        let kind = if signed { 's' } else { 'u' };
        self.line(
            out,
            ("cvt.", kind, "32.", kind, from),
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

    /// [`Prim::WarpScan`] of the constant 1 under add: the count of the lanes of `peers` below
    /// this one (and this one, or all of them, as `span` says), a lane's rank in its group, by
    /// `popc` of `%lanemask_lt` where the general scan takes five rounds of shuffles.
    fn warp_rank(
        &mut self,
        out: &mut String,
        peers: Temp,
        span: ScanSpan,
        (dst, ty): (Temp, PrimType),
    ) {
        use Operand::{Imm, T};
        let counted = self.special(out, "%lanemask_lt");
        self.line(out, "and.b32", &[T(counted), T(counted), T(peers)]);
        self.line(out, "popc.b32", &[T(counted), T(counted)]);
        if span == ScanSpan::UpToOwn {
            self.line(out, "add.u32", &[T(counted), T(counted), Imm(1)]);
        }
        self.warp_narrow(out, dst, ty, counted);
    }

    /// [`Prim::WarpScan`]: a Hillis-Steele scan over the ranks of `peers` (the lanes of one
    /// group need not be adjacent), by pointer jumping: each lane starts from the nearest lane
    /// of `peers` below it (`bfind` of those lanes), and in step `d` folds in the running value
    /// of the lane its pointer names and takes that lane's pointer, `2d` ranks below. (`fns`
    /// finds a step's lane directly, but ptxas expands each `fns` into dozens of instructions:
    /// a relaxed u8 add's warp-combined code was over 480 SASS instructions with six of them.)
    /// Every member takes the same steps, so each `shfl.sync` has all of them, whichever
    /// group each is in (a lane only ever reads a lane of its own group). The exclusive scan is
    /// the inclusive one of the nearest lane below, or the identity. A group of at most
    /// `max_peers` lanes is folded after as many steps as the base-2 logarithm of that, rounded
    /// up (a step doubles the lanes a lane holds).
    fn warp_scan(
        &mut self,
        out: &mut String,
        op: BinaryOp,
        [peers, members]: [Temp; 2],
        (value, ty): (Temp, PrimType),
        (span, max_peers): (ScanSpan, u32),
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
            this.shfl_idx_in(out, [received, from, source, members], scratch);
        };
        let opcode = (opcode, width);
        let steps = 32 - (max_peers - 1).leading_zeros();
        for step in 0..steps {
            fetch(self, out, pointer, acc);
            self.guarded_line(out, below, opcode, &[T(acc), T(acc), T(received)]);
            if step + 1 < steps {
                self.line(
                    out,
                    "shfl.sync.idx.b32",
                    &[T(next), T(pointer), T(source), Imm(31), T(members)],
                );
                self.mov(out, Src::Temp(pointer), Src::Temp(next), 32);
            }
        }
        if span == ScanSpan::Below {
            fetch(self, out, nearest, acc);
            let folded = self.temp(class);
            self.line(
                out,
                ("selp.b", width),
                &[T(folded), T(received), Imm(identity), T(below)],
            );
            acc = folded;
        }
        self.warp_narrow(out, dst, ty, acc);
        Ok(())
    }
}
