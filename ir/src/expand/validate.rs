//! The validator: an expansion is checked mechanically against its node, never trusted.

use cranelift_entity::SecondaryMap;
use std::fmt;

use super::{mem_attrs, Block, Expansion, Prim, PrimType, Terminator, Var};
use crate::node::AtomicNode;
use crate::types::{AtomicOp, ElemType, MemoryOrder};

/// A set of registers, one bit each.
#[derive(Clone, PartialEq, Eq)]
struct VarSet(Vec<u64>);

impl VarSet {
    fn empty(len: usize) -> Self {
        VarSet(vec![0; len.div_ceil(64)])
    }

    fn full(len: usize) -> Self {
        VarSet(vec![u64::MAX; len.div_ceil(64)])
    }

    fn insert(&mut self, var: Var) {
        let index = var.as_u32() as usize;
        self.0[index / 64] |= 1 << (index % 64);
    }

    fn contains(&self, var: Var) -> bool {
        let index = var.as_u32() as usize;
        self.0[index / 64] & (1 << (index % 64)) != 0
    }

    fn intersect(&mut self, other: &VarSet) {
        for (word, other) in self.0.iter_mut().zip(&other.0) {
            *word &= other;
        }
    }
}

impl Expansion {
    /// Checks that this is a well-formed expansion of `node` that keeps its meaning:
    ///
    /// - inputs and results match the node (one operand, new value and result per element, in
    ///   the element's natural type; results only when the node's result is used);
    /// - every block is reachable from the entry and reaches a `Return`; jumps pass as many
    ///   arguments as the target has parameters, of the parameters' types;
    /// - every register is defined once and every use is defined on every path to it;
    /// - every primitive is well typed ([`Prim::check_types`]);
    /// - every memory primitive carries the node's scope, space and cache hint; every `Cas` and
    ///   `Rmw` (the instructions that make the node atomic) carries an order that implies the
    ///   node's order; loads are relaxed or acquire, never a release order. The `Cas`/`Rmw`
    ///   cover at least the node's bytes (one part-word CAS carries every element of its word),
    ///   and an `Rmw` performs the node's op;
    /// - warp primitives (one lane carrying out the atomics of others) only in a relaxed node.
    ///
    /// That is the invariant "an expansion never weakens an order or a scope", checked
    /// mechanically rather than trusted.
    pub fn validate(&self, node: &AtomicNode) -> Result<(), String> {
        if self.blocks.is_empty() {
            return Err("the expansion has no blocks".into());
        }
        self.check_interface(node)?;
        self.check_reachability()?;
        let inputs = self.check_single_definitions()?;
        let available = self.available_at_entry(inputs);
        let atomic_bytes = self.check_blocks(node, &available)?;
        let elements = node.shape.len();
        let node_bytes = elements as u32 * node.ty.bytes();
        if atomic_bytes < node_bytes {
            return Err(format!(
                "cas/rmw primitives of {atomic_bytes} bytes for a node of {node_bytes}: some \
                 element is not atomic"
            ));
        }
        Ok(())
    }

    /// That `var` is a register of the expansion.
    fn exists(&self, var: Var, what: &str) -> Result<(), String> {
        if self.vars.get(var).is_some() {
            Ok(())
        } else {
            Err(format!("{what} {var} is not a register of the expansion"))
        }
    }

    /// Inputs and results against the node.
    fn check_interface(&self, node: &AtomicNode) -> Result<(), String> {
        let elements = node.shape.len();
        let natural = PrimType::natural(node.ty);
        self.exists(self.addr, "the address")?;
        if self.vars[self.addr] != PrimType::Ptr {
            return Err(format!(
                "the address {} is {}, not ptr",
                self.addr, self.vars[self.addr]
            ));
        }
        let expected_new = if node.op == AtomicOp::Cas {
            elements
        } else {
            0
        };
        let expected_results = if node.result_used() { elements } else { 0 };
        for (what, list, count) in [
            ("operands", &self.operands, elements),
            ("new values", &self.new_values, expected_new),
            ("results", &self.results, expected_results),
        ] {
            if list.len() != count {
                return Err(format!("{} {what} for {count} expected", list.len()));
            }
            for &var in list.iter() {
                self.exists(var, what)?;
                if self.vars[var] != natural {
                    return Err(format!(
                        "{what} register {var} is {}, not {natural}",
                        self.vars[var]
                    ));
                }
            }
        }

        Ok(())
    }

