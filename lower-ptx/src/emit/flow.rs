//! Control flow of an expansion: binding its inputs, labels, blocks, branches and the results
//! copied out.

use std::fmt::Write;

use atomir_ir::expand::{BinaryOp, Block, Expansion, Prim, PrimType, Terminator, UnaryOp, Var};
use atomir_ir::{AddressSpace, AtomicInst, AtomicOp, Inst, Value, ValueType};

use atomir_ir::lower::{FenceBracket, Label, Unprintable};
use smallvec::SmallVec;

use super::{Class, KernelEmitter, Known, Src, Temp};
use crate::legal::{Form, PtxPlan, RmwForms};
use crate::spell::PtxSpace;

impl<'k> KernelEmitter<'k> {
    /// Prints an expansion: inputs bound by `mov`, blocks as labels, block parameters as
    /// `mov`s before each jump, results moved to the node's result registers.
    /// Binds an expansion's inputs: a register per variable, the address and operands moved in.
    pub(super) fn expansion_begin(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        plan: &PtxPlan,
        expansion: &Expansion,
    ) -> Result<(), Unprintable> {
        self.rmw = match plan.form {
            Form::Expand { rmw } => rmw,
            Form::Native(_) | Form::PackedHalf(_) | Form::LdSt(_) | Form::Fence => RmwForms::None,
        };
        let unnamed = expansion.memory_prims().any(|p| match *p {
            Prim::Rmw { op, ty, .. } => self.rmw.of(op, ty).is_none(),
            _ => false,
        });
        if unnamed {
            return Err(Unprintable(
                "an expansion with a native element the plan does not name".into(),
            ));
        }
        let lane = inst.ty.lane_type();
        self.unpack_float_halves = self.target.sm.number() >= 90
            && lane.is_float()
            && lane.bits() == 16
            && inst.op != AtomicOp::Cas;
        self.zero_skipped_result(out, inst);
        self.guard_begin(out, inst, id);
        let mut vars = std::mem::take(&mut self.vars);
        vars.clear();
        vars.extend(
            expansion
                .vars
                .values()
                .map(|ty| self.temp(Class::of_prim(*ty))),
        );
        self.vars = vars;
        self.zero_extended.clear();
        self.zero_extended.resize(self.vars.len(), false);
        self.masked.clear();
        self.masked.resize(self.vars.len(), None);
        self.known.clear();
        self.known.resize(self.vars.len(), Known::Nothing);
        self.wide_copies.clear();
        self.wide_copies.resize(self.vars.len(), None);
        self.fold_offset_addresses(expansion);
        self.find_shifted_out_bytes(expansion);
        let addr = self.address(out, inst);
        self.mov(out, self.var(expansion.addr), addr, 64);
        // One policy for every hinted `atom` of the expansion (a split vector has one per lane).
        self.rmw_policy = self.policy(out, inst, self.rmw.hint());
        let natural = PrimType::natural(inst.ty).bits();
        if let Some(node_operand) = inst.operand {
            for (lane, operand) in expansion.operands.iter().enumerate() {
                let src = self.operand(out, node_operand, lane, inst.ty, false);
                self.mov(out, self.var(*operand), src, natural);
                self.wide_copies[operand.as_u32() as usize] = self.wide_param(src);
            }
        }
        if let Some(new_value) = inst.new_value {
            for (lane, target) in expansion.new_values.iter().enumerate() {
                let src = self.operand(out, new_value, lane, inst.ty, false);
                self.mov(out, self.var(*target), src, natural);
                self.wide_copies[target.as_u32() as usize] = self.wide_param(src);
            }
        }
        Ok(())
    }

    /// The address of a node: its pointer, converted to a generic address where a generic node
    /// goes through a pointer into a shared window (a shared-window address used as a generic
    /// one names other memory).
    pub(super) fn address(&mut self, out: &mut String, inst: &AtomicInst) -> Src {
        let pointer = Src::Value(inst.addr, None);
        if inst.space != AddressSpace::Generic {
            return pointer;
        }
        let window = match self.kernel.values.get(inst.addr).map(|v| v.ty) {
            Some(ValueType::Ptr(AddressSpace::Shared)) => PtxSpace::Shared,
            Some(ValueType::Ptr(AddressSpace::SharedCluster)) => PtxSpace::SharedCluster,
            _ => return pointer,
        };
        let generic = self.temp(Class::B64);
        let _ = write!(out, "\tcvta.{window}.u64 ");
        self.put_temp(out, generic);
        out.push_str(", ");
        self.put(out, pointer);
        out.push_str(";\n");
        Src::Temp(generic)
    }

