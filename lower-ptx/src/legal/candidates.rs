//! The targets a refusal's smallest target is searched among.

use crate::target::{Feature, PtxIsa, PtxKnob, PtxTarget, Sm};

/// The targets a refusal's smallest target is searched among, oldest first: each architecture
/// with its oldest ISA, then every ISA version that introduced a feature ([`Feature::ALL`]) and
/// the default; with the client's policies where the candidate can have them.
pub(crate) fn candidates(policies: PtxTarget) -> Vec<PtxTarget> {
    let mut isas: Vec<PtxIsa> = Feature::ALL
        .iter()
        .map(|feature| feature.requires().1)
        .chain(Sm::ALL.iter().map(|sm| sm.default_isa()))
        .collect();
    isas.sort();
    isas.dedup();
    Sm::ALL
        .iter()
        .copied()
        .flat_map(|sm| {
            std::iter::once(sm.min_isa())
                .chain(
                    isas.clone()
                        .into_iter()
                        .filter(move |isa| *isa > sm.min_isa() && *isa <= sm.newest_isa()),
                )
                .map(move |isa| PtxTarget::new(sm, isa))
        })
        .map(|candidate| PtxTarget {
            packed_half_add: policies.packed_half_add
                && candidate.has(PtxKnob::PackedHalfAdd.needs()),
            reassociate_float_add: policies.reassociate_float_add
                && candidate.has(PtxKnob::ReassociateFloatAdd.needs()),
            plain_loops: policies.plain_loops && candidate.has(PtxKnob::PlainLoops.needs()),
            serial_fold: policies.serial_fold && candidate.has(PtxKnob::SerialFold.needs()),
            ..candidate
        })
        .collect()
}
