//! Native instructions: fences, `atom`/`red` with their qualifiers, `ld`/`st`, and the
//! result lanes they write.

use atomir_ir::expand::MemAttrs;
use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, Inst, Kernel, MemoryOrder, Scalar, Scope, Value,
};

use atomir_ir::lower::{Fence, FenceBracket};
use atomir_ir::spell;
use smallvec::SmallVec;

use super::regs::{Address, Operand};
use super::{write_value, Class, KernelEmitter, Src, Temp};
use crate::legal::{LdStForm, PtxOp, PtxPlan};
use crate::spell::{
    MembarLevel, PtxEviction, PtxFlag, PtxScope, PtxSem, PtxSpace, PtxType, PtxVector,
};
use crate::target::{Feature, PtxTarget};

/// `.<space>` of a memory instruction (nothing for generic addressing); `.shared::cta` where
/// the ISA spells it (7.8+), `.shared` before.
pub(super) fn write_space(out: &mut String, target: PtxTarget, space: AddressSpace) {
    if let Some(space) = PtxSpace::of(space, target.has(Feature::Cluster)) {
        out.push('.');
        out.push_str(space.as_str());
    }
}

/// `.<scope>` of an access or a fence.
pub(super) fn write_scope(out: &mut String, scope: Scope) {
    out.push('.');
    out.push_str(PtxScope::of(scope).as_str());
}

impl<'k> KernelEmitter<'k> {
    /// The destinations of `lanes` of an instruction's result, in braces when `braced` (one
    /// vector instruction); an unused result takes a fresh temporary per lane.
    pub(super) fn result_lanes(
        &mut self,
        out: &mut String,
        inst: &AtomicInst,
        lanes: std::ops::Range<usize>,
        braced: bool,
    ) {
        let class = Class::of_bits(inst.ty.bits());
        if braced {
            out.push('{');
        }
        let first = lanes.start;
        for lane in lanes {
            if lane > first {
                out.push_str(", ");
            }
            match inst.result {
                Some(result) => {
                    let lane = inst.shape.is_vector().then_some(lane);
                    write_value(out, &self.names, result, lane);
                }
                None => {
                    let temp = self.temp(class);
                    self.put_temp(out, temp);
                }
            }
        }
        if braced {
            out.push('}');
        }
    }
}

impl<'k> KernelEmitter<'k> {
    /// Spells a fence of the bracket: `fence.sc` for seq_cst; `fence.acquire`/`fence.release`
    /// for an acquire or release fence where the target has them, `fence.acq_rel` (stronger)
    /// where it has only `.sem`; a `membar` (sequentially consistent) before.
    pub(super) fn fence(&self, out: &mut String, fence: Option<Fence>, plan: &PtxPlan) {
        let Some(fence) = fence else { return };
        let sem = match fence.order {
            _ if !self.target.has(Feature::Sem) => {
                spell!(out, "\tmembar.", MembarLevel::of(plan.scope), ";\n");
                return;
            }
            MemoryOrder::SeqCst => PtxSem::Sc,
            MemoryOrder::Acquire if self.target.has(Feature::SplitFences) => PtxSem::Acquire,
            MemoryOrder::Release if self.target.has(Feature::SplitFences) => PtxSem::Release,
            _ => PtxSem::AcqRel,
        };
        spell!(out, "\tfence.", sem, '.', PtxScope::of(plan.scope), ";\n");
    }

    /// `.<sem>` of an access's own order, where the target spells orders on instructions.
    pub(super) fn sem(&self, out: &mut String, order: MemoryOrder) {
        if self.target.has(Feature::Sem) {
            out.push('.');
            out.push_str(PtxSem::of(order).as_str());
        }
    }