    /// The index in [`KernelEmitter::wide_params`] of `src`, where it is a lane of a
    /// parameter the test entry can read zero-extended.
    pub(super) fn wide_param(&self, src: Src) -> Option<usize> {
        let Src::Value(value, lane) = src else {
            return None;
        };
        let lane = lane.unwrap_or(0);
        self.wide_params
            .iter()
            .position(|wide| wide.value == value && wide.lane == lane)
    }

    /// The 32-bit register of [`KernelEmitter::wide_params`]`[index]`, which the entry then
    /// loads.
    pub(super) fn read_wide_param(&mut self, index: usize) -> Temp {
        if let Some(register) = self.wide_params[index].register {
            return register;
        }
        let register = self.temp(Class::B32);
        self.wide_params[index].register = Some(register);
        register
    }

    /// The register of an expansion variable.
    pub(super) fn var(&self, v: Var) -> Src {
        Src::Temp(self.vars[v.as_u32() as usize])
    }

    pub(super) fn label(&self, out: &mut String, id: Inst, label: Label) {
        match label {
            Label::Block(block) => self.write_label(out, id, "b", Some(block.as_u32())),
            Label::Edge(edge) => self.write_label(out, id, "e", Some(edge)),
            Label::Done => self.write_label(out, id, "done", None),
        }
    }

    pub(super) fn block(&mut self, out: &mut String, id: Inst, block: Block, entry: bool) {
        if !entry {
            self.label(out, id, Label::Block(block));
            out.push_str(":\n");
        }
        // A masked copy, and a part of a word (which reads the word's register, rewritten by
        // the copies on an edge), are only known valid in the block that made them.
        self.masked.fill(None);
        for known in &mut self.known {
            if matches!(known, Known::Shifted { .. } | Known::Part { .. }) {
                *known = Known::Nothing;
            }
        }
    }

    /// `bra.uni`, or with a guard `@p bra` / `@!p bra`.
    pub(super) fn branch(&self, out: &mut String, id: Inst, guard: Option<(Var, bool)>, to: Label) {
        out.push('\t');
        match guard {
            Some((cond, negated)) => {
                out.push_str(if negated { "@!" } else { "@" });
                self.put(out, self.var(cond));
                out.push_str(" bra ");
            }
            None => out.push_str("bra.uni "),
        }
        self.label(out, id, to);
        out.push_str(";\n");
    }

    /// Moves the old values to the instruction's result.
    pub(super) fn expansion_end(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        expansion: &Expansion,
    ) {
        if expansion.blocks.len() > 1 {
            self.label(out, id, Label::Done);
            out.push_str(":\n");
        }
        if let Some(result) = inst.result {
            let natural = PrimType::natural(inst.ty).bits();
            for (lane, old) in expansion.results.iter().enumerate() {
                let lane = inst.shape.is_vector().then_some(lane);
                self.mov(out, Src::Value(result, lane), self.var(*old), natural);
            }
            if self.records_result_words && inst.predicate.is_none() {
                self.record_result_words(result, inst, expansion);
            }
        }
        self.guard_end(out, inst, id);
    }

    /// Records the words `result` is made of where its 8/16-bit lanes fill words and each is
    /// the part of a word at its place ([`Known::Part`]). The parts known at the end were taken
    /// in the last block; they hold to the end of the kernel where that block returns (no edge
    /// copy follows them). A predicated instruction is left out: where it is skipped, its
    /// result is zero and the words never written.
    fn record_result_words(&mut self, result: Value, inst: &AtomicInst, expansion: &Expansion) {
        let last_returns = expansion
            .blocks
            .values()
            .last()
            .is_some_and(|block| matches!(block.terminator, Terminator::Return));
        let bits = inst.ty.bits();
        let lanes = expansion.results.len();
        if !last_returns || !matches!(bits, 8 | 16) || !(lanes * bits as usize).is_multiple_of(32) {
            return;
        }
        let known = |var: &Var| self.known[var.as_u32() as usize];
        let words = expansion
            .results
            .chunks((32 / bits) as usize)
            .map(|parts| {
                let Known::Part { word, at: 0 } = known(&parts[0]) else {
                    return None;
                };
                let whole = (0u32..)
                    .zip(parts)
                    .all(|(k, part)| known(part) == Known::Part { word, at: k * bits });
                whole.then(|| self.vars[word.as_u32() as usize])
            })
            .collect::<Option<SmallVec<[Temp; 4]>>>();
        if let Some(words) = words {
            self.result_words.insert(result, words);
        }
    }
}

