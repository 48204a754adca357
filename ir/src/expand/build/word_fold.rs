//! 8/16-bit elements carried out once per aligned 32-bit word by a warp, each address's lanes
//! folded first ([`WarpCombine::WordFold`]).
//!
//! [`WarpCombine::WordFold`]: crate::legal::WarpCombine::WordFold

use super::attempt::first_load;
use super::part_word::whole_word_loop;
use super::serial_fold::{after_own_attempt, own_loop_from, Unit};
use super::warp::{alone_in, members_unless, PeerSplit, WarpFold};
use super::{mem_attrs, skips_unchanged, Builder};
use crate::expand::{BinaryOp, CmpCond, Prim, PrimType, ScanSpan, UnaryOp, Var};
use crate::node::AtomicNode;
use crate::types::ElemType;

/// Emits one 8/16-bit integer element carried out once per aligned 32-bit word by a warp,
/// exactly: the lanes whose elements lie in one word form a group; within it, the lanes of each
/// address fold their operands by `fold` (wrapping add for add and sub, integer min/max; exact,
/// being associative and commutative), the highest lane of each address places its address's
/// fold in its bits of a word, and the highest lane of the group carries out every address's
/// fold in one masked CAS loop on the word, each applied to its own bits. Each lane gets the
/// old value of the linearization in which the group's operations are consecutive, those at
/// one address in lane order: its element of the replaced word, folded with the operands of
/// its address's lanes below it (for sub, minus their sum). A lane alone in its word runs its
/// own loop on the word ([`own_loop_from`]). A 16-bit element's lane first makes one attempt of its own, and only those
/// whose CAS failed combine ([`after_own_attempt`]); 8-bit elements combine at once. Where
/// neighbouring lanes act on neighbouring elements, half the 16-bit lanes then succeed at
/// once and the other half find themselves alone in their word, while three of every four
/// 8-bit lanes would fail: on an H200 at 2^20 addresses (no contention beyond the warp's),
/// combining at once took u16 add 0.026 ms against 0.019 ms after an own attempt, and u8 add
/// 0.022 ms against 0.028 ms (bench/RESULTS.md).
///
/// The addresses' folds travel in one word by an or-scan over the addresses' leaders: each
/// contributes its address's fold xor the fold's identity in its bits, so that the bits of an
/// address no lane acts on decode to the identity, which the loop applies without changing
/// them. The lanes of a group wait for each other with ordering before the
/// loop and after the replaced word is shared, as the other warp-combined elements do. Leaves
/// the builder in the exit block and returns this lane's old value in the element's natural
/// type.
pub(super) fn word_fold_element(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    addr: Var,
    operand: Var,
    fold: WarpFold,
) -> Var {
    let unit = Unit::of(b, ty, addr);
    if ty.bits() == 8 {
        let mem = mem_attrs(node);
        let skip = skips_unchanged(node.op, mem.order);
        let loaded = first_load(b, unit.addr, PrimType::I32, mem, skip);
        return fold_in_word_groups(b, node, ty, addr, operand, fold, unit, loaded);
    }
    after_own_attempt(b, node, ty, unit, operand, |b, seen| {
        fold_in_word_groups(b, node, ty, addr, operand, fold, unit, seen)
    })
}

/// [`word_fold_element`] for the lanes that combine; `seen` is a value of the word, where the
/// group's loop starts: this lane's first load, or the word its failed own CAS found (a trip
/// to memory fewer than a load).
#[allow(clippy::too_many_arguments)]
fn fold_in_word_groups(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    addr: Var,
    operand: Var,
    fold: WarpFold,
    unit: Unit,
    seen: Var,
) -> Var {
    let element_ty = PrimType::int(ty.bits());
    let shift = unit
        .shift
        .expect("an 8/16-bit element lies inside its word");
    let split = PeerSplit::emit(b, unit.addr, 4, |b| {
        own_loop_from(b, node, ty, unit, operand, seen)
    });
    let (word_peers, grouped) = (split.peers, split.members);
    let addr_peers = b.var(PrimType::I32);
    b.push(Prim::WarpPeers {
        dst: addr_peers,
        key: addr,
        key_stride: ty.bytes(),
        members: grouped,
    });
    let contribution = fold.contribution(b, ty, operand);
    let below = fold_below(b, fold, addr_peers, grouped, contribution);
    let folds = address_folds(b, fold, addr_peers, below, contribution, shift);
    let gathered = gather_folds(b, [addr_peers, word_peers, grouped], &folds);
    let leads = b.var(PrimType::Pred);
    b.push(Prim::WarpLeads {
        dst: leads,
        peers: word_peers,
    });
    b.push(Prim::WarpSync { members: grouped });
    let nothing = b.constant(PrimType::I32, 0);
    let group_entry = b.current;

    // The group's highest lane holds every address's fold: it carries them out at once.
    let (leader, _) = b.block(&[]);
    b.switch_to(leader);
    let operand_word = b.binary(BinaryOp::Xor, gathered, folds.identities);
    let replaced = whole_word_loop(b, node, unit.addr, operand_word, seen);
    let (shared, shared_params) = b.block(&[PrimType::I32]);
    b.jump(shared, &[replaced]);
    b.branch_from(group_entry, leads, (leader, &[]), (shared, &[nothing]));

    b.switch_to(shared);
    let group_old_word = b.var(PrimType::I32);
    b.push(Prim::WarpBroadcast {
        dst: group_old_word,
        peers: word_peers,
        members: grouped,
        value: shared_params[0],
    });
    b.push(Prim::WarpSync { members: grouped });
    let group_old_bits = unit.extract(b, group_old_word, element_ty);
    let old_in_group = fold.old_in_group(b, node, ty, addr_peers, group_old_bits, below);
    split.join(b, ty, old_in_group)
}