    /// Starts a guarded region: a branch over it when the predicate does not hold.
    /// The result of a predicated node is 0 where the predicate fails (the IR defines it so):
    /// set before the node, which leaves its destination alone where it does not execute.
    pub(super) fn zero_skipped_result(&mut self, out: &mut String, inst: &AtomicInst) {
        let (Some(_), Some(result)) = (inst.predicate, inst.result) else {
            return;
        };
        let class = Class::of_bits(inst.ty.bits());
        let zero128 = (class == Class::B128).then(|| {
            let zero = self.temp(Class::B64);
            out.push_str("\tmov.b64 ");
            self.put_temp(out, zero);
            out.push_str(", 0;\n");
            zero
        });
        for lane in 0..inst.shape.len() {
            let lane = inst.shape.is_vector().then_some(lane);
            spell!(out, "\tmov.b", class.bits(), ' ');
            write_value(out, &self.names, result, lane);
            match zero128 {
                Some(zero) => {
                    out.push_str(", {");
                    self.put_temp(out, zero);
                    out.push_str(", ");
                    self.put_temp(out, zero);
                    out.push_str("};\n");
                }
                None => out.push_str(", 0;\n"),
            }
        }
    }

    pub(super) fn guard_begin(&self, out: &mut String, inst: &AtomicInst, id: Inst) {
        if let Some(predicate) = inst.predicate {
            out.push('\t');
            out.push_str(if predicate.negated { "@" } else { "@!" });
            write_value(out, &self.names, predicate.value, None);
            out.push_str(" bra ");
            self.write_label(out, id, "end", None);
            out.push_str(";\n");
        }
    }

    pub(super) fn guard_end(&self, out: &mut String, inst: &AtomicInst, id: Inst) {
        if inst.predicate.is_some() {
            self.write_label(out, id, "end", None);
            out.push_str(":\n");
        }
    }

    /// The one place a native `atom`/`red` node is printed.
    pub(super) fn native(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        plan: &PtxPlan,
        s: PtxOp,
        bracket: FenceBracket,
    ) {
        self.zero_skipped_result(out, inst);
        let lanes = inst.shape.len();
        let single = inst.predicate.is_some()
            && !s.negate
            && !s.hint
            && bracket.is_bare()
            && operand_is_registers(self.kernel, inst);
        if !single {
            self.guard_begin(out, inst, id);
        }
        let mut operands = [Src::Temp(Temp {
            class: Class::B32,
            number: 0,
        }); 8];
        let mut new_values = operands;
        for lane in 0..lanes {
            // Every node the table prints whole has an operand (loads are refused).
            let Some(operand) = inst.operand else {
                break;
            };
            operands[lane] = self.operand(out, operand, lane, inst.ty, s.negate);
            if let Some(new_value) = inst.new_value {
                new_values[lane] = self.operand(out, new_value, lane, inst.ty, false);
            }
        }
        let addr = self.address(out, inst);
        let policy = self.policy(out, inst, s.hint);
        self.fence(out, bracket.leading, plan);
        out.push('\t');
        if single {
            if let Some(predicate) = inst.predicate {
                out.push_str(if predicate.negated { "@!" } else { "@" });
                write_value(out, &self.names, predicate.value, None);
                out.push(' ');
            }
        }
        self.opcode(out, inst, plan, s, bracket.order, policy.is_some());
        if !s.reduction {
            self.result_lanes(out, inst, 0..lanes, inst.shape.is_vector());
            out.push_str(", ");
        }
        out.push('[');
        self.put(out, addr);
        out.push_str("], ");
        self.list(out, &operands[..lanes], inst.shape.is_vector());
        if inst.new_value.is_some() {
            out.push_str(", ");
            self.list(out, &new_values[..lanes], inst.shape.is_vector());
        }
        if let Some(policy) = policy {
            out.push_str(", ");
            self.put_temp(out, policy);
        }
        out.push_str(";\n");
        self.fence(out, bracket.trailing, plan);
        if !single {
            self.guard_end(out, inst, id);
        }
    }

    /// The `createpolicy` of a native form with a cache hint.
    pub(super) fn policy(
        &mut self,
        out: &mut String,
        inst: &AtomicInst,
        hinted: bool,
    ) -> Option<Temp> {
        let (true, Some(hint)) = (hinted, inst.hint) else {
            return None;
        };
        let temp = self.temp(Class::B64);
        out.push_str("\tcreatepolicy.fractional.");
        out.push_str(PtxEviction::of(hint).as_str());
        out.push_str(".b64 ");
        self.put_temp(out, temp);
        out.push_str(", 1.0;\n");
        Some(temp)
    }

