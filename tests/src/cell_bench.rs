//! Checks the results of the cell timing harness (`bench/gpu/cells/`) against the reference
//! semantics, and simulates runs for its self-test: the contention checker
//! ([`crate::contention`]) generalized to any matrix cell, scalar or vector.
//!
//! A run: `threads` threads in `groups` equal groups, each group acting on its own copy of the
//! memory (one group for global memory; one per thread block for shared memory, each block on
//! the shared memory of one block of its cluster). Copy `g` is the `g`-th `slot` of the memory
//! files (`slot` = length / groups): its elements packed at their own size, then guard bytes
//! that nothing may change. An element of a vector cell is the whole vector (a `v4.f32` takes 16
//! bytes of memory, of operand and of old value), whose elements are each atomic on their own
//! and checked as such, as the lanes of a packed type are. Thread `l` of a group performs one atomic on element `l % addresses`
//! with the operand at `operands[t]` (`t` the thread's global index; a cas takes two: expected
//! at `operands[2t]`, new at `operands[2t + 1]`); with the result used it stores its old value
//! to `olds[t]`. What is checked, per element (per lane of a packed type):
//! - result used: the old values and the final value form a valid linearization;
//! - result unused, an op whose final value does not depend on the order: the final value,
//!   exactly; a float add or sub: as [`crate::contention`] checks a float add reduction;
//! - result unused, exch or store: the final value is one of the operands (or the initial value
//!   where no thread acts on the element);
//! - result unused, any other op (cas, inc, dec, nand, usub_cond, load): not checked beyond
//!   the guard bytes, reported as [`CheckKind::Weak`].

use atomir_ir::matrix::Cell;
use atomir_ir::semantics::{apply, width_mask, FloatMode};
use atomir_ir::{AtomicNode, AtomicOp, ElemType};
use atomir_ptx::PtxTarget;

use crate::contention::{float_sum_check, lane, read, write, CheckKind, Layout, Observed, Order};
use crate::linearize::Linearizer;

/// A matrix cell as the harness runs it.
#[derive(Clone, Copy, Debug)]
pub struct CellRun {
    pub cell: Cell,
    pub layout: Layout,
    pub groups: usize,
}

/// The cell of this name, if it is a cell of the matrix.
pub fn find_cell(name: &str) -> Option<Cell> {
    atomir_ir::matrix::cells().find(|cell| cell.name() == name)
}

impl CellRun {
    /// Bytes of one vector element (the scalar itself for a scalar cell).
    fn element_width(&self) -> usize {
        self.cell.ty.bytes() as usize
    }

    /// Bytes of what one thread acts on: the whole vector.
    fn width(&self) -> usize {
        self.element_width() * self.cell.shape.len()
    }

    /// Operands per thread: expected and new for a cas, one otherwise (a load ignores it).
    fn operand_count(&self) -> usize {
        if self.cell.op == AtomicOp::Cas {
            2
        } else {
            1
        }
    }

    /// The float mode of sm_90 for this cell's node (global-memory `atom.add.f32` flushes
    /// subnormals).
    pub fn float_mode(&self) -> FloatMode {
        let target = PtxTarget::parse("sm_90").expect("a known target");
        let kernel = self.cell.kernel();
        let inst = kernel.atomics().next().expect("one instruction").1;
        target.float_mode(&AtomicNode::of_inst(inst))
    }

    fn lanes(&self) -> (ElemType, u32) {
        let ty = self.cell.ty;
        if ty.is_packed() && !self.cell.op.is_move() {
            (ty.lane_type(), ty.lanes())
        } else {
            (ty, 1)
        }
    }

    fn per_group(&self) -> Result<usize, String> {
        if self.groups == 0 || !self.layout.threads.is_multiple_of(self.groups) {
            return Err(format!(
                "{} threads do not split into {} groups",
                self.layout.threads, self.groups
            ));
        }
        Ok(self.layout.threads / self.groups)
    }