    /// Every block reachable from the entry, and reaching a return.
    fn check_reachability(&self) -> Result<(), String> {
        let cfg = self.cfg();
        let entry = self.entry();
        for (block, data) in &self.blocks {
            for target in data.terminator.successors() {
                if self.blocks.get(target.block).is_none() {
                    return Err(format!(
                        "{block} jumps to {}, which does not exist",
                        target.block
                    ));
                }
            }
        }
        let mut reachable = std::collections::BTreeSet::new();
        let mut dfs = petgraph::visit::Dfs::new(&cfg, entry);
        while let Some(block) = dfs.next(&cfg) {
            reachable.insert(block);
        }
        let reversed = petgraph::visit::Reversed(&cfg);
        let mut reaches_return = std::collections::BTreeSet::new();
        for (block, data) in &self.blocks {
            if data.terminator == Terminator::Return {
                let mut dfs = petgraph::visit::Dfs::new(reversed, block);
                while let Some(found) = dfs.next(reversed) {
                    reaches_return.insert(found);
                }
            }
        }
        for block in self.blocks.keys() {
            if !reachable.contains(&block) {
                return Err(format!("{block} is unreachable from the entry"));
            }
            if !reaches_return.contains(&block) {
                return Err(format!("{block} never reaches a return"));
            }
        }

        Ok(())
    }

    /// Every register defined once; the inputs' set.
    fn check_single_definitions(&self) -> Result<VarSet, String> {
        let var_count = self.vars.len();
        let mut defined_once = VarSet::empty(var_count);
        let mut define = |var: Var, what: &str| {
            self.exists(var, what)?;
            if defined_once.contains(var) {
                return Err(format!("{var} is defined twice (last as {what})"));
            }
            defined_once.insert(var);
            Ok(())
        };
        let mut inputs = VarSet::empty(var_count);
        for &var in std::iter::once(&self.addr)
            .chain(&self.operands)
            .chain(&self.new_values)
        {
            define(var, "an input")?;
            inputs.insert(var);
        }
        for data in self.blocks.values() {
            for &param in &data.params {
                define(param, "a block parameter")?;
            }
            for prim in &data.prims {
                if let Some(var) = prim.def() {
                    define(var, "a primitive's result")?;
                }
            }
        }

        Ok(inputs)
    }

    /// The registers defined on every path to each block's entry: the intersection over its
    /// predecessors, iterated to a fixed point (`None` for a block not reached yet).
    fn available_at_entry(&self, inputs: VarSet) -> SecondaryMap<Block, Option<VarSet>> {
        let var_count = self.vars.len();
        let entry = self.entry();
        let mut available: SecondaryMap<Block, Option<VarSet>> = SecondaryMap::new();
        available[entry] = Some(inputs);
        let exit_set = |block: Block, at_entry: &VarSet| {
            let mut set = at_entry.clone();
            let data = &self.blocks[block];
            for &param in &data.params {
                set.insert(param);
            }
            for var in data.prims.iter().filter_map(Prim::def) {
                set.insert(var);
            }
            set
        };
        let mut changed = true;
        while changed {
            changed = false;
            for block in self.blocks.keys() {
                let Some(at_entry) = available[block].clone() else {
                    continue;
                };
                let at_exit = exit_set(block, &at_entry);
                for target in self.blocks[block].terminator.successors() {
                    let mut next = available[target.block]
                        .clone()
                        .unwrap_or(VarSet::full(var_count));
                    next.intersect(&at_exit);
                    if available[target.block].as_ref() != Some(&next) {
                        available[target.block] = Some(next);
                        changed = true;
                    }
                }
            }
        }

        available
    }