    /// `atom`/`red` with every qualifier of a native form, up to and including the type and
    /// the space after it.
    fn opcode(
        &self,
        out: &mut String,
        inst: &AtomicInst,
        plan: &PtxPlan,
        s: PtxOp,
        order: MemoryOrder,
        hinted: bool,
    ) {
        out.push_str(if s.reduction { "red" } else { "atom" });
        self.sem(out, order);
        write_scope(out, plan.scope);
        write_space(out, self.target, inst.space);
        out.push('.');
        out.push_str(s.op.as_str());
        if s.noftz {
            write_flag(out, PtxFlag::Noftz);
        }
        if hinted {
            write_flag(out, PtxFlag::CacheHint);
        }
        if let Some(vector) = PtxVector::of(inst.shape) {
            out.push('.');
            out.push_str(vector.as_str());
        }
        out.push('.');
        out.push_str(s.ty.as_str());
        out.push(' ');
    }

    /// The one place the opt-in packed form of a scalar f16/bf16 add is printed: the packed
    /// `atom`/`red` `s` on the aligned 32-bit word holding the address, the operand in the
    /// addressed half (the high one where address bit 1 is set: PTX is little-endian) and
    /// -0.0 in the other, and the old value taken from the addressed half. The node's order,
    /// scope, space and hint are the packed instruction's, as they would be the scalar one's.
    pub(super) fn packed_half(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        plan: &PtxPlan,
        s: PtxOp,
        bracket: FenceBracket,
    ) {
        self.zero_skipped_result(out, inst);
        self.guard_begin(out, inst, id);
        // A scalar add always has its operand (the table takes only add and sub).
        let Some(operand) = inst.operand else {
            return self.guard_end(out, inst, id);
        };
        let value = self.operand(out, operand, 0, inst.ty, s.negate);
        let addr = self.address(out, inst);
        let word = self.temp(Class::B64);
        out.push_str("\tand.b64 ");
        self.put_temp(out, word);
        out.push_str(", ");
        self.put(out, addr);
        out.push_str(", -4;\n");
        let high = self.temp(Class::Pred);
        let bit = self.temp(Class::B64);
        out.push_str("\tand.b64 ");
        self.put_temp(out, bit);
        out.push_str(", ");
        self.put(out, addr);
        out.push_str(", 2;\n");
        self.line(
            out,
            "setp.ne.b64",
            &[Operand::T(high), Operand::T(bit), Operand::Imm(0)],
        );
        let negative_zero = self.constant(out, 16, 0x8000);
        let [in_low, in_high, packed] = [(); 3].map(|_| self.temp(Class::B32));
        for (dst, low, high) in [
            (in_low, value, Src::Temp(negative_zero)),
            (in_high, Src::Temp(negative_zero), value),
        ] {
            out.push_str("\tmov.b32 ");
            self.put_temp(out, dst);
            out.push_str(", {");
            self.put(out, low);
            out.push_str(", ");
            self.put(out, high);
            out.push_str("};\n");
        }
        self.line(
            out,
            "selp.b32",
            &[
                Operand::T(packed),
                Operand::T(in_high),
                Operand::T(in_low),
                Operand::T(high),
            ],
        );
        let policy = self.policy(out, inst, s.hint);
        self.fence(out, bracket.leading, plan);
        out.push('\t');
        self.opcode(out, inst, plan, s, bracket.order, policy.is_some());
        let old_word = (!s.reduction).then(|| self.temp(Class::B32));
        if let Some(old_word) = old_word {
            self.put_temp(out, old_word);
            out.push_str(", ");
        }
        out.push('[');
        self.put_temp(out, word);
        out.push_str("], ");
        self.put_temp(out, packed);
        if let Some(policy) = policy {
            out.push_str(", ");
            self.put_temp(out, policy);
        }
        out.push_str(";\n");
        self.fence(out, bracket.trailing, plan);
        if let (Some(old_word), Some(result)) = (old_word, inst.result) {
            let [old_low, old_high] = [(); 2].map(|_| self.temp(Class::B16));
            out.push_str("\tmov.b32 {");
            self.put_temp(out, old_low);
            out.push_str(", ");
            self.put_temp(out, old_high);
            out.push_str("}, ");
            self.put_temp(out, old_word);
            out.push_str(";\n\tselp.b16 ");
            write_value(out, &self.names, result, None);
            out.push_str(", ");
            self.put_temp(out, old_high);
            out.push_str(", ");
            self.put_temp(out, old_low);
            out.push_str(", ");
            self.put_temp(out, high);
            out.push_str(";\n");
        }
        self.guard_end(out, inst, id);
    }