    fn check_sizes(&self, observed: &Observed) -> Result<usize, String> {
        let width = self.width();
        let slot = observed.init.len() / self.groups.max(1);
        if self.layout.addresses == 0 || slot < self.layout.addresses * width {
            return Err(format!(
                "initial memory of {} bytes holds no {} groups of {} elements",
                observed.init.len(),
                self.groups,
                self.layout.addresses
            ));
        }
        if observed.last.len() != observed.init.len() {
            return Err(format!(
                "final memory has {} bytes, initial {}",
                observed.last.len(),
                observed.init.len()
            ));
        }
        let threads = self.layout.threads;
        if observed.operands.len() < threads * width * self.operand_count() {
            return Err(format!("operands: {} bytes", observed.operands.len()));
        }
        match (self.cell.result_used, observed.olds) {
            (true, Some(olds)) if olds.len() < threads * width => {
                Err(format!("old values: {} bytes", olds.len()))
            }
            (true, None) => Err("the result is used but no old values were given".into()),
            _ => Ok(slot),
        }
    }

    /// Thread `t`'s operand (expected for a cas) and new value (cas only, else 0) for vector
    /// element `element`.
    fn operands_of(&self, operands: &[u8], t: usize, element: usize) -> (u64, u64) {
        let (width, part) = (self.width(), self.element_width());
        let at = element * part;
        if self.cell.op == AtomicOp::Cas {
            (
                read(operands, 2 * t * width + at, part),
                read(operands, (2 * t + 1) * width + at, part),
            )
        } else {
            (read(operands, t * width + at, part), 0)
        }
    }

    /// Checks a run; the weakest kind of check that passed, or what is wrong.
    pub fn check(&self, observed: &Observed) -> Result<CheckKind, String> {
        let per_group = self.per_group()?;
        let slot = self.check_sizes(observed)?;
        let width = self.width();
        let used_bytes = self.layout.addresses * width;
        for group in 0..self.groups {
            let base = group * slot;
            if let Some(offset) =
                (base + used_bytes..base + slot).find(|&i| observed.init[i] != observed.last[i])
            {
                return Err(format!(
                    "group {group}: byte {}, beyond the {} elements, changed from {:#04x} to {:#04x}",
                    offset - base,
                    self.layout.addresses,
                    observed.init[offset],
                    observed.last[offset]
                ));
            }
        }
        let mut weakest = if self.cell.result_used {
            CheckKind::Linearization
        } else {
            CheckKind::Exact
        };
        let mut linearizer = Linearizer::new();
        for group in 0..self.groups {
            for address in 0..self.layout.addresses {
                let threads: Vec<usize> = (address..per_group)
                    .step_by(self.layout.addresses)
                    .map(|l| group * per_group + l)
                    .collect();
                let at = group * slot + address * width;
                if threads.is_empty() {
                    // No thread acts on it (more addresses than threads in the group).
                    if observed.init[at..at + width] != observed.last[at..at + width] {
                        return Err(format!(
                            "group {group} element {address}: changed, and no thread acts on it"
                        ));
                    }
                    continue;
                }
                for element in 0..self.cell.shape.len() {
                    let kind = self
                        .check_element(
                            observed,
                            (group * slot, address),
                            element,
                            &threads,
                            &mut linearizer,
                        )
                        .map_err(|reason| {
                            format!("group {group} element {address}.{element}: {reason}")
                        })?;
                    weakest = weakest.max(kind);
                }
            }
        }
        Ok(weakest)
    }

