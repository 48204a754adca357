//! The linearised walk of an expansion (cranelift's `machinst/blockorder.rs` idea): blocks in
//! layout order, block parameters bound by copies on the edges (a parallel copy made safe to do
//! one move at a time), and each two-way branch as one conditional branch with a fall-through.
//! Every printer consumes these steps; a printer of phis (LLVM) takes the blocks and their
//! terminators instead and reads the same edges with [`incoming`].

use smallvec::SmallVec;

use crate::expand::{Block, Edge, Expansion, PrimType, Terminator, Var};

/// A place a step jumps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    /// The start of a block.
    Block(Block),
    /// The `n`-th edge block: the copies of a branch's taken edge, when they cannot be done
    /// before the branch.
    Edge(u32),
    /// The end of the expansion.
    Done,
}

/// One step of the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A block begins; every block but the entry is a jump target.
    Block {
        /// The block.
        block: Block,
        /// Whether it is the entry block (which no jump targets).
        entry: bool,
    },
    /// Primitive `index` of `block`.
    Prim {
        /// The block holding it.
        block: Block,
        /// Its position in the block's primitives.
        index: u32,
    },
    /// `dst = src`: one move of an edge's copies, in an order that reads every source before it
    /// is overwritten.
    Copy {
        /// The parameter written.
        dst: Var,
        /// The register read.
        src: Var,
    },
    /// Jump to `to` where `cond` holds (or, `negated`, where it does not); fall through else.
    Branch {
        /// A predicate register.
        cond: Var,
        /// Jump where `cond` is false instead.
        negated: bool,
        /// Where to.
        to: Label,
    },
    /// Jump to `to`.
    Jump(Label),
    /// An edge block begins (see [`Label::Edge`]).
    Label(Label),
    /// The terminator of `block`, for a printer of phis: it reads the edges itself.
    Terminator(Block),
}

/// How a printer binds block parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Params {
    /// By copies on the edges (PTX, vISA): the walk resolves them and lays out the branches.
    Copies,
    /// By phis at the top of each block (LLVM): the walk gives blocks and terminators.
    Phis,
}

/// The walk of one expansion at a time, its storage reused from one to the next.
#[derive(Default)]
pub struct Linear {
    steps: Vec<Step>,
    pending: SmallVec<[(Var, Var); 4]>,
}

impl Linear {
    /// A walk with empty buffers.
    pub fn new() -> Self {
        Linear::default()
    }

    /// The steps of `expansion` for a printer that binds parameters as `params` says. A cycle of
    /// copies (a parameter passed to another of the same block) is broken through a register
    /// added to the expansion.
    pub fn walk(&mut self, expansion: &mut Expansion, params: Params) -> &[Step] {
        self.steps.clear();
        let order: SmallVec<[Block; 8]> = expansion.blocks.keys().collect();
        let mut edges = 0u32;
        for (position, &block) in order.iter().enumerate() {
            self.steps.push(Step::Block {
                block,
                entry: position == 0,
            });
            for index in 0..expansion.blocks[block].prims.len() {
                self.steps.push(Step::Prim {
                    block,
                    index: index as u32,
                });
            }
            if params == Params::Phis {
                self.steps.push(Step::Terminator(block));
                continue;
            }
            let next = order.get(position + 1).copied();
            let last = next.is_none();
            match expansion.blocks[block].terminator.clone() {
                Terminator::Return => {
                    if !last {
                        self.steps.push(Step::Jump(Label::Done));
                    }
                }
                Terminator::Jump(edge) => {
                    self.copies(expansion, &edge);
                    if Some(edge.block) != next {
                        self.steps.push(Step::Jump(Label::Block(edge.block)));
                    }
                }
                Terminator::Branch {
                    cond,
                    then,
                    otherwise,
                } if expansion.binds_independently(block, cond, &then, &otherwise) => {
                    // Both edges' copies go before the branch: then one conditional branch,
                    // falling through to the next block where it is a target (a CAS loop
                    // becomes one backward branch).
                    self.copies(expansion, &then);
                    self.copies(expansion, &otherwise);
                    let branch = |cond, negated, to: &Edge| Step::Branch {
                        cond,
                        negated,
                        to: Label::Block(to.block),
                    };
                    if Some(otherwise.block) == next {
                        self.steps.push(branch(cond, false, &then));
                    } else if Some(then.block) == next {
                        self.steps.push(branch(cond, true, &otherwise));
                    } else {
                        self.steps.push(branch(cond, false, &then));
                        self.steps.push(Step::Jump(Label::Block(otherwise.block)));
                    }
                }
                Terminator::Branch {
                    cond,
                    then,
                    otherwise,
                } => {
                    // The taken edge's copies go in an edge block of their own.
                    let edge = Label::Edge(edges);
                    edges += 1;
                    self.steps.push(Step::Branch {
                        cond,
                        negated: false,
                        to: edge,
                    });
                    self.copies(expansion, &otherwise);
                    self.steps.push(Step::Jump(Label::Block(otherwise.block)));
                    self.steps.push(Step::Label(edge));
                    self.copies(expansion, &then);
                    self.steps.push(Step::Jump(Label::Block(then.block)));
                }
            }
        }
        &self.steps
    }

