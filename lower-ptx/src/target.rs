//! PTX targets: an SM architecture and a PTX ISA version, and the features each pair has.

use std::fmt;

/// An SM architecture this backend knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sm {
    Sm60,
    Sm70,
    Sm75,
    Sm80,
    Sm86,
    Sm89,
    Sm90,
    /// sm_90 with its architecture-specific features; for atomics, the same as sm_90.
    Sm90a,
    Sm100,
    Sm120,
}

impl Sm {
    /// Every architecture, oldest first (the order "smallest target" is searched in).
    pub const ALL: [Sm; 10] = [
        Sm::Sm60,
        Sm::Sm70,
        Sm::Sm75,
        Sm::Sm80,
        Sm::Sm86,
        Sm::Sm89,
        Sm::Sm90,
        Sm::Sm90a,
        Sm::Sm100,
        Sm::Sm120,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Sm::Sm60 => "sm_60",
            Sm::Sm70 => "sm_70",
            Sm::Sm75 => "sm_75",
            Sm::Sm80 => "sm_80",
            Sm::Sm86 => "sm_86",
            Sm::Sm89 => "sm_89",
            Sm::Sm90 => "sm_90",
            Sm::Sm90a => "sm_90a",
            Sm::Sm100 => "sm_100",
            Sm::Sm120 => "sm_120",
        }
    }

    /// The compute capability number (`90` for both sm_90 and sm_90a).
    pub const fn number(self) -> u32 {
        match self {
            Sm::Sm60 => 60,
            Sm::Sm70 => 70,
            Sm::Sm75 => 75,
            Sm::Sm80 => 80,
            Sm::Sm86 => 86,
            Sm::Sm89 => 89,
            Sm::Sm90 | Sm::Sm90a => 90,
            Sm::Sm100 => 100,
            Sm::Sm120 => 120,
        }
    }

    /// The oldest PTX ISA version that can target this architecture.
    pub const fn min_isa(self) -> PtxIsa {
        match self {
            Sm::Sm60 => PtxIsa::new(5, 0),
            Sm::Sm70 => PtxIsa::new(6, 0),
            Sm::Sm75 => PtxIsa::new(6, 3),
            Sm::Sm80 => PtxIsa::new(7, 0),
            Sm::Sm86 => PtxIsa::new(7, 1),
            Sm::Sm89 | Sm::Sm90 => PtxIsa::new(7, 8),
            Sm::Sm90a => PtxIsa::new(8, 0),
            Sm::Sm100 => PtxIsa::new(8, 6),
            Sm::Sm120 => PtxIsa::new(8, 7),
        }
    }

    pub fn from_name(name: &str) -> Option<Sm> {
        Sm::ALL.into_iter().find(|sm| sm.name() == name)
    }
}

/// A PTX ISA version (`.version major.minor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxIsa {
    pub major: u8,
    pub minor: u8,
}

impl PtxIsa {
    pub const fn new(major: u8, minor: u8) -> Self {
        PtxIsa { major, minor }
    }

    /// The default version for every architecture: the newest that ptxas 12.9 accepts, which
    /// ptxas 13.5 accepts too (for sm_75 and newer; ptxas 13 drops sm_60 and sm_70 altogether).
    pub const DEFAULT: PtxIsa = PtxIsa::new(8, 8);

    /// The newest version this backend knows (accepted by ptxas 13.5).
    pub const NEWEST: PtxIsa = PtxIsa::new(9, 1);

    /// Whether this is a published version this backend knows.
    pub fn is_known(self) -> bool {
        let newest_minor = match self.major {
            5 => 0,
            6 => 5,
            7 => 8,
            8 => 8,
            9 => 1,
            _ => return false,
        };
        self.minor <= newest_minor
    }
}

impl fmt::Display for PtxIsa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A PTX target: an architecture and the PTX ISA version the module declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxTarget {
    pub sm: Sm,
    pub isa: PtxIsa,
}

impl PtxTarget {
    pub const fn new(sm: Sm, isa: PtxIsa) -> Self {
        PtxTarget { sm, isa }
    }

    /// Parses `sm_XX` or `sm_XX@X.Y` (the part of a target name after `ptx:`).
    pub fn parse(spec: &str) -> Result<PtxTarget, String> {
        let (sm_text, isa_text) = match spec.split_once('@') {
            Some((sm, isa)) => (sm, Some(isa)),
            None => (spec, None),
        };
        let sm = Sm::from_name(sm_text).ok_or_else(|| {
            format!(
                "unknown PTX architecture `{sm_text}`; expected one of: {}",
                sm_list()
            )
        })?;
        let isa = match isa_text {
            None => PtxIsa::DEFAULT,
            Some(text) => {
                let parsed = text.split_once('.').and_then(|(major, minor)| {
                    Some(PtxIsa::new(major.parse().ok()?, minor.parse().ok()?))
                });
                match parsed {
                    Some(isa) if isa.is_known() => isa,
                    _ => {
                        return Err(format!(
                            "unknown PTX ISA version `{text}`; expected X.Y from 5.0 to {}",
                            PtxIsa::NEWEST
                        ))
                    }
                }
            }
        };
        if isa < sm.min_isa() {
            return Err(format!(
                "PTX ISA {isa} cannot target {}; it needs PTX ISA {} or later",
                sm.name(),
                sm.min_isa()
            ));
        }
        Ok(PtxTarget { sm, isa })
    }

