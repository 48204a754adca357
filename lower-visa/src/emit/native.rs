//! Native messages: the fences of a bracket and the atomic messages (`svm_atomic`,
//! `lsc_atomic_*`, loads and stores).

use cranelift_entity::EntityRef;

use atomir_ir::expand::{Expansion, MemAttrs, Prim};
use atomir_ir::lower::{Fence, FenceBracket, FenceSide};
use atomir_ir::{spell, AddressSpace, ElementLowering, MemoryOrder, Scope};

use super::{EmitError, Storage, View, VisaPrinter};
use crate::legality::{msg_op, MsgOp, Surface, VisaPlan};
use crate::target::Messages;

impl<'m> VisaPrinter<'m> {
    /// Spells a fence of the bracket around a message (messages carry no order themselves).
    pub(super) fn fence(&mut self, fence: Option<Fence>, mem: MemAttrs) {
        let Some(fence) = fence else { return };
        let after = fence.side == FenceSide::Trailing;
        match self.target.messages {
            Messages::Lsc => {
                let op = match (mem.order, after) {
                    (MemoryOrder::Acquire, _) => "invalidate",
                    (MemoryOrder::Release, _) => "clean",
                    _ => "evict",
                };
                let scope = match mem.scope {
                    Scope::Block => "group",
                    Scope::Cluster | Scope::Device => "gpu",
                    Scope::System if after => "sysacq",
                    Scope::System => "sysrel",
                };
                // Orders the thread's global and shared accesses alike; SLM is only ever
                // visible to the work-group, so its fence is `.group` at any scope.
                spell!(&mut self.body, "    lsc_fence.ugm.", op, '.', scope, '\n');
                self.body.push_str("    lsc_fence.slm.none.group\n");
            }
            Messages::Svm => {
                // E = commit; R = flush the L3 read/write data (host visibility); L1 =
                // invalidate the L1 data cache so that later loads see other agents' writes.
                let flags = match (mem.scope, after) {
                    (Scope::Block, _) => "E",
                    (Scope::System, false) => "ER",
                    (Scope::System, true) => "ERL1",
                    (_, false) => "E",
                    (_, true) => "EL1",
                };
                spell!(&mut self.body, "    fence_global.", flags, '\n');
                self.body.push_str("    fence_local.E\n");
            }
        }
    }

    /// Spells a stand-alone fence as the fences of its bracket
    /// ([`crate::memory::standalone_bracket`]).
    pub(super) fn standalone_fence(&mut self, fence: &atomir_ir::Fence) {
        let bracket = crate::memory::standalone_bracket(fence);
        let mem = MemAttrs {
            order: fence.order,
            scope: fence.scope,
            space: AddressSpace::Global,
            hint: None,
        };
        let start = self.body.len();
        self.fence(bracket.leading, mem);
        let middle = self.body.len();
        self.fence(bracket.trailing, mem);
        // Where both halves spell the same fence, one does.
        if self.body[middle..] == self.body[start..middle] {
            self.body.truncate(middle);
        }
    }