    /// The one place an atomic `ld`/`st` is printed: one instruction per `lanes` elements (a
    /// `.v2`/`.v4` one where `lanes` is 2 or 4) at its byte offset, with the fences of the
    /// bracket once around them all.
    pub(super) fn ld_st(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        plan: &PtxPlan,
        LdStForm {
            lanes: per_access,
            words,
            hint,
        }: LdStForm,
        bracket: FenceBracket,
    ) {
        self.zero_skipped_result(out, inst);
        let addr = self.address(out, inst);
        self.guard_begin(out, inst, id);
        let policy = self.policy(out, inst, hint);
        let load = inst.op == AtomicOp::Load;
        let lanes = inst.shape.len();
        let mut values = [Src::Temp(Temp {
            class: Class::B32,
            number: 0,
        }); 8];
        if let Some(operand) = inst.operand {
            for (lane, value) in values.iter_mut().enumerate().take(lanes) {
                *value = self.operand(out, operand, lane, inst.ty, false);
            }
        }
        // What each access carries: the node's elements, or the words that hold two each
        // (`LdStForm::words`), packed from the operand's halves for a store and unpacked into
        // the result's for a load.
        let (elements, bits) = if words {
            (lanes / 2, 32)
        } else {
            (lanes, inst.ty.bits())
        };
        let mut word_registers: SmallVec<[Temp; 4]> = SmallVec::new();
        if words {
            for word in 0..elements {
                let temp = self.temp(Class::B32);
                if !load {
                    self.pack_halves(out, temp, values[2 * word], values[2 * word + 1]);
                }
                values[word] = Src::Temp(temp);
                word_registers.push(temp);
            }
        }
        let per_instruction = usize::from(per_access);
        let vector = per_instruction > 1;
        // One bracket around every access: a vector access is its elements' accesses in an
        // unspecified order, so several accesses between the same fences carry the node's
        // order as one vector access would.
        self.fence(out, bracket.leading, plan);
        for first in (0..elements).step_by(per_instruction) {
            out.push_str(if load { "\tld" } else { "\tst" });
            if self.target.has(Feature::Sem) {
                self.sem(out, bracket.order);
                write_scope(out, plan.scope);
            } else {
                spell!(out, '.', PtxSem::Volatile);
            }
            write_space(out, self.target, inst.space);
            if policy.is_some() {
                write_flag(out, PtxFlag::CacheHint);
            }
            if let (true, Some(vector)) = (vector, PtxVector::of_lanes(per_instruction)) {
                spell!(out, '.', vector);
            }
            spell!(out, '.', PtxType::of_bits(bits), ' ');
            let here = first..first + per_instruction;
            if load && words {
                self.list(out, &values[here.clone()], vector);
                out.push_str(", ");
            } else if load {
                self.result_lanes(out, inst, here.clone(), vector);
                out.push_str(", ");
            }
            out.push('[');
            self.put(out, addr);
            if first > 0 {
                spell!(out, '+', first * bits as usize / 8);
            }
            out.push(']');
            if !load {
                out.push_str(", ");
                self.list(out, &values[here], vector);
            }
            if let Some(policy) = policy {
                out.push_str(", ");
                self.put_temp(out, policy);
            }
            out.push_str(";\n");
        }
        self.fence(out, bracket.trailing, plan);
        if let (true, true, Some(result)) = (load, words, inst.result) {
            self.unpack_words(out, result, word_registers, inst.predicate.is_none());
        }
        self.guard_end(out, inst, id);
    }

    /// `word` made of two 16-bit halves, the low one first.
    fn pack_halves(&mut self, out: &mut String, word: Temp, low: Src, high: Src) {
        let wide = |this: &mut Self, src| {
            let index = this.entry_wide_index(src)?;
            this.entry_wide_register(index)
        };
        if let (Some(_), Some(_)) = (self.entry_wide_index(low), self.entry_wide_index(high)) {
            // ptxas reads a test entry's parameters into uniform registers and moves them out
            // to pack their 16-bit halves; the zero-extended reads it packs where they are (a
            // relaxed v8.u16 store on sm_90: 19 SASS instructions against 25, llc's 20).
            let (low, high) = (wide(self, low), wide(self, high));
            let (Some(low), Some(high)) = (low, high) else {
                return;
            };
            // Bytes 0-1 of the low half, then bytes 0-1 of the high one.
            let selector = Operand::Imm(0x5410);
            let operands = [
                Operand::T(word),
                Operand::T(low),
                Operand::T(high),
                selector,
            ];
            self.line(out, "prmt.b32", &operands);
            return;
        }
        out.push_str("\tmov.b32 ");
        self.put_temp(out, word);
        out.push_str(", ");
        self.list(out, &[low, high], true);
        out.push_str(";\n");
    }