/// The fold of the contributions of this lane's address's lanes below it: the identity for a
/// lane alone at its address, without the scan's rounds of shuffles (at 2^20 addresses every
/// lane is alone at its own; the lanes of one address all take the same way). `members` are
/// the lanes that reach this code.
fn fold_below(
    b: &mut Builder,
    fold: WarpFold,
    addr_peers: Var,
    members: Var,
    contribution: Var,
) -> Var {
    let op = fold.scan_op();
    let element_ty = b.ty(contribution);
    let identity = op
        .scan_identity(element_ty)
        .expect("an integer fold has an identity");
    let one = b.constant(PrimType::I32, 1);
    let zero = b.constant(PrimType::I32, 0);
    let alone = alone_in(b, addr_peers, one, zero);
    let scanning = members_unless(b, alone, members);
    let nothing = b.constant(element_ty, identity);
    let from = b.current;
    let (scan, _) = b.block(&[]);
    let (scanned, scanned_params) = b.block(&[element_ty]);
    b.branch_from(from, alone, (scanned, &[nothing]), (scan, &[]));
    b.switch_to(scan);
    let below = b.var(element_ty);
    b.push(Prim::WarpScan {
        dst: below,
        op,
        peers: addr_peers,
        members: scanning,
        value: contribution,
        span: ScanSpan::Below,
        max_peers: 32,
    });
    b.jump(scanned, &[below]);
    b.switch_to(scanned);
    scanned_params[0]
}

/// The or of the `placed` contributions of every lane of the word, in its highest lane, which
/// carries them out (any value in the others). Only the leaders of the word's addresses
/// contribute, at most four (one per byte), so only they scan: the highest lane leads its
/// address, and its inclusive scan over them is the whole. Where one address has every lane of
/// the word (each lane's address peers are then its word peers, in every lane of the word
/// alike), its highest lane's own contribution is already the whole, and the scan is skipped:
/// the common case of a warp on one address pays for one scan, as the per-address form does.
/// The scan's members are every lane of `members` that scans, of all words: each shuffle of
/// the warp is then one instruction, where members differing between the words were taken one
/// word at a time (an H200 timed u8 add at 2^20 addresses 1.8x llc's loop with them, bench/RESULTS.md).
fn gather_folds(
    b: &mut Builder,
    [addr_peers, word_peers, members]: [Var; 3],
    folds: &AddressFolds,
) -> Var {
    let one_address = b.cmp(CmpCond::Eq, addr_peers, word_peers);
    let skips = b.unary(UnaryOp::Not, folds.leads_address, PrimType::Pred);
    let skips = b.binary(BinaryOp::Or, one_address, skips);
    let scanning = members_unless(b, skips, members);
    let contributors = b.binary(BinaryOp::And, word_peers, scanning);
    let from = b.current;
    let (scan, _) = b.block(&[]);
    let (gathered, gathered_params) = b.block(&[PrimType::I32]);
    b.branch_from(from, skips, (gathered, &[folds.placed]), (scan, &[]));
    b.switch_to(scan);
    let scanned = b.var(PrimType::I32);
    b.push(Prim::WarpScan {
        dst: scanned,
        op: BinaryOp::Or,
        peers: contributors,
        members: scanning,
        value: folds.placed,
        span: ScanSpan::UpToOwn,
        max_peers: folds.per_word,
    });
    b.jump(gathered, &[scanned]);
    b.switch_to(gathered);
    gathered_params[0]
}

/// What a lane adds to the or-scan that gathers a word's folds.
struct AddressFolds {
    /// This lane's contribution: its address's fold xor the identity, in its bits, where it is
    /// the highest lane of its address; zero otherwise.
    placed: Var,
    /// The identity of the fold in every element of a word: the or of the contributions xor
    /// this is each address's fold in its bits, the identity elsewhere.
    identities: Var,
    /// Whether this lane is the highest of its address's lanes, the one that contributes.
    leads_address: Var,
    /// The elements of a word: the most addresses, and so contributions, a word has.
    per_word: u32,
}

/// The contribution of this lane to the gathering of its word's folds: the fold of its
/// address's lanes (those below it, `below`, and its own `contribution`) where it leads them.
fn address_folds(
    b: &mut Builder,
    fold: WarpFold,
    addr_peers: Var,
    below: Var,
    contribution: Var,
    shift: Var,
) -> AddressFolds {
    let op = fold.scan_op();
    let element_ty = b.ty(contribution);
    let bits = element_ty.bits();
    let identity = op
        .scan_identity(element_ty)
        .expect("an integer fold has an identity");
    let whole = b.binary(op, below, contribution);
    let identity_var = b.constant(element_ty, identity);
    let biased = b.binary(BinaryOp::Xor, whole, identity_var);
    let wide = b.unary(UnaryOp::Zext, biased, PrimType::I32);
    let in_place = b.binary(BinaryOp::Shl, wide, shift);
    let leads_address = b.var(PrimType::Pred);
    b.push(Prim::WarpLeads {
        dst: leads_address,
        peers: addr_peers,
    });
    let zero = b.constant(PrimType::I32, 0);
    let placed = b.select(leads_address, in_place, zero);
    let every_element = (0..32 / bits).fold(0u128, |word, k| word | identity << (k * bits));
    let identities = b.constant(PrimType::I32, every_element);
    AddressFolds {
        placed,
        identities,
        leads_address,
        per_word: 32 / bits,
    }
}
