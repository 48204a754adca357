//! What a fuzz run found: counts per stage, panics by stage, and samples of each finding.

use std::collections::BTreeMap;
use std::time::Duration;

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub inputs: u64,
    pub text_inputs: u64,
    pub built_inputs: u64,
    pub parsed: u64,
    pub verified: u64,
    pub lowerings: u64,
    pub refusals: u64,
    /// Panics on the contract path (parse, verify, print, re-parse, lowering a verified module),
    /// by stage.
    pub panics: BTreeMap<String, u64>,
    pub round_trip_mismatches: u64,
    pub hangs: u64,
    pub slowest: Duration,
    /// Legality queries over every instruction of a module that does not verify (such a
    /// module cannot be lowered; a panic there is counted in `panics`).
    pub unverified_queries: u64,
    /// PTX inputs: a module lowered for PTX, mutated and read back (`fuzz/ptx.rs`).
    pub ptx_inputs: u64,
    /// LLVM IR and PTX, atomir's own lowerings mutated, read, fixed and audited
    /// (`fuzz/llvm_ir.rs`).
    pub ll_inputs: u64,
    /// A few examples of every kind of finding: (kind, input, message).
    pub samples: Vec<(String, String, String)>,
}

const SAMPLES_PER_KIND: usize = 3;

impl Counts {
    pub fn panic_count(&self) -> u64 {
        self.panics.values().sum()
    }

    pub(crate) fn sample(&mut self, kind: &str, input: &str, message: String) {
        let kept = self.samples.iter().filter(|(k, _, _)| k == kind).count();
        if kept < SAMPLES_PER_KIND {
            let input: String = input.chars().take(1500).collect();
            self.samples.push((kind.to_string(), input, message));
        }
    }

    pub fn merge(&mut self, other: Counts) {
        self.inputs += other.inputs;
        self.text_inputs += other.text_inputs;
        self.built_inputs += other.built_inputs;
        self.parsed += other.parsed;
        self.verified += other.verified;
        self.lowerings += other.lowerings;
        self.refusals += other.refusals;
        for (k, v) in other.panics {
            *self.panics.entry(k).or_default() += v;
        }
        self.round_trip_mismatches += other.round_trip_mismatches;
        self.hangs += other.hangs;
        self.slowest = self.slowest.max(other.slowest);
        self.unverified_queries += other.unverified_queries;
        self.ptx_inputs += other.ptx_inputs;
        self.ll_inputs += other.ll_inputs;
        for (kind, input, message) in other.samples {
            self.sample(&kind, &input, message);
        }
    }

    /// The summary a run prints.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "{} inputs ({} mutated text, {} built in code, {} PTX read): {} parsed, {} verified; \
             {} lowerings ({} refused)\n\
             panics: {}{}\n\
             round-trip mismatches: {}\n\
             hangs (over the limit): {}; slowest input {:.1?}\n\
             legality queries on modules that do not verify: {}; LLVM IR read, fixed, audited: {}",
            self.inputs,
            self.text_inputs,
            self.built_inputs,
            self.ptx_inputs,
            self.parsed,
            self.verified,
            self.lowerings,
            self.refusals,
            self.panic_count(),
            by_stage(&self.panics),
            self.round_trip_mismatches,
            self.hangs,
            self.slowest,
            self.unverified_queries,
            self.ll_inputs,
        );
        for (kind, input, message) in &self.samples {
            text.push_str(&format!("\n--- {kind}: {message}\n{input}"));
        }
        text
    }
}

fn by_stage(map: &BTreeMap<String, u64>) -> String {
    if map.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = map.iter().map(|(k, v)| format!("{k} {v}")).collect();
    format!(" ({})", parts.join(", "))
}
