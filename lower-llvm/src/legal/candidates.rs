//! The targets a refusal's smallest target is searched among, in the order that defines
//! "smallest".

use crate::target::LlvmTarget;

/// The same triple, processor and options at every LLVM version, oldest first; then the
/// same triple and options on every other processor, oldest first; then, so that "no
/// target of this backend" is only said when it is true, every other triple the same way.
pub(crate) fn candidates(target: &LlvmTarget) -> Vec<LlvmTarget> {
    let all = LlvmTarget::all();
    let same_options =
        |t: &&LlvmTarget| t.triple == target.triple && t.coarse_grained == target.coarse_grained;
    let same_cpu = all
        .iter()
        .filter(same_options)
        .filter(|t| t.cpu == target.cpu);
    let other_cpus = all
        .iter()
        .filter(same_options)
        .filter(|t| t.cpu != target.cpu);
    let other_triples = all
        .iter()
        .filter(|t| t.triple != target.triple && !t.coarse_grained);
    let mut by_cpu: Vec<LlvmTarget> = other_cpus.copied().collect();
    by_cpu.sort_by_key(|t| (t.cpu, t.major));
    same_cpu
        .copied()
        .chain(by_cpu)
        .chain(other_triples.copied())
        .collect()
}
