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

/// A lane's register, which must be defined.
fn reg(lanes: &[LaneState], lane: usize, var: Var) -> Result<u128, InterpError> {
    lanes[lane]
        .regs
        .get(var)
        .copied()
        .flatten()
        .ok_or(InterpError::UndefinedVar(var))
}

/// The error of a warp primitive that the lanes of its mask do not meet at alike.
const NEVER_MET: InterpError = InterpError::Unsupported(
    "a warp primitive that a lane of its mask does not reach with the same mask",
);

/// The lanes that carry out `prim` together with `first`, where all of them wait at it
/// (`same_place`: the lanes waiting where `first` waits); `None` while one of them may still
/// arrive. Every lane of the mask must read the same mask there.
fn meeting(
    lanes: &[LaneState],
    prim: Prim,
    first: usize,
    same_place: u32,
) -> Result<Option<u32>, InterpError> {
    let members = match prim {
        Prim::WarpActive { .. } => return Ok(Some(same_place)),
        Prim::WarpBallot { members, .. }
        | Prim::WarpPeers { members, .. }
        | Prim::WarpScan { members, .. }
        | Prim::WarpBroadcast { members, .. }
        | Prim::WarpFromRank { members, .. }
        | Prim::WarpSync { members } => members,
        Prim::WarpLeads { peers, .. } | Prim::WarpFirst { peers, .. } => peers,
        _ => return Err(InterpError::Unsupported("not a warp primitive")),
    };
    let mask = reg(lanes, first, members)? as u32;
    if mask & 1 << first == 0 {
        return Err(InterpError::Unsupported(
            "a lane mask without the lane that reads it",
        ));
    }
    if mask & !same_place != 0 {
        // Some lane of the mask is elsewhere: it may still arrive.
        return Ok(None);
    }
    for lane in lanes_of(mask) {
        if reg(lanes, lane, members)? as u32 != mask {
            return Err(NEVER_MET);
        }
    }
    Ok(Some(mask))
}

/// `lane`'s group (its mask `peers`) among the lanes of `group` that meet: its own bit set, a
/// subset of them, and the same group in every lane of it.
fn peers_of(lanes: &[LaneState], lane: usize, peers: Var, group: u32) -> Result<u32, InterpError> {
    let mask = reg(lanes, lane, peers)? as u32;
    let closed = lanes_of(mask).try_fold(true, |closed, other| {
        Ok::<_, InterpError>(closed && reg(lanes, other, peers)? as u32 == mask)
    })?;
    if mask & 1 << lane == 0 || mask & !group != 0 || !closed {
        return Err(InterpError::Unsupported(
            "a group that is not one of the lanes that meet",
        ));
    }
    Ok(mask)
}

/// What `prim`, carried out by the lanes of `group`, writes in `lane`: the register and its
/// value, if it defines one.
fn lane_result(
    lanes: &[LaneState],
    expansion: &Expansion,
    prim: Prim,
    group: u32,
    lane: usize,
) -> Result<Option<(Var, u128)>, InterpError> {
    let mask_where = |pred: &dyn Fn(usize) -> Result<bool, InterpError>| {
        lanes_of(group).try_fold(0u32, |mask, other| {
            Ok::<_, InterpError>(if pred(other)? {
                mask | 1 << other
            } else {
                mask
            })
        })
    };
    Ok(match prim {
        Prim::WarpActive { dst } => Some((dst, u128::from(group))),
        Prim::WarpBallot { dst, pred, .. } => {
            let mask = mask_where(&|other| Ok(reg(lanes, other, pred)? != 0))?;
            Some((dst, u128::from(mask)))
        }
        Prim::WarpPeers { dst, key, .. } => {
            let own = reg(lanes, lane, key)?;
            let mask = mask_where(&|other| Ok(reg(lanes, other, key)? == own))?;
            Some((dst, u128::from(mask)))
        }
        Prim::WarpLeads { dst, .. } => Some((dst, u128::from(group >> lane == 1))),
        Prim::WarpFirst { dst, .. } => Some((dst, u128::from(group & ((1 << lane) - 1) == 0))),
        Prim::WarpScan {
            dst,
            op,
            peers,
            value,
            span,
            max_peers,
            ..
        } => {
            let lane_ty = expansion.vars[value];
            let mut fold = op.scan_identity(lane_ty).ok_or(NEVER_MET)?;
            let peers = peers_of(lanes, lane, peers, group)?;
            if peers.count_ones() > max_peers {
                return Err(InterpError::Unsupported(
                    "a group of more lanes than its scan's bound",
                ));
            }
            for other in lanes_of(peers) {
                if span.folds(other, lane) {
                    let contribution = reg(lanes, other, value)?;
                    fold = binary(op, lane_ty, fold, contribution).ok_or(NEVER_MET)?;
                }
            }
            Some((dst, fold))
        }
        Prim::WarpBroadcast {
            dst, peers, value, ..
        } => {
            let highest = 31 - peers_of(lanes, lane, peers, group)?.leading_zeros() as usize;
            Some((dst, reg(lanes, highest, value)?))
        }
        Prim::WarpFromRank {
            dst,
            peers,
            value,
            rank,
            ..
        } => {
            // The rank must be the same in every lane of a group, and name a lane of it.
            let peers = peers_of(lanes, lane, peers, group)?;
            let lowest = peers.trailing_zeros() as usize;
            let wanted = reg(lanes, lowest, rank)?;
            if reg(lanes, lane, rank)? != wanted {
                return Err(InterpError::Unsupported(
                    "a rank that differs between the lanes of a group",
                ));
            }
            let source = usize::try_from(wanted)
                .ok()
                .and_then(|rank| lanes_of(peers).nth(rank))
                .ok_or(InterpError::Unsupported(
                    "a rank beyond the lanes of a group",
                ))?;
            Some((dst, reg(lanes, source, value)?))
        }
        _ => None,
    })
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
        let lanes = &mut self.lanes;
        let at = |lanes: &[LaneState], lane: usize| (lanes[lane].block, lanes[lane].pc);
        for first in (0..WARP_LANES).filter(|lane| waiting & 1 << lane != 0) {
            let (block, pc) = at(lanes, first);
            let prim = expansion.blocks[block].prims[pc];
            prim.check_types(&expansion.vars)
                .map_err(InterpError::Type)?;
            let same_place = (0..WARP_LANES)
                .filter(|&lane| waiting & 1 << lane != 0 && at(lanes, lane) == (block, pc))
                .fold(0u32, |mask, lane| mask | 1 << lane);
            let Some(group) = meeting(lanes, prim, first, same_place)? else {
                continue;
            };
            for lane in lanes_of(group) {
                let value = lane_result(lanes, expansion, prim, group, lane)?;
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