    /// Checks vector element `element` (0 for a scalar) of address `address` of the copy at
    /// byte `base`.
    fn check_element(
        &self,
        observed: &Observed,
        (base, address): (usize, usize),
        element: usize,
        threads: &[usize],
        linearizer: &mut Linearizer<u64>,
    ) -> Result<CheckKind, String> {
        let width = self.element_width();
        let offset = base + address * self.width() + element * width;
        let olds_at = |t: usize| t * self.width() + element * width;
        let mode = self.float_mode();
        let (lane_ty, lanes) = self.lanes();
        let lane_bits = lane_ty.bits();
        let op = self.cell.op;
        let init_bits = read(observed.init, offset, width);
        let last_bits = read(observed.last, offset, width);
        let mut weakest = CheckKind::Linearization;
        for index in 0..lanes {
            let init = lane(init_bits, index, lane_bits);
            let last = lane(last_bits, index, lane_bits);
            let operands: Vec<(u64, u64)> = threads
                .iter()
                .map(|&t| {
                    let (b, c) = self.operands_of(observed.operands, t, element);
                    (lane(b, index, lane_bits), lane(c, index, lane_bits))
                })
                .collect();
            let step = |old: u64, (b, c): (u64, u64)| {
                apply(
                    op,
                    lane_ty,
                    u128::from(old),
                    u128::from(b),
                    u128::from(c),
                    mode,
                ) as u64
            };
            let place = format!("lane {index}, initial {init:#x}, final {last:#x}");
            if let Some(olds) = observed.olds.filter(|_| self.cell.result_used) {
                let edges: Vec<(u64, u64)> = threads
                    .iter()
                    .zip(&operands)
                    .map(|(&t, &operand)| {
                        let old = lane(read(olds, olds_at(t), width), index, lane_bits);
                        (old, step(old, operand))
                    })
                    .collect();
                if !linearizer.is_trail(init, last, &edges) {
                    return Err(format!(
                        "{place}: the old values of {} threads are no linearization",
                        edges.len()
                    ));
                }
                continue;
            }
            let kind = self
                .unused_check(lane_ty, mode, init, last, &operands)
                .map_err(|reason| format!("{place}, {} operands: {reason}", operands.len()))?;
            weakest = weakest.max(kind);
        }
        Ok(weakest)
    }

    /// The final value of an element whose old values nobody kept.
    fn unused_check(
        &self,
        lane_ty: ElemType,
        mode: FloatMode,
        init: u64,
        last: u64,
        operands: &[(u64, u64)],
    ) -> Result<CheckKind, String> {
        let op = self.cell.op;
        let apply_op = |op: AtomicOp, old: u64, b: u64| {
            apply(op, lane_ty, u128::from(old), u128::from(b), 0, mode) as u64
        };
        let plain: Vec<u64> = operands.iter().map(|&(b, _)| b).collect();
        if lane_ty.is_float() && matches!(op, AtomicOp::Add | AtomicOp::Sub) {
            // A float sub is the add of the negated operand, bit for bit.
            let sign = 1u64 << (lane_ty.bits() - 1);
            let addends: Vec<u64> = plain
                .iter()
                .map(|&b| if op == AtomicOp::Sub { b ^ sign } else { b })
                .collect();
            return float_sum_check(lane_ty, mode, init, last, &addends, |value, b| {
                apply_op(AtomicOp::Add, value, b)
            });
        }
        if order_independent(op) {
            let expected = plain.iter().fold(init, |value, &b| apply_op(op, value, b));
            return if expected == last {
                Ok(CheckKind::Exact)
            } else {
                Err(format!("expected {expected:#x}"))
            };
        }
        if matches!(op, AtomicOp::Exch | AtomicOp::Store) {
            let mask = width_mask(lane_ty.bits()) as u64;
            let reachable = if plain.is_empty() {
                last == init
            } else {
                plain.iter().any(|&b| b & mask == last)
            };
            return if reachable {
                Ok(CheckKind::Member)
            } else {
                Err("the final value is none of the values stored".into())
            };
        }
        Ok(CheckKind::Weak)
    }

    /// Final memory and (result used) old values of the threads run one after another.
    pub fn simulate(
        &self,
        init: &[u8],
        operands: &[u8],
        order: Order,
    ) -> Result<(Vec<u8>, Option<Vec<u8>>), String> {
        let per_group = self.per_group()?;
        let slot = init.len() / self.groups;
        let (width, part) = (self.width(), self.element_width());
        let mode = self.float_mode();
        let mut memory = init.to_vec();
        let mut olds = vec![0u8; self.layout.threads * width];
        for t in crate::contention::ordered(self.layout.threads, order) {
            let offset = (t / per_group) * slot + (t % per_group % self.layout.addresses) * width;
            for element in 0..self.cell.shape.len() {
                let at = offset + element * part;
                let old = read(&memory, at, part);
                let (b, c) = self.operands_of(operands, t, element);
                let new = apply(
                    self.cell.op,
                    self.cell.ty,
                    u128::from(old),
                    u128::from(b),
                    u128::from(c),
                    mode,
                ) as u64;
                write(&mut memory, at, part, new);
                write(&mut olds, t * width + element * part, part, old);
            }
        }
        Ok((memory, self.cell.result_used.then_some(olds)))
    }
}