    /// Whether the target has a feature (both its architecture and its ISA version).
    pub fn has(self, feature: Feature) -> bool {
        let (sm, isa) = feature.requires();
        self.sm.number() >= sm && self.isa >= isa
    }
}

impl fmt::Display for PtxTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.sm.name(), self.isa)
    }
}

fn sm_list() -> String {
    Sm::ALL
        .iter()
        .map(|sm| sm.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A PTX feature an atomic lowering may need, with the architecture and ISA version that
/// introduced it (the seeds' "Target ISA Notes" and "PTX ISA Notes", checked with ptxas).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `.relaxed/.acquire/.release/.acq_rel` on atom/red, `fence`, `ld.relaxed`.
    Sem,
    /// `.cluster` scope and `.shared::cluster`.
    Cluster,
    /// `.L2::cache_hint` and `createpolicy`.
    CacheHint,
    /// `atom.add.noftz.f16`.
    F16Add,
    /// `atom.add.noftz.f16x2`.
    F16x2Add,
    /// `atom.add.noftz.bf16`, `.bf16x2`.
    Bf16Add,
    /// `atom.cas.b16`.
    CasB16,
    /// `atom`/`red` with `.v2/.v4/.v8`.
    Vector,
    /// `.b128` cas/exch.
    B128,
    /// `.b128` with `.sys` scope.
    B128System,
    /// `ld`/`st` of `.b128` (ordered or not).
    LdStB128,
    /// `ld`/`st` of `.b128` with `.sys` scope.
    LdStB128System,
    /// `cvt.rn.bf16.f32`.
    CvtBf16,
}

impl Feature {
    /// Every feature.
    pub const ALL: [Feature; 13] = [
        Feature::Sem,
        Feature::Cluster,
        Feature::CacheHint,
        Feature::F16Add,
        Feature::F16x2Add,
        Feature::Bf16Add,
        Feature::CasB16,
        Feature::Vector,
        Feature::B128,
        Feature::B128System,
        Feature::LdStB128,
        Feature::LdStB128System,
        Feature::CvtBf16,
    ];

    /// (minimum SM number, minimum PTX ISA).
    pub const fn requires(self) -> (u32, PtxIsa) {
        match self {
            Feature::Sem => (70, PtxIsa::new(6, 0)),
            Feature::Cluster => (90, PtxIsa::new(7, 8)),
            Feature::CacheHint => (80, PtxIsa::new(7, 4)),
            Feature::F16Add => (70, PtxIsa::new(6, 3)),
            Feature::F16x2Add => (60, PtxIsa::new(6, 2)),
            Feature::Bf16Add => (90, PtxIsa::new(7, 8)),
            Feature::CasB16 => (70, PtxIsa::new(6, 3)),
            Feature::Vector => (90, PtxIsa::new(8, 1)),
            Feature::B128 => (90, PtxIsa::new(8, 3)),
            Feature::B128System => (90, PtxIsa::new(8, 4)),
            Feature::LdStB128 => (70, PtxIsa::new(8, 3)),
            Feature::LdStB128System => (70, PtxIsa::new(8, 4)),
            Feature::CvtBf16 => (80, PtxIsa::new(7, 0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let target = PtxTarget::parse("sm_90@8.7").unwrap();
        assert_eq!(target.to_string(), "sm_90@8.7");
        assert_eq!(
            PtxTarget::parse("sm_90a").unwrap().to_string(),
            "sm_90a@8.8"
        );
        assert!(PtxTarget::parse("sm_100@8.5")
            .unwrap_err()
            .contains("needs PTX ISA 8.6"));
        assert!(PtxTarget::parse("sm_91").is_err());
        assert!(PtxTarget::parse("sm_90@8.9").is_err());
        assert!(PtxTarget::parse("sm_90@x").is_err());
    }

    #[test]
    fn features_need_both_sm_and_isa() {
        let old_isa = PtxTarget::parse("sm_90@8.0").unwrap();
        assert!(!old_isa.has(Feature::Vector));
        assert!(old_isa.has(Feature::Cluster));
        assert!(PtxTarget::parse("sm_90@8.3").unwrap().has(Feature::B128));
        assert!(!PtxTarget::parse("sm_90@8.3")
            .unwrap()
            .has(Feature::B128System));
        assert!(!PtxTarget::parse("sm_80").unwrap().has(Feature::Cluster));
    }
}
