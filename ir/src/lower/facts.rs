//! What a printer may know of an expansion's variables: [`Facts`].

use std::fmt;

use crate::expand::{BinaryOp, Block, Expansion, Prim, PrimType, Terminator, UnaryOp, Var};
use crate::semantics::width_mask;

/// What is known of one variable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct VarFacts {
    /// The block of the primitive that defines it (none for an input or a block parameter).
    block: Option<Block>,
    constant: Option<u128>,
    derived: Derived,
    zero_extended: bool,
    folded_address: Option<(Var, u32)>,
    byte_shifted_out: bool,
}

/// A variable computed from another one by a shift or a truncation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Derived {
    #[default]
    None,
    Shifted {
        word: Var,
        by: u32,
    },
    Part {
        word: Var,
        at: u32,
    },
}

/// What a printer may know of an expansion's variables, computed once from the expansion (as
/// cranelift's lowering answers `get_value_as_source_or_const` for every ISA), so that a printer
/// chooses its instructions from facts, not from tables of its own, and so that the facts a
/// choice rests on are checked where they can be: an [`Interpreter`] with
/// [`Interpreter::check_facts`] set checks, before every primitive it runs, that each fact about
/// the primitive's operands holds of the values the run computed.
///
/// The facts about values, each checked by the interpreter:
/// - [`Facts::constant`]: the variable is defined by a `Const`;
/// - [`Facts::shifted`]: a 32-bit variable is another 32-bit variable shifted right by a constant
///   of 1 to 31 (`LShr`), known where it is read in the block that defines it;
/// - [`Facts::part`]: an 8- or 16-bit variable is the bits at `at` of a 32-bit variable, the
///   truncation of that word (`at` 0) or of the word shifted right by `at` in the same block;
///   known where it is read in the block that defines it (a word that is a block parameter is
///   rewritten on the edges into its block, never inside one);
/// - [`Facts::folded_address`]: an address `base + bytes` (`PtrAdd`) that at most two memory
///   primitives read, and only as their address, whose base is not a block parameter: a
///   printer may address `[base+bytes]` at each of them instead of computing the sum.
///
/// The facts about registers, which the interpreter cannot check (its values are exactly as
/// wide as their types), and which only running the printed code checks: for a printer that
/// keeps an 8-bit variable in a wider register whose bits above the byte are unspecified,
/// computes every primitive on the whole register, and zero-extends the operands of the
/// primitives that read above the byte ([`reads_above_byte`]):
/// - [`Facts::zero_extended`]: the register of the variable is known to hold zero above its
///   value's bits where it is defined;
/// - [`Facts::byte_shifted_out`]: the variable is the zero extension of an 8-bit value that only
///   left shifts read, by amounts that drop every bit above the byte, so that the extension
///   need not clear them.
///
/// [`Interpreter`]: crate::interp::Interpreter
/// [`Interpreter::check_facts`]: crate::interp::Interpreter::check_facts
///
/// One value is reused from one expansion to the next ([`Facts::compute`]).
#[derive(Clone, Debug, Default)]
pub struct Facts {
    vars: Vec<VarFacts>,
    /// Per variable: how many memory primitives read it as their address.
    address_reads: Vec<u32>,
}

/// A fact that did not hold when the interpreter checked it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FactViolation {
    /// The variable the fact is about.
    pub var: Var,
    /// The fact, in words.
    pub fact: &'static str,
    /// The block in which it was read.
    pub block: Block,
}

impl fmt::Display for FactViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} read in {} does not hold what the facts say ({})",
            self.var, self.block, self.fact
        )
    }
}

/// Whether `prim` reads the bits of its operand number `operand` (in [`Prim::uses`] order)
/// above an 8-bit value's byte, for a printer that computes on the whole register: both
/// operands of an unsigned min/max, a logical right shift and a compare, the amount of a left
/// shift, and the source of a zero extension.
pub fn reads_above_byte(prim: &Prim, operand: usize) -> bool {
    match *prim {
        Prim::Binary { op, .. } => match op {
            BinaryOp::UMin | BinaryOp::UMax | BinaryOp::LShr => operand < 2,
            BinaryOp::Shl => operand == 1,
            _ => false,
        },
        Prim::Cmp { .. } => operand < 2,
        Prim::Unary {
            op: UnaryOp::Zext, ..
        } => operand == 0,
        _ => false,
    }
}

