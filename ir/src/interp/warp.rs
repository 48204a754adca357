//! The warp model of the interpreter: lanes that run alone between warp primitives, and the
//! collective step that carries out a warp primitive for the lanes it names.

use cranelift_entity::SecondaryMap;

use super::{binary, InterpError, Interpreter, Outcome};
use crate::expand::{Block, Expansion, Prim, Var};
use crate::semantics::width_mask;

/// The lanes of a warp.
pub(super) const WARP_LANES: usize = 32;

/// The lanes whose bits are set in `mask`, in lane order.
fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_LANES).filter(move |lane| mask & 1 << lane != 0)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum LaneStatus {
    #[default]
    Running,
    AtWarp,
    Returned,
}

/// A lane of a warp run: its registers while another lane runs, and where it is.
#[derive(Clone, Debug)]
pub(super) struct LaneState {
    pub(super) regs: SecondaryMap<Var, Option<u128>>,
    pub(super) block: Block,
    pub(super) pc: usize,
    pub(super) outcome: Outcome,
    pub(super) status: LaneStatus,
    /// A warp primitive's result, written once every lane of its group has read its inputs.
    pending: Option<(Var, u128)>,
}

impl Default for LaneState {
    fn default() -> Self {
        LaneState {
            regs: SecondaryMap::new(),
            block: Block::from_u32(0),
            pc: 0,
            outcome: Outcome::default(),
            status: LaneStatus::Returned,
            pending: None,
        }
    }
}

impl Interpreter {
    /// Carries out one warp primitive for the lanes it names, among the lanes of `waiting`
    /// (each waits at a warp primitive): the first group, in lane order, whose lanes all wait
    /// at it.
    pub(super) fn collective(
        &mut self,
        expansion: &Expansion,
        waiting: u32,
    ) -> Result<(), InterpError> {
        let never_met = InterpError::Unsupported(
            "a warp primitive that a lane of its mask does not reach with the same mask",
        );
        let lanes = &mut self.lanes;
        let at = |lanes: &[LaneState], lane: usize| (lanes[lane].block, lanes[lane].pc);
        let reg = |lanes: &[LaneState], lane: usize, var: Var| {
            lanes[lane]
                .regs
                .get(var)
                .copied()
                .flatten()
                .ok_or(InterpError::UndefinedVar(var))
        };
        for first in (0..WARP_LANES).filter(|lane| waiting & 1 << lane != 0) {
            let (block, pc) = at(lanes, first);
            let prim = expansion.blocks[block].prims[pc];
            prim.check_types(&expansion.vars)
                .map_err(InterpError::Type)?;
            let same_place = (0..WARP_LANES)
                .filter(|&lane| waiting & 1 << lane != 0 && at(lanes, lane) == (block, pc))
                .fold(0u32, |mask, lane| mask | 1 << lane);
            let group = match prim {
                Prim::WarpPeers { .. } => same_place,
                Prim::WarpLeads { peers, .. }
                | Prim::WarpFirst { peers, .. }
                | Prim::WarpScan { peers, .. }
                | Prim::WarpBroadcast { peers, .. }
                | Prim::WarpFromRank { peers, .. }
                | Prim::WarpSync { peers } => {
                    let mask = reg(lanes, first, peers)? as u32;
                    if mask & 1 << first == 0 {
                        return Err(InterpError::Unsupported(
                            "a lane mask without the lane that reads it",
                        ));
                    }
                    if mask & !same_place != 0 {
                        // Some lane of the mask is elsewhere: it may still arrive.
                        continue;
                    }
                    for lane in lanes_of(mask) {
                        if reg(lanes, lane, peers)? as u32 != mask {
                            return Err(never_met);
                        }
                    }
                    mask
                }
                _ => return Err(InterpError::Unsupported("not a warp primitive")),
            };
            for lane in lanes_of(group) {
                let value = match prim {
                    Prim::WarpPeers { dst, key, .. } => {
                        let own = reg(lanes, lane, key)?;
                        let mut mask = 0u32;
                        for other in lanes_of(group) {
                            if reg(lanes, other, key)? == own {
                                mask |= 1 << other;
                            }
                        }
                        Some((dst, u128::from(mask)))
                    }
                    Prim::WarpLeads { dst, .. } => Some((dst, u128::from(group >> lane == 1))),
                    Prim::WarpFirst { dst, .. } => {
                        Some((dst, u128::from(group & ((1 << lane) - 1) == 0)))
                    }
                    Prim::WarpScan {
                        dst,
                        op,
                        value,
                        span,
                        ..
                    } => {
                        let lane_ty = expansion.vars[value];
                        let mut fold = op.scan_identity(lane_ty).ok_or(never_met.clone())?;
                        for other in lanes_of(group) {
                            if span.folds(other, lane) {
                                let contribution = reg(lanes, other, value)?;
                                fold = binary(op, lane_ty, fold, contribution)
                                    .ok_or(never_met.clone())?;
                            }
                        }
                        Some((dst, fold))
                    }
                    Prim::WarpBroadcast { dst, value, .. } => {
                        let highest = 31 - group.leading_zeros() as usize;
                        Some((dst, reg(lanes, highest, value)?))
                    }
                    Prim::WarpFromRank {
                        dst, value, rank, ..
                    } => {
                        // The rank must be the same in every lane, and name a lane of the group.
                        let wanted = reg(lanes, first, rank)?;
                        if reg(lanes, lane, rank)? != wanted {
                            return Err(InterpError::Unsupported(
                                "a rank that differs between the lanes of a group",
                            ));
                        }
                        let source = usize::try_from(wanted)
                            .ok()
                            .and_then(|rank| lanes_of(group).nth(rank))
                            .ok_or(InterpError::Unsupported(
                                "a rank beyond the lanes of a group",
                            ))?;
                        Some((dst, reg(lanes, source, value)?))
                    }
                    _ => None,
                };
                let state = &mut lanes[lane];
                state.outcome.step(self.step_limit)?;
                if let Some((dst, bits)) = value {
                    let width = expansion.vars[dst].bits();
                    state.pending = Some((dst, bits & width_mask(width)));
                }
            }
            // Every lane read the others' registers before any of them is written.
            for lane in lanes_of(group) {
                let state = &mut lanes[lane];
                if let Some((dst, bits)) = state.pending.take() {
                    state.regs[dst] = Some(bits);
                }
                state.pc += 1;
                state.status = LaneStatus::Running;
            }
            return Ok(());
        }
        Err(InterpError::Unsupported(
            "a warp primitive that a lane of its mask never reaches",
        ))
    }
}
