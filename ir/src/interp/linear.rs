//! Runs an expansion as the PTX and vISA printers print it: the linearised walk's steps
//! ([`crate::lower::Linear`]), with block parameters bound by its sequential copies, some of them
//! hoisted before a branch. Comparing its outcomes with [`Interpreter::run_with`]'s proves the
//! walk keeps the expansion's meaning.

use crate::expand::Expansion;
use crate::lower::{Label, Step};

use super::{check_inputs, Inputs, Interference, InterpError, Interpreter, Memory, Outcome};

impl Interpreter {
    /// Runs `steps`, the walk of `expansion` for a printer of copies ([`crate::lower::Params::Copies`]),
    /// as one thread, calling `interference` before every `Cas`. Warp primitives are refused.
    pub fn run_steps(
        &mut self,
        expansion: &Expansion,
        steps: &[Step],
        memory: &mut Memory,
        inputs: Inputs<'_>,
        interference: &mut dyn Interference,
    ) -> Result<Outcome, InterpError> {
        check_inputs(expansion, &inputs)?;
        self.bind_inputs(expansion, &inputs);
        let target = |label: Label| -> Result<Option<usize>, InterpError> {
            if label == Label::Done {
                return Ok(None);
            }
            steps
                .iter()
                .position(|step| match *step {
                    Step::Block { block, .. } => label == Label::Block(block),
                    Step::Label(at) => label == at,
                    _ => false,
                })
                .map(Some)
                .ok_or(InterpError::Unsupported("a jump to a label the walk lacks"))
        };
        let mut outcome = Outcome::default();
        let mut pc = 0;
        // The block of the last step run: the one the walk leaves from at its end.
        let mut block = expansion.entry();
        while let Some(&step) = steps.get(pc) {
            pc += 1;
            let jump = match step {
                Step::Block { block: at, .. } => {
                    block = at;
                    continue;
                }
                Step::Label(_) => continue,
                Step::Prim { block: at, index } => {
                    block = at;
                    let prim = expansion
                        .blocks
                        .get(block)
                        .and_then(|data| data.prims.get(index as usize))
                        .ok_or(InterpError::Unsupported(
                            "a step names a primitive the expansion lacks",
                        ))?;
                    if prim.is_warp() {
                        return Err(InterpError::Unsupported("a warp primitive in a walk"));
                    }
                    outcome.step(self.step_limit)?;
                    self.check_reads(expansion, block, prim)?;
                    self.execute(expansion, prim, memory, interference, &mut outcome)?;
                    continue;
                }
                Step::Copy { dst, src } => {
                    let value = self.get(src)?;
                    self.regs[dst] = Some(value);
                    continue;
                }
                Step::Branch { cond, negated, to } => {
                    outcome.step(self.step_limit)?;
                    if (self.get(cond)? != 0) == negated {
                        continue;
                    }
                    to
                }
                Step::Jump(to) => {
                    outcome.step(self.step_limit)?;
                    to
                }
                Step::Terminator(_) => {
                    return Err(InterpError::Unsupported("a walk of phis"));
                }
            };
            match target(jump)? {
                Some(at) => pc = at,
                None => break,
            }
        }
        self.check_results(expansion, block)?;
        for &var in &expansion.results {
            let value = self.get(var)?;
            outcome.results.push(value);
        }
        Ok(outcome)
    }
}
