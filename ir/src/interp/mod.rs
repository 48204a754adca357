//! An interpreter of expansions, used to prove them against the reference semantics.
//!
//! It runs an [`Expansion`] as one thread against a little-endian byte [`Memory`], with the
//! expansion's inputs bound to bit patterns, and returns the old values it produced. Every
//! primitive means exactly what [`crate::expand`] documents: float primitives and native
//! read-modify-writes call [`crate::semantics`], so there is one definition of every op.
//!
//! Other threads are simulated by an [`Interference`]: it is called before every `Cas` and may
//! change memory, so a CAS loop's retry path runs and can be checked to still produce
//! `op(value the CAS finally saw, operand)`.
//!
//! Primitive details the expansion format leaves open are fixed here: shifts by the operand
//! width or more give zero; every register holds its bits masked to its type's width; a memory
//! access must be aligned to its own width and lie inside the memory.

use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;
use std::fmt;

use crate::expand::{
    BinaryOp, Block, CmpCond, Expansion, Prim, PrimType, Terminator, TypeError, UnaryOp, Var,
};
use crate::lower::{FactViolation, Facts};
use crate::semantics::{self, width_mask, FloatMode};
use crate::types::ElemType;

mod linear;
mod warp;

use warp::{LaneState, LaneStatus, WARP_LANES};

/// A flat little-endian byte memory covering `[base, base + len)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    base: u64,
    bytes: Vec<u8>,
}

impl Memory {
    /// `len` zero bytes starting at address `base`.
    pub fn new(base: u64, len: usize) -> Self {
        Memory {
            base,
            bytes: vec![0; len],
        }
    }

    /// The memory `[base, base + bytes.len())` holding `bytes`, little-endian.
    pub fn from_bytes(base: u64, bytes: Vec<u8>) -> Self {
        Memory { base, bytes }
    }

    /// The address of the first byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The contents, the byte at `base` first.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The contents, mutably (to set up a test or play another thread).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }

    /// The byte range of an access, checked for alignment and bounds.
    fn range(&self, addr: u64, size: u32) -> Result<std::ops::Range<usize>, InterpError> {
        if !size.is_power_of_two() || addr & (u64::from(size) - 1) != 0 {
            return Err(InterpError::Misaligned { addr, bytes: size });
        }
        let out_of_bounds = InterpError::OutOfBounds { addr, bytes: size };
        let start = addr.checked_sub(self.base).ok_or(out_of_bounds.clone())?;
        let start = usize::try_from(start).map_err(|_| out_of_bounds.clone())?;
        let end = start
            .checked_add(size as usize)
            .ok_or(out_of_bounds.clone())?;
        if end > self.bytes.len() {
            return Err(out_of_bounds);
        }
        Ok(start..end)
    }

    /// Reads `size` bytes (a power of two up to 16) at an address aligned to `size`.
    pub fn read(&self, addr: u64, size: u32) -> Result<u128, InterpError> {
        let range = self.range(addr, size)?;
        Ok(self.bytes[range]
            .iter()
            .rev()
            .fold(0u128, |value, &byte| (value << 8) | u128::from(byte)))
    }

    /// Writes the low `size` bytes of `value` at an address aligned to `size`.
    pub fn write(&mut self, addr: u64, size: u32, value: u128) -> Result<(), InterpError> {
        let range = self.range(addr, size)?;
        for (index, byte) in self.bytes[range].iter_mut().enumerate() {
            *byte = (value >> (8 * index)) as u8;
        }
        Ok(())
    }
}

