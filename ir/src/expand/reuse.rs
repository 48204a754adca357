//! The reuse pass: common pure results computed once (value numbering along single edges).
//!
//! A block entered by one edge may reuse what the block before it computed instead of computing
//! it again: a CAS loop's exit block extracts the old element from the word the loop body
//! already extracted it from (on the exit edge, the word the CAS returned equals the one it
//! expected). A reused primitive becomes a [`UnaryOp::Copy`] of the earlier result, so every
//! register keeps its one definition and the validator and the interpreter check the result.

use smallvec::SmallVec;

use super::{BinaryOp, Block, CmpCond, Expansion, Prim, PrimType, Terminator, UnaryOp, Var};

/// A pure primitive by what it computes, its operands named by their [`Reuse::same`] variable.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PureKey {
    Unary(UnaryOp, Var, PrimType),
    Binary(BinaryOp, Var, Var),
    Cmp(CmpCond, Var, Var),
}

/// The reuse pass, with storage kept from one expansion to the next.
#[derive(Default)]
pub struct Reuse {
    /// Per variable: a variable known to hold the same value where the current block runs.
    same: Vec<Var>,
    /// Per `Cmp eq` result: its operands.
    equal_operands: Vec<Option<(Var, Var)>>,
    /// Pure primitives already seen: what each computes, its result and its block.
    computed: Vec<(PureKey, Var, Block)>,
    /// The one predecessor of the current block, whose results it may reuse.
    from: Option<Block>,
    /// Variables of the predecessor rewritten on the way to the current block: the linear walk
    /// binds both edges' parameters before a branch whose edges bind independently, so the
    /// parameters of the edge not taken no longer hold what the predecessor computed with.
    clobbered: Vec<Var>,
}

impl Reuse {
    /// A pass with empty buffers.
    pub fn new() -> Self {
        Reuse::default()
    }

    /// Replaces every pure primitive whose result is already computed where it runs by a copy
    /// of that result.
    pub fn run(&mut self, expansion: &mut Expansion) {
        self.reset(expansion.vars.len());
        let blocks: SmallVec<[Block; 8]> = expansion.blocks.keys().collect();
        for block in blocks {
            self.enter(expansion, block);
            for index in 0..expansion.blocks[block].prims.len() {
                let prim = expansion.blocks[block].prims[index];
                let Some((key, dst)) = self.key(&prim, expansion) else {
                    continue;
                };
                let slot = dst.as_u32() as usize;
                if let Some(earlier) = self.find(key, block) {
                    let earlier_slot = earlier.as_u32() as usize;
                    expansion.blocks[block].prims[index] = Prim::Unary {
                        dst,
                        op: UnaryOp::Copy,
                        src: earlier,
                    };
                    self.same[slot] = self.same[earlier_slot];
                    self.equal_operands[slot] = self.equal_operands[earlier_slot];
                    continue;
                }
                if let Prim::Cmp {
                    cond: CmpCond::Eq,
                    a,
                    b,
                    ..
                } = prim
                {
                    self.equal_operands[slot] = Some((a, b));
                }
                self.computed.push((key, dst, block));
            }
        }
    }

    fn reset(&mut self, vars: usize) {
        self.same.clear();
        self.same.extend((0..vars as u32).map(Var::from_u32));
        self.equal_operands.clear();
        self.equal_operands.resize(vars, None);
        self.computed.clear();
        self.from = None;
        self.clobbered.clear();
    }

    /// Enters `block`: with a single incoming edge, its parameters are copies of the edge's
    /// arguments (or, on the taken side of an equality test, of the other operand).
    fn enter(&mut self, expansion: &Expansion, block: Block) {
        self.from = None;
        self.clobbered.clear();
        let mut incoming = None;
        let mut count = 0;
        for (source, data) in &expansion.blocks {
            for target in data.terminator.successors() {
                if target.block == block {
                    count += 1;
                    incoming = Some((source, &data.terminator, target));
                }
            }
        }
        let Some((source, terminator, edge)) = incoming else {
            return;
        };
        if count != 1 || source == block {
            return;
        }
        let equal = match terminator {
            Terminator::Branch { cond, then, .. } if std::ptr::eq(then, edge) => {
                self.equal_operands[cond.as_u32() as usize]
            }
            _ => None,
        };
        let params = &expansion.blocks[block].params;
        for (param, arg) in params.iter().zip(&edge.args) {
            let mut same = self.same[arg.as_u32() as usize];
            if let Some((x, y)) = equal {
                if *arg == x {
                    same = self.same[y.as_u32() as usize];
                } else if *arg == y {
                    same = self.same[x.as_u32() as usize];
                }
            }
            self.same[param.as_u32() as usize] = same;
        }
        if let Terminator::Branch {
            cond,
            then,
            otherwise,
        } = terminator
        {
            if expansion.binds_independently(source, *cond, then, otherwise) {
                // The other edge's parameters were set before the branch.
                let other = if std::ptr::eq(then, edge) {
                    otherwise
                } else {
                    then
                };
                let other_params = &expansion.blocks[other.block].params;
                for (param, arg) in other_params.iter().zip(&other.args) {
                    let unchanged = equal.is_some_and(|(x, y)| {
                        (*arg == x && *param == y) || (*arg == y && *param == x)
                    });
                    if !unchanged {
                        self.clobbered.push(*param);
                    }
                }
            }
        }
        self.from = Some(source);
    }

    /// What a pure primitive computes, and the variable it defines.
    fn key(&self, prim: &Prim, expansion: &Expansion) -> Option<(PureKey, Var)> {
        let same = |v: Var| self.same[v.as_u32() as usize];
        match *prim {
            Prim::Unary { dst, op, src } => {
                Some((PureKey::Unary(op, same(src), expansion.vars[dst]), dst))
            }
            Prim::Binary { dst, op, a, b } => Some((PureKey::Binary(op, same(a), same(b)), dst)),
            Prim::Cmp { dst, cond, a, b } => Some((PureKey::Cmp(cond, same(a), same(b)), dst)),
            _ => None,
        }
    }

    fn find(&self, key: PureKey, block: Block) -> Option<Var> {
        let mentions = |v: Var| self.clobbered.contains(&v);
        let clobbered = match key {
            PureKey::Unary(_, a, _) => mentions(a),
            PureKey::Binary(_, a, b) | PureKey::Cmp(_, a, b) => mentions(a) || mentions(b),
        };
        self.computed
            .iter()
            .find(|(k, _, at)| {
                *k == key && (*at == block || (Some(*at) == self.from && !clobbered))
            })
            .map(|(_, dst, _)| *dst)
    }
}