    /// The one place that prints native atomic messages.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn memory(
        &mut self,
        expansion: &Expansion,
        plan: &VisaPlan,
        prim: &Prim,
        mem: MemAttrs,
        bracket: FenceBracket,
    ) -> Result<(), EmitError> {
        let (surface, pred) = (self.surface, self.line_pred());
        let (dst, op, ty_bits, addr, src0, src1, view) = match *prim {
            Prim::Load { dst, addr, .. } => {
                let bits = expansion.vars[dst].bits();
                (Some(dst), MsgOp::Load, bits, addr, None, None, View::Base)
            }
            Prim::Cas {
                dst,
                addr,
                expected,
                new,
                ..
            } => {
                let bits = expansion.vars[dst].bits();
                (
                    Some(dst),
                    MsgOp::Cas,
                    bits,
                    addr,
                    Some(expected),
                    Some(new),
                    View::Base,
                )
            }
            Prim::Rmw {
                dst,
                op,
                ty,
                addr,
                value,
                ..
            } => {
                // Float min/max by integer atomics has two: each primitive names its own.
                let message = plan
                    .message
                    .or_else(|| match plan.legality.lowering.element() {
                        ElementLowering::IntMinMax => msg_op(op, ty),
                        _ => None,
                    })
                    .ok_or_else(|| format!("the plan names no message for {op}.{ty}"))?;
                let view = match (message, ty.bits()) {
                    (MsgOp::SMin | MsgOp::SMax, 64) => View::Q,
                    (MsgOp::SMin | MsgOp::SMax, _) => View::D,
                    (MsgOp::FAdd | MsgOp::FSub | MsgOp::FMin | MsgOp::FMax, 64) => View::Df,
                    (MsgOp::FAdd | MsgOp::FSub | MsgOp::FMin | MsgOp::FMax, 32) => View::F,
                    _ => View::Base,
                };
                let src = (!message.takes_no_source()).then_some(value);
                (dst, message, ty.bits(), addr, src, None, view)
            }
            _ => return Err("not a memory primitive".into()),
        };
        let bits = if ty_bits == 8 { 32 } else { ty_bits };
        let dst = dst.filter(|&d| self.is_used(d));
        let dst_slot = dst.map(|d| self.var_slots[d.index()]);
        let addr_slot = self.var_slots[addr.index()];
        let n = self.n;
        self.fence(bracket.leading, mem);
        let (src0, src1) = match (op, self.target.messages, surface, bits) {
            // SVM has no atomic load: `or` with zero.
            (MsgOp::Load, Messages::Svm, _, _) => {
                let zero = self.temp(if bits == 64 {
                    Storage::Qword
                } else {
                    Storage::Dword
                });
                self.constant(zero, 0);
                (Some(zero), None)
            }
            // SLM has no 64-bit load: `icas` of zero with zero.
            (MsgOp::Load, Messages::Lsc, Surface::Slm, 64) => {
                let zero = self.temp(Storage::Qword);
                self.constant(zero, 0);
                (Some(zero), Some(zero))
            }
            _ => (
                src0.map(|v| self.var_slots[v.index()]),
                src1.map(|v| self.var_slots[v.index()]),
            ),
        };
        let op = if matches!(
            (op, self.target.messages, surface, bits),
            (MsgOp::Load, Messages::Lsc, Surface::Slm, 64)
        ) {
            MsgOp::Cas
        } else {
            op
        };
        self.body.push_str("    ");
        if let Some((slot, negated)) = pred {
            self.body.push_str(if negated { "(!" } else { "(" });
            self.name(slot, View::Base);
            self.body.push_str(") ");
        }
        match self.target.messages {
            Messages::Svm => {
                let width = match bits {
                    16 => ".16",
                    64 => ".64",
                    _ => "",
                };
                spell!(
                    &mut self.body,
                    "svm_atomic.",
                    op.svm_name(),
                    width,
                    " (M1, ",
                    n,
                    ") "
                );
                self.name(addr_slot, View::Base);
                self.body.push_str(".0 ");
                self.raw_or_null(dst_slot, view, ".0");
                // Text order: NEW then EXPECTED for cmpxchg (the expansion's src0 is expected).
                let (first, second) = if op == MsgOp::Cas {
                    (src1, src0)
                } else {
                    (src0, src1)
                };
                self.body.push(' ');
                self.raw_or_null(first, view, ".0");
                self.body.push(' ');
                self.raw_or_null(second, view, ".0");
            }
            Messages::Lsc => {
                let data_bytes = if bits == 64 { 8 } else { 4 };
                let addr_bytes = if surface == Surface::Slm { 4 } else { 8 };
                self.cover_message_operand(addr_slot, addr_bytes);
                // `icas` takes its two data operands through a payload GenX_IR builds.
                let data = if op == MsgOp::Cas { None } else { src0 };
                for slot in [dst_slot, data].into_iter().flatten() {
                    self.cover_message_operand(slot, data_bytes);
                }
                let sfid = if surface == Surface::Slm {
                    "slm"
                } else {
                    "ugm"
                };
                spell!(
                    &mut self.body,
                    "lsc_atomic_",
                    op.lsc_name(),
                    '.',
                    sfid,
                    " (M1, ",
                    n,
                    ") "
                );
                self.raw_or_null(dst_slot, view, "");
                let size = match bits {
                    16 => ":d16c32",
                    64 => ":d64",
                    _ => ":d32",
                };
                self.body.push_str(size);
                self.body.push_str(" flat[");
                self.name(addr_slot, View::Base);
                self.body.push_str(if surface == Surface::Slm {
                    "]:a32 "
                } else {
                    "]:a64 "
                });
                // Text order: EXPECTED then NEW for icas.
                self.raw_or_null(src0, view, "");
                self.body.push(' ');
                self.raw_or_null(src1, view, "");
            }
        }
        self.body.push('\n');
        // 16-bit write-backs are unpacked; keep the upper half zero.
        if let (Some(slot), 16) = (dst_slot, bits) {
            self.op_start(pred, "and", n);
            self.dst(slot, View::Base, 0, 1);
            self.body.push(' ');
            self.src(slot, View::Base, 0, 1);
            self.body.push_str(" 0xffff:ud\n");
        }
        self.fence(bracket.trailing, mem);
        Ok(())
    }
}