/// Why an expansion could not be run to its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterpError {
    /// More primitives and terminators ran than the step limit allows (a loop that never exits).
    StepLimitExceeded {
        /// The limit in force.
        limit: u64,
    },
    /// A register was read before any definition on the path taken.
    UndefinedVar(Var),
    /// An access not aligned to its own width.
    Misaligned {
        /// The address accessed.
        addr: u64,
        /// The access width in bytes.
        bytes: u32,
    },
    /// An access outside the memory.
    OutOfBounds {
        /// The address accessed.
        addr: u64,
        /// The access width in bytes.
        bytes: u32,
    },
    /// An operand's type does not fit the primitive.
    Type(TypeError),
    /// A primitive the interpreter cannot give a meaning to (e.g. an `Rmw` of `cas`).
    Unsupported(&'static str),
    /// The inputs do not match the expansion's operand or new-value registers.
    InputCount {
        /// Registers the expansion has (operands, or new values).
        expected: usize,
        /// Values given for them.
        found: usize,
    },
    /// A jump passes a different number of arguments than the target block has parameters.
    ArityMismatch {
        /// The block jumped to.
        block: Block,
        /// Its parameters.
        expected: usize,
        /// The arguments passed.
        found: usize,
    },
    /// A fact about a variable ([`Facts`]) did not hold where it was read
    /// ([`Interpreter::check_facts`]).
    Fact(FactViolation),
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpError::StepLimitExceeded { limit } => write!(f, "step limit of {limit} exceeded"),
            InterpError::UndefinedVar(var) => write!(f, "{var} read before it is defined"),
            InterpError::Misaligned { addr, bytes } => {
                write!(f, "{bytes}-byte access at {addr:#x} is misaligned")
            }
            InterpError::OutOfBounds { addr, bytes } => {
                write!(f, "{bytes}-byte access at {addr:#x} is outside memory")
            }
            InterpError::Type(error) => error.fmt(f),
            InterpError::Unsupported(what) => write!(f, "unsupported primitive: {what}"),
            InterpError::InputCount { expected, found } => {
                write!(f, "expected {expected} input values, found {found}")
            }
            InterpError::ArityMismatch {
                block,
                expected,
                found,
            } => {
                write!(
                    f,
                    "jump to {block} passes {found} arguments for {expected} parameters"
                )
            }
            InterpError::Fact(violation) => violation.fmt(f),
        }
    }
}

impl std::error::Error for InterpError {}

/// The values bound to an expansion's input registers, as bit patterns.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    /// The node's address, bound to [`Expansion::addr`](crate::expand::Expansion::addr).
    pub addr: u64,
    /// One per element: the `b` operand (for `cas`, the expected value).
    pub operands: &'a [u128],
    /// One per element for `cas`, empty otherwise.
    pub new_values: &'a [u128],
}

/// A `Cas` (or, with [`Interpreter::interfere_before_rmw`], an `Rmw`) about to execute, as
/// seen by an [`Interference`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CasSite {
    /// The address the `Cas` targets.
    pub addr: u64,
    /// Its width in bytes.
    pub bytes: u32,
    /// How many `Cas` primitives this run executed before this one.
    pub index: u32,
}

/// Another thread's stores, simulated: called before every `Cas`; may change memory.
pub trait Interference {
    /// Runs before the `Cas` at `site` reads memory; whatever it stores there, the `Cas` sees.
    fn before_cas(&mut self, memory: &mut Memory, site: CasSite);
}

/// No other thread.
pub struct NoInterference;

impl Interference for NoInterference {
    fn before_cas(&mut self, _: &mut Memory, _: CasSite) {}
}

impl<F: FnMut(&mut Memory, CasSite)> Interference for F {
    fn before_cas(&mut self, memory: &mut Memory, site: CasSite) {
        self(memory, site)
    }
}

/// What one run produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The bits of each of the expansion's `results` registers.
    pub results: SmallVec<[u128; 8]>,
    /// Primitives and terminators executed.
    pub steps: u64,
    /// `Cas` primitives executed, and how many of them did not store.
    pub cas_attempts: u32,
    /// Of those, the ones that found another value than expected and stored nothing.
    pub cas_failures: u32,
}

impl Outcome {
    /// Counts one primitive or terminator of a run limited to `limit` of them.
    fn step(&mut self, limit: u64) -> Result<(), InterpError> {
        self.steps += 1;
        if self.steps > limit {
            return Err(InterpError::StepLimitExceeded { limit });
        }
        Ok(())
    }
}

/// Whether `inputs` bind every input of `expansion`: one operand and one new value per element.
fn check_inputs(expansion: &Expansion, inputs: &Inputs<'_>) -> Result<(), InterpError> {
    if inputs.operands.len() != expansion.operands.len() {
        return Err(InterpError::InputCount {
            expected: expansion.operands.len(),
            found: inputs.operands.len(),
        });
    }
    if inputs.new_values.len() != expansion.new_values.len() {
        return Err(InterpError::InputCount {
            expected: expansion.new_values.len(),
            found: inputs.new_values.len(),
        });
    }
    Ok(())
}