impl<'k> KernelEmitter<'k> {
    /// Finds the addresses `base + bytes` that at most two memory primitives read, and only as
    /// their address ([`KernelEmitter::offset_addresses`]).
    fn fold_offset_addresses(&mut self, expansion: &Expansion) {
        let offsets = &mut self.offset_addresses;
        offsets.clear();
        offsets.resize(self.vars.len(), None);
        let reads = &mut self.address_reads;
        reads.clear();
        reads.resize(self.vars.len(), 0);
        let blocks = expansion.blocks.values();
        // The base's register must hold, at every access, what it held at the add: a block
        // parameter is rewritten on the edges into its block.
        let rewritten = |v: Var| blocks.clone().any(|block| block.params.contains(&v));
        for prim in blocks.clone().flat_map(|block| &block.prims) {
            if let Prim::PtrAdd { dst, ptr, bytes } = *prim {
                if !rewritten(ptr) {
                    let base = self.vars[ptr.as_u32() as usize];
                    offsets[dst.as_u32() as usize] = Some((base, bytes));
                }
            }
        }
        let mut unfold = |v: Var| offsets[v.as_u32() as usize] = None;
        for block in blocks {
            for prim in &block.prims {
                let addr = match *prim {
                    Prim::Load { addr, .. } | Prim::Cas { addr, .. } | Prim::Rmw { addr, .. } => {
                        Some(addr)
                    }
                    _ => None,
                };
                for (index, used) in prim.uses().into_iter().enumerate() {
                    // A memory primitive's address is its first operand.
                    if index == 0 && Some(used) == addr {
                        reads[used.as_u32() as usize] += 1;
                    } else {
                        unfold(used);
                    }
                }
            }
            block.terminator.uses().for_each(&mut unfold);
        }
        expansion.results.iter().copied().for_each(&mut unfold);
        // An element's address that an integer min/max atomic and its fallback CAS loop read
        // (three accesses in three blocks) is computed again before each where it is folded:
        // a v8.f64 min on sm_90 452 SASS instructions against 539. A word's load and CAS, or
        // one access, are not: a split v8.u8 or v4.u16 loop is 1 to 2 instructions shorter.
        for (var, &count) in reads.iter().enumerate() {
            if count > 2 {
                offsets[var] = None;
            }
        }
    }

    /// Finds the zero extensions of 8-bit values that only shifts left read, by amounts that
    /// leave none of the extension's bits above the byte in the result
    /// ([`KernelEmitter::byte_shifted_out`]).
    fn find_shifted_out_bytes(&mut self, expansion: &Expansion) {
        let shifted_out = &mut self.byte_shifted_out;
        shifted_out.clear();
        shifted_out.resize(self.vars.len(), false);
        let consts = &mut self.consts;
        consts.clear();
        consts.resize(self.vars.len(), None);
        for prim in expansion.blocks.values().flat_map(|block| &block.prims) {
            match *prim {
                Prim::Const { dst, bits } => consts[dst.as_u32() as usize] = Some(bits),
                Prim::Unary {
                    dst,
                    op: UnaryOp::Zext,
                    src,
                } if expansion.vars[src] == PrimType::I8 => {
                    shifted_out[dst.as_u32() as usize] = true;
                }
                _ => {}
            }
        }
        let mut read = |v: Var| shifted_out[v.as_u32() as usize] = false;
        for block in expansion.blocks.values() {
            for prim in &block.prims {
                if let Prim::Binary {
                    op: BinaryOp::Shl,
                    a,
                    b,
                    ..
                } = *prim
                {
                    let width = expansion.vars[a].bits();
                    let by = consts[b.as_u32() as usize];
                    if a != b && by.is_some_and(|by| by + 8 >= u128::from(width)) {
                        continue;
                    }
                }
                prim.uses().into_iter().for_each(&mut read);
            }
            block.terminator.uses().for_each(&mut read);
        }
        expansion.results.iter().copied().for_each(read);
    }

    /// One primitive of an expansion, or a copy of an equal pure one computed before it.
    pub(super) fn step(
        &mut self,
        out: &mut String,
        plan: &PtxPlan,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        expansion: &Expansion,
    ) -> Result<(), Unprintable> {
        let vars = std::mem::take(&mut self.vars);
        let rmw = self.rmw;
        let printed = self.prim(out, plan, rmw, prim, bracket, &vars, expansion);
        self.vars = vars;
        printed
    }
}