impl Facts {
    /// No facts yet.
    pub fn new() -> Self {
        Facts::default()
    }

    /// The facts of `expansion`.
    pub fn of(expansion: &Expansion) -> Self {
        let mut facts = Facts::new();
        facts.compute(expansion);
        facts
    }

    /// Replaces the facts with those of `expansion`.
    pub fn compute(&mut self, expansion: &Expansion) {
        self.vars.clear();
        self.vars.resize(expansion.vars.len(), VarFacts::default());
        for (block, data) in expansion.blocks.iter() {
            for prim in &data.prims {
                self.define(expansion, block, prim);
            }
        }
        self.fold_offset_addresses(expansion);
        self.find_shifted_out_bytes(expansion);
    }

    fn at(&self, v: Var) -> VarFacts {
        self.vars
            .get(v.as_u32() as usize)
            .copied()
            .unwrap_or_default()
    }

    fn at_mut(&mut self, v: Var) -> &mut VarFacts {
        &mut self.vars[v.as_u32() as usize]
    }

    /// The value of `v`, where a `Const` defines it.
    pub fn constant(&self, v: Var) -> Option<u128> {
        self.at(v).constant
    }

    /// `(word, by)` where `v` is `word >> by` (a 32-bit logical shift by a constant 1 to 31)
    /// and is read in `block`, the block that defines it.
    pub fn shifted(&self, v: Var, block: Block) -> Option<(Var, u32)> {
        match self.at(v) {
            VarFacts {
                block: Some(at),
                derived: Derived::Shifted { word, by },
                ..
            } if at == block => Some((word, by)),
            _ => None,
        }
    }

    /// `(word, at)` where 8/16-bit `v` is the bits of the 32-bit `word` from bit `at` and is
    /// read in `block`, the block that defines it.
    pub fn part(&self, v: Var, block: Block) -> Option<(Var, u32)> {
        match self.at(v) {
            VarFacts {
                block: Some(defined),
                derived: Derived::Part { word, at },
                ..
            } if defined == block => Some((word, at)),
            _ => None,
        }
    }

    /// Whether the register of `v` is known to hold zero above its value's bits.
    pub fn zero_extended(&self, v: Var) -> bool {
        self.at(v).zero_extended
    }

    /// `(base, bytes)` where the address `v` is `base + bytes`, read only as the address of at
    /// most two memory primitives, `base` not a block parameter.
    pub fn folded_address(&self, v: Var) -> Option<(Var, u32)> {
        self.at(v).folded_address
    }

    /// Whether `v` zero-extends an 8-bit value that only left shifts read, by amounts that drop
    /// every bit above the byte.
    pub fn byte_shifted_out(&self, v: Var) -> bool {
        self.at(v).byte_shifted_out
    }

    /// The facts `prim`, in `block`, gives its result.
    fn define(&mut self, expansion: &Expansion, block: Block, prim: &Prim) {
        let Some(dst) = prim.def() else {
            return;
        };
        let ty = |v: Var| expansion.vars[v];
        let zero_extended = |facts: &Self, v: Var| facts.at(v).zero_extended;
        let mut defined = VarFacts {
            block: Some(block),
            ..VarFacts::default()
        };
        match *prim {
            Prim::Const { bits, .. } => {
                defined.constant = Some(bits);
                defined.zero_extended = true;
            }
            Prim::Unary {
                op: UnaryOp::Copy,
                src,
                ..
            } => defined.zero_extended = zero_extended(self, src),
            Prim::Unary {
                op: UnaryOp::Zext | UnaryOp::Trunc,
                src,
                ..
            } => {
                let narrow = matches!(ty(dst), PrimType::I8 | PrimType::I16);
                if narrow && ty(src).bits() == 32 {
                    defined.derived = match self.shifted(src, block) {
                        Some((word, by)) => Derived::Part { word, at: by },
                        None => Derived::Part { word: src, at: 0 },
                    };
                }
            }
            Prim::Binary { op, a, b, .. } => {
                defined.zero_extended = match op {
                    BinaryOp::UMin | BinaryOp::UMax | BinaryOp::LShr => true,
                    BinaryOp::And => zero_extended(self, a) || zero_extended(self, b),
                    BinaryOp::Or | BinaryOp::Xor => {
                        zero_extended(self, a) && zero_extended(self, b)
                    }
                    _ => false,
                };
                if let (BinaryOp::LShr, PrimType::I32, Some(by @ 1..=31)) =
                    (op, ty(dst), self.constant(b))
                {
                    defined.derived = Derived::Shifted {
                        word: a,
                        by: by as u32,
                    };
                }
            }
            Prim::Select {
                if_true, if_false, ..
            } => {
                defined.zero_extended =
                    zero_extended(self, if_true) && zero_extended(self, if_false)
            }
            Prim::WarpActive { .. } | Prim::WarpBallot { .. } | Prim::WarpPeers { .. } => {
                defined.zero_extended = true
            }
            // An 8-bit value narrowed from a 32-bit one keeps the bits above its byte.
            Prim::WarpBroadcast { .. } | Prim::WarpFromRank { .. } | Prim::WarpScan { .. } => {
                defined.zero_extended = ty(dst) != PrimType::I8
            }
            _ => {}
        }
        *self.at_mut(dst) = defined;
    }