    /// The copies binding `edge`'s arguments to its block's parameters, sequentialised: a move
    /// goes once no pending move still reads its destination; a cycle is broken through a new
    /// register.
    fn copies(&mut self, expansion: &mut Expansion, edge: &Edge) {
        self.pending.clear();
        let params = &expansion.blocks[edge.block].params;
        for (&dst, &src) in params.iter().zip(&edge.args) {
            if dst != src {
                self.pending.push((dst, src));
            }
        }
        while !self.pending.is_empty() {
            let ready = (0..self.pending.len()).find(|&i| {
                let dst = self.pending[i].0;
                !self.pending.iter().any(|&(_, src)| src == dst)
            });
            match ready {
                Some(i) => {
                    let (dst, src) = self.pending.remove(i);
                    self.steps.push(Step::Copy { dst, src });
                }
                None => {
                    // Every destination is still read: save one, and read the saved copy.
                    let (dst, _) = self.pending[0];
                    let ty: PrimType = expansion.vars[dst];
                    let saved = expansion.vars.push(ty);
                    self.steps.push(Step::Copy {
                        dst: saved,
                        src: dst,
                    });
                    for pending in self.pending.iter_mut() {
                        if pending.1 == dst {
                            pending.1 = saved;
                        }
                    }
                }
            }
        }
    }
}

/// The edges into `block`, in layout order of their source blocks: what a printer of phis reads.
pub fn incoming(expansion: &Expansion, block: Block) -> impl Iterator<Item = (Block, &Edge)> {
    expansion.blocks.iter().flat_map(move |(source, data)| {
        data.terminator
            .successors()
            .into_iter()
            .filter(move |edge| edge.block == block)
            .map(move |edge| (source, edge))
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use cranelift_entity::PrimaryMap;
    use smallvec::smallvec;

    use super::*;
    use crate::expand::{BlockData, Expansion, PrimType};

    /// entry -> loop(p, q); loop: if c { loop(q, p) } else { exit(p) }; a swap on the back edge.
    fn swapping_loop() -> Expansion {
        let mut vars = PrimaryMap::new();
        let addr = vars.push(PrimType::Ptr);
        let (a, b, p, q, c, r) = (
            vars.push(PrimType::I32),
            vars.push(PrimType::I32),
            vars.push(PrimType::I32),
            vars.push(PrimType::I32),
            vars.push(PrimType::Pred),
            vars.push(PrimType::I32),
        );
        let mut blocks = PrimaryMap::new();
        let (looping, exit) = (Block::from_u32(1), Block::from_u32(2));
        blocks.push(BlockData {
            params: smallvec![],
            prims: vec![],
            terminator: Terminator::Jump(Edge {
                block: looping,
                args: smallvec![a, b],
            }),
        });
        blocks.push(BlockData {
            params: smallvec![p, q],
            prims: vec![],
            terminator: Terminator::Branch {
                cond: c,
                then: Edge {
                    block: looping,
                    args: smallvec![q, p],
                },
                otherwise: Edge {
                    block: exit,
                    args: smallvec![p],
                },
            },
        });
        blocks.push(BlockData {
            params: smallvec![r],
            prims: vec![],
            terminator: Terminator::Return,
        });
        Expansion {
            vars,
            blocks,
            addr,
            operands: smallvec![],
            new_values: smallvec![],
            results: smallvec![r],
        }
    }

    /// Runs the copies between two control steps on symbolic values.
    fn run_copies(steps: &[Step], from: usize, values: &mut HashMap<Var, String>) -> usize {
        let mut index = from;
        while let Some(Step::Copy { dst, src }) = steps.get(index) {
            let value = values[src].clone();
            values.insert(*dst, value);
            index += 1;
        }
        index
    }

    #[test]
    fn a_swap_on_an_edge_keeps_both_values() {
        let mut expansion = swapping_loop();
        let vars_before = expansion.vars.len();
        let mut linear = Linear::new();
        let steps = linear.walk(&mut expansion, Params::Copies).to_vec();
        // The swap cannot share the branch with the exit's copy (the exit reads p): it goes in
        // an edge block of its own, through one saved register.
        assert_eq!(expansion.vars.len(), vars_before + 1, "{steps:?}");
        let label = steps
            .iter()
            .position(|s| *s == Step::Label(Label::Edge(0)))
            .expect("an edge block");
        let (p, q) = (Var::from_u32(3), Var::from_u32(4));
        let mut values: HashMap<Var, String> =
            expansion.vars.keys().map(|v| (v, format!("{v}"))).collect();
        run_copies(&steps, label + 1, &mut values);
        assert_eq!(values[&p], format!("{q}"));
        assert_eq!(values[&q], format!("{p}"));
    }

    #[test]
    fn phis_get_blocks_and_terminators_only() {
        let mut expansion = swapping_loop();
        let mut linear = Linear::new();
        let steps = linear.walk(&mut expansion, Params::Phis);
        assert!(steps
            .iter()
            .all(|s| matches!(s, Step::Block { .. } | Step::Terminator(_))));
        assert_eq!(incoming(&expansion, Block::from_u32(1)).count(), 2);
    }
}
