//! PTX inputs of the fuzz run: a random module lowered for a PTX target (complete, with its
//! declarations), its text mutated as the atomir text is, then read by the PTX reader; each
//! atomic read is made into its one-instruction module, verified, and spliced for a target;
//! each atomic's source line is read again through the one-instruction entry. None of it may
//! panic.

use atomir::{read_ptx, read_ptx_instruction, Fragment, PtxDeclarations, SpliceNames};
use atomir_ir::{verify, LowerOptions, Module};
use atomir_tests::random::Rng;

use super::{guarded, mutate_text, Counts, Fuzzer};

impl Fuzzer {
    pub(super) fn ptx_input(
        &mut self,
        rng: &mut Rng,
        number: u64,
        module: &Module,
        counts: &mut Counts,
    ) {
        let ptx_targets: Vec<usize> = (0..self.targets.len())
            .filter(|&index| self.targets[index].0.starts_with("ptx:"))
            .collect();
        let Some(&index) = ptx_targets.get(number as usize % ptx_targets.len().max(1)) else {
            return;
        };
        let mut text = String::new();
        if let Ok(verified) = verify::verify(module) {
            let _ = self.targets[index]
                .1
                .lower(&verified, &LowerOptions::module(), &mut text);
        }
        if text.is_empty() {
            return;
        }
        let mutated = if rng.percent(80) {
            mutate_text(rng, &text, &text)
        } else {
            text
        };
        let read = match guarded(|| read_ptx(&mutated)) {
            Ok(read) => read,
            Err(message) => return self.panicked(counts, "read ptx", &mutated, message),
        };
        let chosen = self.chosen_targets(number);
        for (number, atomic) in read.atomics.iter().take(4).enumerate() {
            let target = &self.targets[chosen[number % chosen.len()]].1;
            let spliced = guarded(|| {
                let _ = read_ptx_instruction(&atomic.raw, &PtxDeclarations::new());
                let module = atomic.module();
                let Ok(verified) = verify::verify(&module) else {
                    return;
                };
                let kernel = &module.kernels[0];
                let Some(inst) = kernel.insts.keys().next() else {
                    return;
                };
                let mut names = SpliceNames::numbered("fz", number as u32).expect("a plain prefix");
                names.set_blocks("fz_from", "fz_to");
                for param in &kernel.params {
                    names.bind(param.value, &format!("v{}", param.value.as_u32()));
                }
                let _ = target.splice(&verified, 0, inst, &names, &mut Fragment::default());
            });
            if let Err(message) = spliced {
                self.panicked(counts, "splice read ptx", &mutated, message);
            }
        }
    }
}
