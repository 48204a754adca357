//! What a lowering did to each instruction: the report every lowering and
//! [`legalize_module`](super::legalize_module) return.

use fnv::FnvHashMap as HashMap;

use super::LowerError;
use crate::kernel::Inst;
use crate::legal::Legality;

/// What a lowering did to each instruction, for reports and counts.
///
/// Programs repeat a handful of kinds of atomic, so each distinct verdict is stored once and an
/// instruction's entry is 12 bytes: a report for a million atomics stays small.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LowerReport {
    verdicts: Vec<Legality>,
    verdict_index: HashMap<Legality, u32>,
    decisions: Vec<Decision>,
    instructions: Vec<u32>,
    refusals: Vec<LowerError>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decision {
    kernel: u32,
    inst: Inst,
    verdict: u32,
}

impl LowerReport {
    /// Records the verdict of instruction `inst` of kernel number `kernel` (program order).
    pub fn record(&mut self, kernel: usize, inst: Inst, legality: &Legality) {
        let verdict = match self.decisions.last() {
            Some(last) if self.verdicts[last.verdict as usize] == *legality => last.verdict,
            _ => self.verdict(legality),
        };
        self.record_verdict(kernel, inst, verdict);
    }

    /// The number [`LowerReport::record_verdict`] records `legality` by, stored once.
    pub(crate) fn verdict(&mut self, legality: &Legality) -> u32 {
        match self.verdict_index.get(legality) {
            Some(&index) => index,
            None => {
                let index = self.verdicts.len() as u32;
                self.verdicts.push(legality.clone());
                self.verdict_index.insert(legality.clone(), index);
                index
            }
        }
    }

    /// Records verdict number `verdict` ([`LowerReport::verdict`]) for instruction `inst` of
    /// kernel number `kernel`: for a caller that knows it already, so that a program of a
    /// million atomics does not compare or hash a verdict per atomic.
    pub(crate) fn record_verdict(&mut self, kernel: usize, inst: Inst, verdict: u32) {
        self.decisions.push(Decision {
            kernel: kernel as u32,
            inst,
            verdict,
        });
    }

    /// (kernel index, instruction, verdict) in program order.
    pub fn decisions(&self) -> impl ExactSizeIterator<Item = (usize, Inst, &Legality)> + '_ {
        self.decisions.iter().map(|d| {
            (
                d.kernel as usize,
                d.inst,
                &self.verdicts[d.verdict as usize],
            )
        })
    }

    /// The number of instructions in each decision's code, in the order of
    /// [`LowerReport::decisions`] (its lines less labels and comments, as the printer wrote
    /// them for that instruction), where the lowering counted them
    /// ([`LowerOptions::count_instructions`](super::LowerOptions::count_instructions)); empty otherwise.
    pub fn instructions(&self) -> &[u32] {
        &self.instructions
    }

    /// Records the instruction count of the next decision's code.
    pub(crate) fn record_instructions(&mut self, count: u32) {
        self.instructions.push(count);
    }

    /// What was left out of the code, in program order ([`OnRefusal::Skip`](super::OnRefusal::Skip)): each refused
    /// instruction, each instruction that reads a result left out, and each kernel whose
    /// parameters the target cannot carry (its instructions are then not in
    /// [`LowerReport::decisions`]).
    pub fn refusals(&self) -> &[LowerError] {
        &self.refusals
    }

    /// Records that `error`'s instruction or kernel is left out of the code.
    pub fn refuse(&mut self, error: LowerError) {
        self.refusals.push(error);
    }

    /// Makes room for `additional` more decisions (a kernel's instructions), so that recording
    /// a large kernel grows the report once.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.decisions.reserve(additional);
    }

    /// Forgets the decisions after the first `len` (a kernel left out whole).
    pub(crate) fn truncate_decisions(&mut self, len: usize) {
        self.decisions.truncate(len);
    }

    /// The number of instructions recorded.
    pub fn len(&self) -> usize {
        self.decisions.len()
    }

    /// Whether no instruction was recorded.
    pub fn is_empty(&self) -> bool {
        self.decisions.is_empty()
    }

    /// Releases spare capacity once the report is complete.
    pub fn shrink_to_fit(&mut self) {
        self.decisions.shrink_to_fit();
        self.verdicts.shrink_to_fit();
        self.refusals.shrink_to_fit();
    }
}