    /// Moves the halves of loaded words into the lanes of `result`; a test entry stores the
    /// words themselves where the load is not skipped (`EntryIo::result_words`).
    fn unpack_words(
        &mut self,
        out: &mut String,
        result: Value,
        words: SmallVec<[Temp; 4]>,
        always: bool,
    ) {
        for (word, &register) in words.iter().enumerate() {
            out.push_str("\tmov.b32 {");
            write_value(out, &self.names, result, Some(2 * word));
            out.push_str(", ");
            write_value(out, &self.names, result, Some(2 * word + 1));
            out.push_str("}, ");
            self.put_temp(out, register);
            out.push_str(";\n");
        }
        if always {
            self.entry_result_words(result, words);
        }
    }

    pub(super) fn list(&self, out: &mut String, srcs: &[Src], braces: bool) {
        if braces {
            out.push('{');
        }
        for (index, src) in srcs.iter().enumerate() {
            if index > 0 {
                out.push_str(", ");
            }
            self.put(out, *src);
        }
        if braces {
            out.push('}');
        }
    }
}

impl<'k> KernelEmitter<'k> {
    /// `atom{.sem}.<scope>{.space}` or `red…` of a primitive (order fences printed by the caller).
    pub(super) fn atom_head(
        &self,
        out: &mut String,
        plan: &PtxPlan,
        mem: MemAttrs,
        order: MemoryOrder,
        reduction: bool,
    ) {
        out.push_str(if reduction { "\tred" } else { "\tatom" });
        self.sem(out, order);
        write_scope(out, plan.scope);
        write_space(out, self.target, mem.space);
    }

    /// An atomic load: `ld.relaxed`/`ld.acquire` with the scope (sm_70+), `ld.volatile` plus
    /// membars before.
    pub(super) fn load(
        &self,
        out: &mut String,
        plan: &PtxPlan,
        mem: MemAttrs,
        bracket: FenceBracket,
        dst: Temp,
        addr: Address,
    ) {
        let bits = dst.class.bits();
        self.fence(out, bracket.leading, plan);
        if self.target.has(Feature::Sem) {
            // A load has no release part: its own order is acquire or relaxed.
            let sem = if bracket.order.has_acquire() {
                PtxSem::Acquire
            } else {
                PtxSem::Relaxed
            };
            spell!(out, "\tld.", sem);
            write_scope(out, plan.scope);
        } else {
            spell!(out, "\tld.", PtxSem::Volatile);
        }
        write_space(out, self.target, mem.space);
        spell!(out, '.', PtxType::of_bits(bits), ' ');
        self.put_temp(out, dst);
        out.push_str(", ");
        self.put_address(out, addr);
        out.push_str(";\n");
        self.fence(out, bracket.trailing, plan);
    }
}

pub(super) fn operand_is_registers(kernel: &Kernel, inst: &AtomicInst) -> bool {
    let is_value = |operand: atomir_ir::Operand| match operand {
        atomir_ir::Operand::Scalar(scalar) => matches!(scalar, Scalar::Value(_)),
        atomir_ir::Operand::Vector(list) => kernel
            .vector_elements(list)
            .iter()
            .all(|s| matches!(s, Scalar::Value(_))),
    };
    inst.operand.is_none_or(is_value) && inst.new_value.is_none_or(is_value)
}

/// The `ld`/`st` type of one lane of `elem_bits` bits.
pub(super) fn memory_type(elem_bits: u32) -> PtxType {
    PtxType::of_memory_bits(elem_bits)
}

/// `.<flag>`.
fn write_flag(out: &mut String, flag: PtxFlag) {
    out.push('.');
    out.push_str(flag.as_str());
}