/// Runs expansions; keeps its register file between runs so repeated runs do not allocate.
#[derive(Clone, Debug)]
pub struct Interpreter {
    /// The most primitives and terminators one run may execute.
    pub step_limit: u64,
    /// How a native `Rmw` treats subnormals (the target's behaviour, e.g. PTX global f32 add
    /// flushes). Float primitives of an expansion never flush, as [`crate::expand`] defines.
    pub rmw_mode: FloatMode,
    /// Whether the [`Interference`] also runs before every `Rmw` (then another thread may
    /// change memory between an integer min/max and the CAS loop that follows it).
    pub interfere_before_rmw: bool,
    /// Whether every run computes the expansion's [`Facts`] and checks, before each primitive
    /// runs and where a block returns, that the facts about what it reads hold of the values
    /// the run computed (failing with [`InterpError::Fact`]).
    pub check_facts: bool,
    /// Whether the lanes of a warp ([`Interpreter::run_warp`]) take turns one memory access
    /// at a time, in lane order, as lanes executing in lockstep do (every lane loads before
    /// any lane CASes), instead of each running on its own until a warp primitive.
    pub lockstep: bool,
    facts: Facts,
    regs: SecondaryMap<Var, Option<u128>>,
    args: Vec<u128>,
    lanes: Vec<LaneState>,
}

impl Default for Interpreter {
    fn default() -> Self {
        Interpreter::new()
    }
}

/// The scalar element type whose float semantics a float register type has.
fn float_elem(ty: PrimType) -> Option<ElemType> {
    match ty {
        PrimType::F16 => Some(ElemType::F16),
        PrimType::Bf16 => Some(ElemType::Bf16),
        PrimType::F32 => Some(ElemType::F32),
        PrimType::F64 => Some(ElemType::F64),
        _ => None,
    }
}

fn expect_type(
    expansion: &Expansion,
    var: Var,
    wanted: PrimType,
    detail: &'static str,
) -> Result<(), InterpError> {
    match expansion.vars.get(var) {
        None => Err(InterpError::UndefinedVar(var)),
        Some(&found) if found == wanted => Ok(()),
        Some(&found) => Err(InterpError::Type(TypeError {
            var,
            found: Some(found),
            detail,
        })),
    }
}

impl Interpreter {
    /// An interpreter with a step limit of 100 000 and IEEE float `Rmw`s.
    pub fn new() -> Self {
        Interpreter {
            step_limit: 100_000,
            rmw_mode: FloatMode::Ieee,
            interfere_before_rmw: false,
            check_facts: false,
            lockstep: false,
            facts: Facts::new(),
            regs: SecondaryMap::new(),
            args: Vec::new(),
            lanes: Vec::new(),
        }
    }

    /// Runs `expansion` with no interference.
    pub fn run(
        &mut self,
        expansion: &Expansion,
        memory: &mut Memory,
        inputs: Inputs<'_>,
    ) -> Result<Outcome, InterpError> {
        self.run_with(expansion, memory, inputs, &mut NoInterference)
    }

    /// Runs `expansion`, calling `interference` before every `Cas`. A lone thread is a warp of
    /// one lane: its warp primitives see only itself.
    pub fn run_with(
        &mut self,
        expansion: &Expansion,
        memory: &mut Memory,
        inputs: Inputs<'_>,
        interference: &mut dyn Interference,
    ) -> Result<Outcome, InterpError> {
        self.run_lanes(
            expansion,
            memory,
            std::slice::from_ref(&inputs),
            interference,
        )?;
        Ok(std::mem::take(&mut self.lanes[0].outcome))
    }

