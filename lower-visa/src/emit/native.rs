//! Native messages: the fences of a bracket and the atomic messages (`svm_atomic`,
//! `lsc_atomic_*`, loads and stores).

use cranelift_entity::EntityRef;

use atomir_ir::expand::{Expansion, MemAttrs, Prim, Var};
use atomir_ir::lower::{Fence, FenceBracket, FenceSide};
use atomir_ir::{spell, AddressSpace, ElementLowering, MemoryOrder, Scope};

use super::{EmitError, EmitPart, Storage, View, VisaPrinter};
use crate::legal::{msg_op, MsgOp, Surface, VisaPlan};
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
    /// ([`crate::legal::standalone_bracket`]).
    pub(super) fn standalone_fence(&mut self, fence: &atomir_ir::Fence) {
        let bracket = crate::legal::standalone_bracket(fence);
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
    pub(super) fn memory(
        &mut self,
        expansion: &Expansion,
        plan: &VisaPlan,
        prim: &Prim,
        mem: MemAttrs,
        bracket: FenceBracket,
    ) -> Result<(), EmitError> {
        let surface = self.surface;
        let pred = self.line_pred();
        let operands = message_operands(expansion, plan, prim)?;
        let bits = if operands.bits == 8 {
            32
        } else {
            operands.bits
        };
        let dst = operands.dst.filter(|&d| self.is_used(d));
        let dst_slot = dst.map(|d| self.var_slots[d.index()]);
        let addr_slot = self.var_slots[operands.addr.index()];
        let n = self.n;
        self.fence(bracket.leading, mem);
        let op = operands.op;
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
                operands.src0.map(|v| self.var_slots[v.index()]),
                operands.src1.map(|v| self.var_slots[v.index()]),
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
        let slots = MessageSlots {
            op,
            bits,
            dst: dst_slot,
            addr: addr_slot,
            src0,
            src1,
            view: operands.view,
        };
        match self.target.messages {
            Messages::Svm => self.svm_message(&slots),
            Messages::Lsc => self.lsc_message(&slots),
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

    /// `svm_atomic.<op>[.16|.64] (M1, n) addr.0 dst src0 src1`, from the channel count on.
    fn svm_message(&mut self, m: &MessageSlots) {
        let width = match m.bits {
            16 => ".16",
            64 => ".64",
            _ => "",
        };
        spell!(
            &mut self.body,
            "svm_atomic.",
            m.op.svm_name(),
            width,
            " (M1, ",
            self.n,
            ") "
        );
        self.name(m.addr, View::Base);
        self.body.push_str(".0 ");
        self.raw_or_null(m.dst, m.view, ".0");
        // Text order: NEW then EXPECTED for cmpxchg (the expansion's src0 is expected).
        let (first, second) = if m.op == MsgOp::Cas {
            (m.src1, m.src0)
        } else {
            (m.src0, m.src1)
        };
        self.body.push(' ');
        self.raw_or_null(first, m.view, ".0");
        self.body.push(' ');
        self.raw_or_null(second, m.view, ".0");
    }

    /// `lsc_atomic_<op>.<sfid> (M1, n) dst:<size> flat[addr]:<a32|a64> src0 src1`, widening the
    /// registers the message reaches.
    fn lsc_message(&mut self, m: &MessageSlots) {
        let slm = self.surface == Surface::Slm;
        let data_bytes = if m.bits == 64 { 8 } else { 4 };
        let addr_bytes = if slm { 4 } else { 8 };
        self.cover_message_operand(m.addr, addr_bytes);
        // `icas` takes its two data operands through a payload GenX_IR builds.
        let data = if m.op == MsgOp::Cas { None } else { m.src0 };
        for slot in [m.dst, data].into_iter().flatten() {
            self.cover_message_operand(slot, data_bytes);
        }
        let sfid = if slm { "slm" } else { "ugm" };
        spell!(
            &mut self.body,
            "lsc_atomic_",
            m.op.lsc_name(),
            '.',
            sfid,
            " (M1, ",
            self.n,
            ") "
        );
        self.raw_or_null(m.dst, m.view, "");
        let size = match m.bits {
            16 => ":d16c32",
            64 => ":d64",
            _ => ":d32",
        };
        self.body.push_str(size);
        self.body.push_str(" flat[");
        self.name(m.addr, View::Base);
        self.body.push_str(if slm { "]:a32 " } else { "]:a64 " });
        // Text order: EXPECTED then NEW for icas.
        self.raw_or_null(m.src0, m.view, "");
        self.body.push(' ');
        self.raw_or_null(m.src1, m.view, "");
    }
}

/// A memory primitive's message, in the expansion's variables.
struct MessageOperands {
    dst: Option<Var>,
    op: MsgOp,
    /// The width of the primitive's datum (8 for a byte, carried by its dword).
    bits: u32,
    addr: Var,
    src0: Option<Var>,
    src1: Option<Var>,
    /// How the data registers are read and written.
    view: View,
}

/// A message's operands in registers, ready to spell.
struct MessageSlots {
    op: MsgOp,
    /// The message's data width: 16, 32 or 64.
    bits: u32,
    dst: Option<usize>,
    addr: usize,
    src0: Option<usize>,
    src1: Option<usize>,
    view: View,
}

/// The message that carries a memory primitive and the variables it reads and writes.
fn message_operands(
    expansion: &Expansion,
    plan: &VisaPlan,
    prim: &Prim,
) -> Result<MessageOperands, EmitError> {
    Ok(match *prim {
        Prim::Load { dst, addr, .. } => MessageOperands {
            dst: Some(dst),
            op: MsgOp::Load,
            bits: expansion.vars[dst].bits(),
            addr,
            src0: None,
            src1: None,
            view: View::Base,
        },
        Prim::Cas {
            dst,
            addr,
            expected,
            new,
            ..
        } => MessageOperands {
            dst: Some(dst),
            op: MsgOp::Cas,
            bits: expansion.vars[dst].bits(),
            addr,
            src0: Some(expected),
            src1: Some(new),
            view: View::Base,
        },
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
                .ok_or_else(|| {
                    EmitError::new(
                        EmitPart::Memory,
                        format!("the plan names no message for {op}.{ty}"),
                    )
                })?;
            let view = match (message, ty.bits()) {
                (MsgOp::SMin | MsgOp::SMax, 64) => View::Q,
                (MsgOp::SMin | MsgOp::SMax, _) => View::D,
                (MsgOp::FAdd | MsgOp::FSub | MsgOp::FMin | MsgOp::FMax, 64) => View::Df,
                (MsgOp::FAdd | MsgOp::FSub | MsgOp::FMin | MsgOp::FMax, 32) => View::F,
                _ => View::Base,
            };
            MessageOperands {
                dst,
                op: message,
                bits: ty.bits(),
                addr,
                src0: (!message.takes_no_source()).then_some(value),
                src1: None,
                view,
            }
        }
        _ => return Err(EmitError::new(EmitPart::Memory, "not a memory primitive")),
    })
}