    /// Finds the addresses `base + bytes` that at most two memory primitives read, and only as
    /// their address ([`Facts::folded_address`]).
    fn fold_offset_addresses(&mut self, expansion: &Expansion) {
        let reads = &mut self.address_reads;
        reads.clear();
        reads.resize(self.vars.len(), 0);
        let vars = &mut self.vars;
        let blocks = expansion.blocks.values();
        // The base's register must hold, at every access, what it held at the add: a block
        // parameter is rewritten on the edges into its block.
        let rewritten = |v: Var| blocks.clone().any(|block| block.params.contains(&v));
        for prim in blocks.clone().flat_map(|block| &block.prims) {
            if let Prim::PtrAdd { dst, ptr, bytes } = *prim {
                if !rewritten(ptr) {
                    vars[dst.as_u32() as usize].folded_address = Some((ptr, bytes));
                }
            }
        }
        let mut unfold = |v: Var| vars[v.as_u32() as usize].folded_address = None;
        for block in blocks {
            for prim in &block.prims {
                let addr = memory_address(prim);
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
        // (three accesses in three blocks) is computed again before each where it is folded
        // (ptxas, a v8.f64 min on sm_90: 452 SASS instructions against 539). A word's load and
        // CAS, or one access, are not: a split v8.u8 or v4.u16 loop is 1 to 2 instructions
        // shorter.
        for (facts, &count) in vars.iter_mut().zip(reads.iter()) {
            if count > 2 {
                facts.folded_address = None;
            }
        }
    }

    /// Finds the zero extensions of 8-bit values that only shifts left read, by amounts that
    /// leave none of the extension's bits above the byte in the result
    /// ([`Facts::byte_shifted_out`]).
    fn find_shifted_out_bytes(&mut self, expansion: &Expansion) {
        for prim in expansion.blocks.values().flat_map(|block| &block.prims) {
            if let Prim::Unary {
                dst,
                op: UnaryOp::Zext,
                src,
            } = *prim
            {
                if expansion.vars[src] == PrimType::I8 {
                    self.at_mut(dst).byte_shifted_out = true;
                }
            }
        }
        let constants: Vec<Option<u128>> = self.vars.iter().map(|facts| facts.constant).collect();
        let vars = &mut self.vars;
        let mut read = |v: Var| vars[v.as_u32() as usize].byte_shifted_out = false;
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
                    let by = constants[b.as_u32() as usize];
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

    /// Checks the facts about what `prim`, about to run in `block`, reads: `value` gives the
    /// current value of a variable (as wide as its type).
    pub fn check_reads(
        &self,
        expansion: &Expansion,
        block: Block,
        prim: &Prim,
        value: impl Fn(Var) -> Option<u128>,
    ) -> Result<(), FactViolation> {
        let address = memory_address(prim);
        for used in prim.uses() {
            self.check_var(expansion, block, used, address == Some(used), &value)?;
        }
        Ok(())
    }

    /// Checks the facts about the results where `block` returns.
    pub fn check_results(
        &self,
        expansion: &Expansion,
        block: Block,
        value: impl Fn(Var) -> Option<u128>,
    ) -> Result<(), FactViolation> {
        if !matches!(expansion.blocks[block].terminator, Terminator::Return) {
            return Ok(());
        }
        for &result in &expansion.results {
            self.check_var(expansion, block, result, false, &value)?;
        }
        Ok(())
    }

    fn check_var(
        &self,
        expansion: &Expansion,
        block: Block,
        v: Var,
        as_address: bool,
        value: &impl Fn(Var) -> Option<u128>,
    ) -> Result<(), FactViolation> {
        let violation = |fact| FactViolation {
            var: v,
            fact,
            block,
        };
        let Some(got) = value(v) else {
            return Ok(());
        };
        let width = |v: Var| expansion.vars[v].bits();
        if let Some(constant) = self.constant(v) {
            if got != constant & width_mask(width(v)) {
                return Err(violation("a constant"));
            }
        }
        if let Some((word, by)) = self.shifted(v, block) {
            if value(word).map(|word| word >> by) != Some(got) {
                return Err(violation("a word shifted right"));
            }
        }
        if let Some((word, at)) = self.part(v, block) {
            let part = value(word).map(|word| (word >> at) & width_mask(width(v)));
            if part != Some(got) {
                return Err(violation("a part of a word"));
            }
        }
        if let (true, Some((base, bytes))) = (as_address, self.folded_address(v)) {
            let sum = value(base).map(|base| base.wrapping_add(u128::from(bytes)) & width_mask(64));
            if sum != Some(got) {
                return Err(violation("a base address plus bytes"));
            }
        }
        Ok(())
    }
}

/// The address a memory primitive reads, its first operand.
fn memory_address(prim: &Prim) -> Option<Var> {
    match *prim {
        Prim::Load { addr, .. } | Prim::Cas { addr, .. } | Prim::Rmw { addr, .. } => Some(addr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use cranelift_entity::PrimaryMap;

    use super::*;
    use crate::expand::BlockData;

    /// `word = 0x1234_5678; high = word >> 16; half = trunc high; low = trunc word`.
    fn halves() -> (Expansion, [Var; 5]) {
        let mut vars = PrimaryMap::new();
        let addr = vars.push(PrimType::Ptr);
        let word = vars.push(PrimType::I32);
        let by = vars.push(PrimType::I32);
        let high = vars.push(PrimType::I32);
        let half = vars.push(PrimType::I16);
        let low = vars.push(PrimType::I8);
        let mut blocks = PrimaryMap::new();
        blocks.push(BlockData {
            params: Default::default(),
            prims: vec![
                Prim::Const {
                    dst: word,
                    bits: 0x1234_5678,
                },
                Prim::Const { dst: by, bits: 16 },
                Prim::Binary {
                    dst: high,
                    op: BinaryOp::LShr,
                    a: word,
                    b: by,
                },
                Prim::Unary {
                    dst: half,
                    op: UnaryOp::Trunc,
                    src: high,
                },
                Prim::Unary {
                    dst: low,
                    op: UnaryOp::Trunc,
                    src: word,
                },
            ],
            terminator: Terminator::Return,
        });
        let expansion = Expansion {
            vars,
            blocks,
            addr,
            operands: Default::default(),
            new_values: Default::default(),
            results: [half, low].into_iter().collect(),
        };
        (expansion, [word, by, high, half, low])
    }

    #[test]
    fn shifts_and_truncations_are_parts_of_their_word_in_their_block() {
        let (expansion, [word, by, high, half, low]) = halves();
        let facts = Facts::of(&expansion);
        let entry = expansion.entry();
        assert_eq!(facts.constant(by), Some(16));
        assert_eq!(facts.shifted(high, entry), Some((word, 16)));
        assert_eq!(facts.part(half, entry), Some((word, 16)));
        assert_eq!(facts.part(low, entry), Some((word, 0)));
        // Known only in the block that defines them.
        assert_eq!(facts.part(half, Block::from_u32(1)), None);
        assert!(facts.zero_extended(word) && !facts.zero_extended(low));
    }

    #[test]
    fn a_value_that_contradicts_a_fact_is_reported() {
        let (expansion, [word, _, _, half, low]) = halves();
        let facts = Facts::of(&expansion);
        let entry = expansion.entry();
        let values = |half_value: u128| {
            move |v: Var| match v {
                v if v == word => Some(0x1234_5678),
                v if v == half => Some(half_value),
                v if v == low => Some(0x78),
                _ => None,
            }
        };
        assert_eq!(
            facts.check_results(&expansion, entry, values(0x1234)),
            Ok(())
        );
        let violation = facts
            .check_results(&expansion, entry, values(0x5678))
            .unwrap_err();
        assert_eq!((violation.var, violation.fact), (half, "a part of a word"));
    }
}