/// Ops whose final value after a set of atomics does not depend on their order (bit for bit).
fn order_independent(op: AtomicOp) -> bool {
    matches!(
        op,
        AtomicOp::Add
            | AtomicOp::Sub
            | AtomicOp::And
            | AtomicOp::Or
            | AtomicOp::Xor
            | AtomicOp::Min
            | AtomicOp::Max
            | AtomicOp::UsubSat
            | AtomicOp::FMinimum
            | AtomicOp::FMaximum
            | AtomicOp::FMinimumNum
            | AtomicOp::FMaximumNum
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const THREADS: usize = 512;

    fn operands(run: &CellRun, seed: u64) -> Vec<u8> {
        let count = THREADS * run.width() * run.operand_count();
        let mut state = seed | 1;
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Small values, so that a cas finds its expected value now and then.
                (state % 3) as u8
            })
            .collect()
    }

    fn runs() -> Vec<CellRun> {
        [
            ("cas_relaxed_device_global_scalar_b32_used", 1),
            ("cas_acq_rel_cluster_shared_cluster_scalar_b16_used", 2),
            ("exch_relaxed_device_global_scalar_u64_dead", 1),
            ("add_relaxed_device_global_scalar_f16_used", 1),
            ("add_relaxed_block_shared_scalar_u8_dead", 4),
            ("sub_relaxed_device_global_scalar_f32_dead", 1),
            ("load_acquire_device_global_scalar_u32_used", 1),
            ("store_release_device_global_scalar_u32_dead", 1),
            ("inc_relaxed_device_global_scalar_u32_used", 1),
            ("add_relaxed_device_global_v4_f32_used", 1),
            ("cas_relaxed_device_global_v2_b16_used", 1),
            ("max_relaxed_block_shared_v2_u64_dead", 2),
            ("usub_sat_acq_rel_device_global_v2_u64_used", 1),
        ]
        .into_iter()
        .flat_map(|(name, groups)| {
            let cell = find_cell(name).unwrap_or_else(|| panic!("no cell {name}"));
            [1, 3, 64].map(|addresses| CellRun {
                cell,
                layout: Layout {
                    addresses,
                    threads: THREADS,
                },
                groups,
            })
        })
        .collect()
    }

    fn memory(run: &CellRun) -> Vec<u8> {
        let slot = (run.layout.addresses * run.width()).div_ceil(16) * 16 + 16;
        let mut one = vec![0xa5u8; slot];
        one[..run.layout.addresses * run.width()].fill(0);
        one.repeat(run.groups)
    }

    #[test]
    fn sequential_runs_pass_and_corrupted_ones_fail() {
        for run in runs() {
            let init = memory(&run);
            let operands = operands(&run, 7);
            for order in [Order::Forward, Order::Reverse, Order::Shuffled(3)] {
                let (last, olds) = run.simulate(&init, &operands, order).expect("simulates");
                let observed = Observed {
                    init: &init,
                    last: &last,
                    operands: &operands,
                    olds: olds.as_deref(),
                };
                let kind = run.check(&observed);
                assert!(kind.is_ok(), "{}: {kind:?}", run.cell.name());
                // A guard byte of the last group changed.
                let mut guard = last.clone();
                let end = guard.len() - 1;
                guard[end] ^= 1;
                let broken = Observed {
                    last: &guard,
                    ..observed
                };
                assert!(run.check(&broken).is_err(), "{}: guard", run.cell.name());
                // An old value no run can give: the element's initial value never came back
                // from a thread that is not the first, where the op changes memory.
                if let Some(olds) = &olds {
                    let mut wrong = olds.clone();
                    for byte in wrong.iter_mut() {
                        *byte ^= 0x40;
                    }
                    let observed = Observed {
                        olds: Some(&wrong),
                        ..observed
                    };
                    assert!(run.check(&observed).is_err(), "{}: olds", run.cell.name());
                }
            }
        }
    }
}