    /// Runs `expansion` on a warp: lane `i` (at most 32) with `lanes[i]` as its inputs, every
    /// lane active at the start, all of them on one memory, calling `interference` before
    /// every `Cas` of any lane. Returns each lane's outcome.
    ///
    /// The model of a warp: each lane runs on its own until it reaches a warp primitive
    /// ([`Prim::is_warp`]) or returns; a warp primitive is carried out at once for the lanes
    /// it names, once all of them wait at it (for [`Prim::WarpActive`], the lanes that wait at
    /// it are the active ones; for the others, the lanes of the `members` mask they read,
    /// which must all read the same mask there, and each lane's group a subset of them that
    /// every lane of the group reads alike). A warp primitive some lane of its mask never
    /// reaches is an error. Lanes run in lane order between warp primitives (with
    /// [`Interpreter::lockstep`], one memory access each in turn), which is one of the
    /// schedules a warp may take; [`Interference`] adds other threads.
    pub fn run_warp(
        &mut self,
        expansion: &Expansion,
        memory: &mut Memory,
        lanes: &[Inputs<'_>],
        interference: &mut dyn Interference,
    ) -> Result<Vec<Outcome>, InterpError> {
        self.run_lanes(expansion, memory, lanes, interference)?;
        Ok(self.lanes[..lanes.len()]
            .iter_mut()
            .map(|lane| std::mem::take(&mut lane.outcome))
            .collect())
    }

    fn run_lanes(
        &mut self,
        expansion: &Expansion,
        memory: &mut Memory,
        lanes: &[Inputs<'_>],
        interference: &mut dyn Interference,
    ) -> Result<(), InterpError> {
        if lanes.is_empty() || lanes.len() > WARP_LANES {
            return Err(InterpError::Unsupported("a warp has 1 to 32 lanes"));
        }
        for inputs in lanes {
            check_inputs(expansion, inputs)?;
        }
        if self.lanes.len() < lanes.len() {
            self.lanes.resize_with(lanes.len(), LaneState::default);
        }
        for (lane, inputs) in lanes.iter().enumerate() {
            std::mem::swap(&mut self.regs, &mut self.lanes[lane].regs);
            self.bind_inputs(expansion, inputs);
            let state = &mut self.lanes[lane];
            std::mem::swap(&mut self.regs, &mut state.regs);
            state.block = expansion.entry();
            state.pc = 0;
            state.outcome = Outcome::default();
            state.status = LaneStatus::Running;
        }
        let count = lanes.len();
        loop {
            for lane in 0..count {
                if self.lanes[lane].status != LaneStatus::Running {
                    continue;
                }
                let mut state = std::mem::take(&mut self.lanes[lane]);
                std::mem::swap(&mut self.regs, &mut state.regs);
                let stopped = self.advance(expansion, &mut state, memory, interference);
                std::mem::swap(&mut self.regs, &mut state.regs);
                self.lanes[lane] = state;
                self.lanes[lane].status = stopped?;
            }
            if (0..count).any(|lane| self.lanes[lane].status == LaneStatus::Running) {
                continue;
            }
            let waiting = (0..count)
                .filter(|&lane| self.lanes[lane].status == LaneStatus::AtWarp)
                .fold(0u32, |mask, lane| mask | 1 << lane);
            if waiting == 0 {
                return Ok(());
            }
            self.collective(expansion, waiting)?;
        }
    }

    /// Runs one lane (its registers in `self.regs`) until it waits at a warp primitive or
    /// returns.
    fn advance(
        &mut self,
        expansion: &Expansion,
        state: &mut LaneState,
        memory: &mut Memory,
        interference: &mut dyn Interference,
    ) -> Result<LaneStatus, InterpError> {
        loop {
            let data = expansion
                .blocks
                .get(state.block)
                .ok_or(InterpError::Unsupported(
                    "jump to a block that does not exist",
                ))?;
            while let Some(prim) = data.prims.get(state.pc) {
                if prim.is_warp() {
                    return Ok(LaneStatus::AtWarp);
                }
                state.outcome.step(self.step_limit)?;
                self.check_reads(expansion, state.block, prim)?;
                self.execute(expansion, prim, memory, interference, &mut state.outcome)?;
                state.pc += 1;
                if self.lockstep && prim.mem().is_some() {
                    return Ok(LaneStatus::Running);
                }
            }
            state.outcome.step(self.step_limit)?;
            let target = match &data.terminator {
                Terminator::Return => {
                    self.check_results(expansion, state.block)?;
                    for &var in &expansion.results {
                        let value = self.get(var)?;
                        state.outcome.results.push(value);
                    }
                    return Ok(LaneStatus::Returned);
                }
                Terminator::Jump(target) => target,
                Terminator::Branch {
                    cond,
                    then,
                    otherwise,
                } => {
                    expect_type(expansion, *cond, PrimType::Pred, "a branch condition")?;
                    if self.get(*cond)? != 0 {
                        then
                    } else {
                        otherwise
                    }
                }
            };
            let params = &expansion
                .blocks
                .get(target.block)
                .ok_or(InterpError::Unsupported(
                    "jump to a block that does not exist",
                ))?
                .params;
            if params.len() != target.args.len() {
                return Err(InterpError::ArityMismatch {
                    block: target.block,
                    expected: params.len(),
                    found: target.args.len(),
                });
            }
            // Block parameters bind in parallel: read every argument before writing any.
            self.args.clear();
            for (&arg, &param) in target.args.iter().zip(params) {
                let param_ty = expansion
                    .vars
                    .get(param)
                    .copied()
                    .ok_or(InterpError::UndefinedVar(param))?;
                expect_type(
                    expansion,
                    arg,
                    param_ty,
                    "a block argument has its parameter's type",
                )?;
                let value = self.get(arg)?;
                self.args.push(value);
            }
            for (index, &param) in params.iter().enumerate() {
                self.regs[param] = Some(self.args[index]);
            }
            state.block = target.block;
            state.pc = 0;
        }
    }

    /// A fresh register file with the expansion's inputs bound to `inputs` (checked by
    /// [`check_inputs`]).
    fn bind_inputs(&mut self, expansion: &Expansion, inputs: &Inputs<'_>) {
        if self.check_facts {
            self.facts.compute(expansion);
        }
        self.regs.clear();
        self.regs.resize(expansion.vars.len());
        self.define(expansion, expansion.addr, u128::from(inputs.addr));
        for (&var, &bits) in expansion.operands.iter().zip(inputs.operands) {
            self.define(expansion, var, bits);
        }
        for (&var, &bits) in expansion.new_values.iter().zip(inputs.new_values) {
            self.define(expansion, var, bits);
        }
    }

    fn define(&mut self, expansion: &Expansion, var: Var, bits: u128) {
        let width = expansion.vars.get(var).map_or(128, |ty| ty.bits());
        self.regs[var] = Some(bits & width_mask(width));
    }

    /// With [`Interpreter::check_facts`], checks the facts about what `prim` reads in `block`.
    fn check_reads(
        &self,
        expansion: &Expansion,
        block: Block,
        prim: &Prim,
    ) -> Result<(), InterpError> {
        if !self.check_facts {
            return Ok(());
        }
        let value = |var: Var| self.regs.get(var).copied().flatten();
        self.facts
            .check_reads(expansion, block, prim, value)
            .map_err(InterpError::Fact)
    }

    /// With [`Interpreter::check_facts`], checks the facts about the results where `block`
    /// returns.
    fn check_results(&self, expansion: &Expansion, block: Block) -> Result<(), InterpError> {
        if !self.check_facts {
            return Ok(());
        }
        let value = |var: Var| self.regs.get(var).copied().flatten();
        self.facts
            .check_results(expansion, block, value)
            .map_err(InterpError::Fact)
    }

    fn get(&self, var: Var) -> Result<u128, InterpError> {
        self.regs
            .get(var)
            .copied()
            .flatten()
            .ok_or(InterpError::UndefinedVar(var))
    }

    fn execute(
        &mut self,
        expansion: &Expansion,
        prim: &Prim,
        memory: &mut Memory,
        interference: &mut dyn Interference,
        outcome: &mut Outcome,
    ) -> Result<(), InterpError> {
        prim.check_types(&expansion.vars)
            .map_err(|error| match error.found {
                None if expansion.vars.get(error.var).is_none() => {
                    InterpError::UndefinedVar(error.var)
                }
                _ => InterpError::Type(error),
            })?;
        let width = |var: Var| expansion.vars[var].bits();
        match *prim {
            Prim::Const { dst, bits } => self.define(expansion, dst, bits),
            Prim::Load { dst, addr, .. } => {
                let value = memory.read(self.get(addr)? as u64, width(dst) / 8)?;
                self.define(expansion, dst, value);
            }
            Prim::Cas {
                dst,
                addr,
                expected,
                new,
                ..
            } => {
                let address = self.get(addr)? as u64;
                let (expected, new) = (self.get(expected)?, self.get(new)?);
                let bytes = width(dst) / 8;
                // Checked before the interference so that it never sees a bad access.
                memory.read(address, bytes)?;
                interference.before_cas(
                    memory,
                    CasSite {
                        addr: address,
                        bytes,
                        index: outcome.cas_attempts,
                    },
                );
                outcome.cas_attempts += 1;
                let old = memory.read(address, bytes)?;
                if old == expected {
                    memory.write(address, bytes, new)?;
                } else {
                    outcome.cas_failures += 1;
                }
                self.define(expansion, dst, old);
            }
            Prim::Rmw {
                dst,
                op,
                ty,
                addr,
                value,
                ..
            } => {
                let address = self.get(addr)? as u64;
                let operand = self.get(value)?;
                memory.read(address, ty.bytes())?;
                if self.interfere_before_rmw {
                    interference.before_cas(
                        memory,
                        CasSite {
                            addr: address,
                            bytes: ty.bytes(),
                            index: outcome.cas_attempts,
                        },
                    );
                }
                let old = memory.read(address, ty.bytes())?;
                let new = semantics::apply(op, ty, old, operand, 0, self.rmw_mode);
                memory.write(address, ty.bytes(), new)?;
                if let Some(dst) = dst {
                    self.define(expansion, dst, old);
                }
            }
            Prim::Unary { dst, op, src } => {
                let bits = self.get(src)?;
                self.define(
                    expansion,
                    dst,
                    if op == UnaryOp::Not { !bits } else { bits },
                );
            }
            Prim::Binary { dst, op, a, b } => {
                let (x, y) = (self.get(a)?, self.get(b)?);
                let value = binary(op, expansion.vars[a], x, y).ok_or(InterpError::Unsupported(
                    "a binary op on a type it does not take",
                ))?;
                self.define(expansion, dst, value);
            }
            Prim::Cmp { dst, cond, a, b } => {
                let (x, y) = (self.get(a)?, self.get(b)?);
                let holds = match cond {
                    CmpCond::Eq => x == y,
                    CmpCond::Ne => x != y,
                    CmpCond::Ult => x < y,
                    CmpCond::Ule => x <= y,
                    CmpCond::Ugt => x > y,
                    CmpCond::Uge => x >= y,
                };
                self.define(expansion, dst, u128::from(holds));
            }
            Prim::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let chosen = if self.get(cond)? != 0 {
                    if_true
                } else {
                    if_false
                };
                let value = self.get(chosen)?;
                self.define(expansion, dst, value);
            }
            Prim::PtrAlignDown { dst, ptr, align } => {
                let value = self.get(ptr)? & !(u128::from(align) - 1);
                self.define(expansion, dst, value);
            }
            Prim::PtrLowBits { dst, ptr, align } => {
                let value = self.get(ptr)? & (u128::from(align) - 1);
                self.define(expansion, dst, value);
            }
            Prim::PtrAdd { dst, ptr, bytes } => {
                let value = self.get(ptr)?.wrapping_add(u128::from(bytes));
                self.define(expansion, dst, value);
            }
            Prim::WarpActive { .. }
            | Prim::WarpBallot { .. }
            | Prim::WarpPeers { .. }
            | Prim::WarpLeads { .. }
            | Prim::WarpFirst { .. }
            | Prim::WarpScan { .. }
            | Prim::WarpBroadcast { .. }
            | Prim::WarpFromRank { .. }
            | Prim::WarpSync { .. } => {
                return Err(InterpError::Unsupported(
                    "a warp primitive outside a warp's collective step",
                ))
            }
        }
        Ok(())
    }
}

/// A binary primitive on bits of type `ty` (already type-checked); `None` for a combination
/// the typing rules reject.
fn binary(op: BinaryOp, ty: PrimType, x: u128, y: u128) -> Option<u128> {
    let bits = ty.bits();
    if let Some(float) = float_elem(ty) {
        let mode = FloatMode::Ieee;
        return match op {
            BinaryOp::FAdd => Some(semantics::float_add(float, x, y, mode)),
            BinaryOp::FSub => Some(semantics::float_sub(float, x, y, mode)),
            BinaryOp::FMin => Some(semantics::float_min(float, x, y, mode)),
            BinaryOp::FMax => Some(semantics::float_max(float, x, y, mode)),
            BinaryOp::FMinAnyNan | BinaryOp::FMaxAnyNan => {
                let both_nan = semantics::is_nan(float, x) && semantics::is_nan(float, y);
                Some(if both_nan {
                    // The NaN least like the canonical one (every significand bit set, as PTX
                    // spells its own canonical NaN), so that only an exact fix-up passes.
                    semantics::width_mask(bits - 1)
                } else if op == BinaryOp::FMinAnyNan {
                    semantics::float_min(float, x, y, mode)
                } else {
                    semantics::float_max(float, x, y, mode)
                })
            }
            _ => None,
        };
    }
    op.on_integers(bits, x, y)
}