    /// Per block: types, uses, jumps, memory attributes; the bytes the `Cas`/`Rmw` primitives
    /// write, as laid out (not as executed).
    fn check_blocks(
        &self,
        node: &AtomicNode,
        available: &SecondaryMap<Block, Option<VarSet>>,
    ) -> Result<u32, String> {
        let var_count = self.vars.len();
        let mem = mem_attrs(node);
        let mut atomic_bytes = 0u32;
        for (block, data) in &self.blocks {
            let mut defined = available[block].clone().unwrap_or(VarSet::empty(var_count));
            for &param in &data.params {
                defined.insert(param);
            }
            let use_defined = |defined: &VarSet, var: Var, at: &dyn fmt::Display| {
                self.exists(var, "a use")?;
                if defined.contains(var) {
                    Ok(())
                } else {
                    Err(format!(
                        "{var} is used in {block} ({at}) where some path leaves it undefined"
                    ))
                }
            };
            for prim in &data.prims {
                let at = format!("{prim:?}");
                prim.check_types(&self.vars)
                    .map_err(|error| format!("{block}: {error} in {at}"))?;
                for var in prim.uses() {
                    use_defined(&defined, var, &at)?;
                }
                if let Some(var) = prim.def() {
                    defined.insert(var);
                }
                if prim.is_warp() && node.order != MemoryOrder::Relaxed {
                    return Err(format!(
                        "{block}: {at} combines lanes in a {} node: only a relaxed atomic may be \
                         carried out by another lane",
                        node.order
                    ));
                }
                let Some(attrs) = prim.mem() else { continue };
                atomic_bytes += match prim {
                    Prim::Cas { dst, .. } => self.vars[*dst].bits() / 8,
                    Prim::Rmw { ty, .. } => ty.bytes(),
                    _ => 0,
                };
                if attrs.scope != mem.scope || attrs.space != mem.space || attrs.hint != mem.hint {
                    return Err(format!(
                        "{block}: {at} has scope {}, space {}, hint {:?}; the node has {}, {}, {:?}",
                        attrs.scope, attrs.space, attrs.hint, mem.scope, mem.space, mem.hint
                    ));
                }
                match prim {
                    Prim::Load { .. } if attrs.order.has_release() => {
                        return Err(format!("{block}: a load cannot be {} in {at}", attrs.order));
                    }
                    Prim::Cas { .. } | Prim::Rmw { .. } => {
                        if !attrs.order.implies(mem.order) {
                            return Err(format!(
                                "{block}: {at} is {}, weaker than the node's {}",
                                attrs.order, mem.order
                            ));
                        }
                        if let Prim::Rmw { op, ty, .. } = prim {
                            if *op != node.op && !is_float_min_max_by_int(node, *op, *ty) {
                                return Err(format!(
                                    "{block}: {at} performs {op}, not {}",
                                    node.op
                                ));
                            }
                        }
                    }
                    _ => {}
                }
            }
            let terminator = &data.terminator;
            if let Terminator::Branch { cond, .. } = terminator {
                use_defined(&defined, *cond, &"the branch condition")?;
                if self.vars[*cond] != PrimType::Pred {
                    return Err(format!(
                        "{block}: branch condition {cond} is not a predicate"
                    ));
                }
            }
            for target in terminator.successors() {
                let params = &self.blocks[target.block].params;
                if params.len() != target.args.len() {
                    return Err(format!(
                        "{block}: jump to {} passes {} arguments for {} parameters",
                        target.block,
                        target.args.len(),
                        params.len()
                    ));
                }
                for (&arg, &param) in target.args.iter().zip(params) {
                    use_defined(&defined, arg, &"a jump argument")?;
                    if self.vars[arg] != self.vars[param] {
                        return Err(format!(
                            "{block}: argument {arg}: {} bound to {param}: {} of {}",
                            self.vars[arg], self.vars[param], target.block
                        ));
                    }
                }
            }
            if *terminator == Terminator::Return {
                for &var in &self.results {
                    use_defined(&defined, var, &"a result at return")?;
                }
            }
        }
        Ok(atomic_bytes)
    }
}

/// Whether an `Rmw` of `op` on `ty` carries out a float min/max-like `node` by the integer
/// trick ([`crate::ElementLowering::IntMinMax`]): one of its two integer atomics.
fn is_float_min_max_by_int(node: &AtomicNode, op: AtomicOp, ty: ElemType) -> bool {
    crate::Lowering::int_min_max_atomics(node.op, node.ty)
        .is_some_and(|atomics| atomics.contains(&(op, ty)))
}
