//! PTX targets: an SM architecture and a PTX ISA version, and the features each pair has.

use std::fmt;
use std::str::FromStr;

use atomir_ir::spelling::{Displayed, Spell};
use atomir_ir::{spell, ParseTargetError};

/// A ptxas release that judges PTX: each architecture is assembled by the releases that know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ptxas {
    /// ptxas 12.9: the last release that assembles sm_60 and sm_70.
    V12_9,
    /// ptxas 13.5: sm_75 and newer, and the only one that knows sm_88, sm_107 and sm_110.
    V13_5,
}

impl Ptxas {
    /// The newest PTX ISA version this release accepts (`.version` above it is a fatal error).
    pub const fn newest_isa(self) -> PtxIsa {
        match self {
            Ptxas::V12_9 => PtxIsa::new(8, 8),
            Ptxas::V13_5 => PtxIsa::new(9, 5),
        }
    }
}

impl fmt::Display for Ptxas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ptxas::V12_9 => "12.9",
            Ptxas::V13_5 => "13.5",
        })
    }
}

/// Which ptxas releases know an architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Judges {
    /// Only ptxas 12.9 (ptxas 13 dropped the architecture).
    Old,
    /// Both ptxas 12.9 and 13.5.
    Both,
    /// Only ptxas 13.5 (the architecture is newer than ptxas 12.9).
    New,
}

impl Judges {
    /// The releases, oldest first.
    pub const fn releases(self) -> &'static [Ptxas] {
        match self {
            Judges::Old => &[Ptxas::V12_9],
            Judges::Both => &[Ptxas::V12_9, Ptxas::V13_5],
            Judges::New => &[Ptxas::V13_5],
        }
    }
}

/// One architecture's row of the table: everything that differs between architectures.
struct SmRow {
    name: &'static str,
    /// The compute capability number (`90` for sm_90, sm_90a; `100` for sm_100a and sm_100f).
    number: u32,
    /// The oldest PTX ISA version that can target it (ptxas 13.5 where it knows the
    /// architecture: `PTX .version X does not support .target sm_NN` below it).
    min_isa: PtxIsa,
    judges: Judges,
}

macro_rules! sm_table {
    ($($variant:ident => $name:literal, $number:literal, ($major:literal, $minor:literal), $judges:ident;)*) => {
        /// An SM architecture this backend knows: the targets ptxas 13.5 assembles, and sm_60
        /// and sm_70, which only ptxas 12.9 still does. The `a` (architecture-specific) and `f`
        /// (family) variants have, for atomics, the features of their base architecture.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Sm {
            $(
                #[doc = concat!("`", $name, "`: PTX ISA ", $major, ".", $minor, " or newer.")]
                $variant,
            )*
        }

        impl Sm {
            /// Every architecture, oldest first (the order "smallest target" is searched in).
            pub const ALL: &'static [Sm] = &[$(Sm::$variant,)*];

            const fn row(self) -> SmRow {
                match self {
                    $(Sm::$variant => SmRow {
                        name: $name,
                        number: $number,
                        min_isa: PtxIsa::new($major, $minor),
                        judges: Judges::$judges,
                    },)*
                }
            }
        }
    };
}

// Oldest ISA per architecture and which ptxas knows it: measured with ptxas 12.9 and 13.5 over
// `.version 4.0 … 9.9` × every `-arch` each lists. sm_70 is listed at 6.0 (the documented floor)
// although ptxas 12.9 also accepts 5.1.
sm_table! {
    Sm60 => "sm_60", 60, (5, 0), Old;
    Sm70 => "sm_70", 70, (6, 0), Old;
    Sm75 => "sm_75", 75, (6, 3), Both;
    Sm80 => "sm_80", 80, (7, 0), Both;
    Sm86 => "sm_86", 86, (7, 1), Both;
    Sm87 => "sm_87", 87, (7, 4), Both;
    Sm88 => "sm_88", 88, (9, 0), New;
    Sm89 => "sm_89", 89, (7, 8), Both;
    Sm90 => "sm_90", 90, (7, 8), Both;
    Sm90a => "sm_90a", 90, (8, 0), Both;
    Sm100 => "sm_100", 100, (8, 6), Both;
    Sm100a => "sm_100a", 100, (8, 6), Both;
    Sm100f => "sm_100f", 100, (8, 8), Both;
    Sm103 => "sm_103", 103, (8, 8), Both;
    Sm103a => "sm_103a", 103, (8, 8), Both;
    Sm103f => "sm_103f", 103, (8, 8), Both;
    Sm107 => "sm_107", 107, (9, 4), New;
    Sm107a => "sm_107a", 107, (9, 4), New;
    Sm107f => "sm_107f", 107, (9, 4), New;
    Sm110 => "sm_110", 110, (9, 0), New;
    Sm110a => "sm_110a", 110, (9, 0), New;
    Sm110f => "sm_110f", 110, (9, 0), New;
    Sm120 => "sm_120", 120, (8, 7), Both;
    Sm120a => "sm_120a", 120, (8, 7), Both;
    Sm120f => "sm_120f", 120, (8, 8), Both;
    Sm121 => "sm_121", 121, (8, 8), Both;
    Sm121a => "sm_121a", 121, (8, 8), Both;
    Sm121f => "sm_121f", 121, (8, 8), Both;
}

impl Sm {
    /// The `.target` spelling, `sm_90a`.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The compute capability number (`90` for both sm_90 and sm_90a).
    pub const fn number(self) -> u32 {
        self.row().number
    }

    /// The oldest PTX ISA version that can target this architecture.
    pub const fn min_isa(self) -> PtxIsa {
        self.row().min_isa
    }

    /// The ptxas releases that assemble this architecture.
    pub const fn judges(self) -> Judges {
        self.row().judges
    }

    /// The strictest ptxas that knows this architecture: the newest release.
    pub fn judge(self) -> Ptxas {
        let releases = self.judges().releases();
        releases[releases.len() - 1]
    }

    /// The default PTX ISA version: the newest one that every ptxas knowing the architecture
    /// accepts, so the default output assembles with each of them (8.8 where ptxas 12.9 knows
    /// the architecture, 9.5 where only ptxas 13.5 does).
    pub fn default_isa(self) -> PtxIsa {
        self.judges()
            .releases()
            .iter()
            .map(|release| release.newest_isa())
            .min()
            .unwrap_or(PtxIsa::NEWEST)
    }

    /// The newest PTX ISA version some ptxas assembles for this architecture.
    pub fn newest_isa(self) -> PtxIsa {
        self.judge().newest_isa()
    }

    /// The architecture of a `.target` spelling (`sm_90a`), exactly as [`Sm::name`] writes it.
    pub fn from_name(name: &str) -> Option<Sm> {
        Sm::ALL.iter().copied().find(|sm| sm.name() == name)
    }
}

/// A PTX ISA version (`.version major.minor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxIsa {
    /// The major version (`9` of `9.4`).
    pub major: u8,
    /// The minor version (`4` of `9.4`).
    pub minor: u8,
}

impl PtxIsa {
    /// `.version major.minor`; [`PtxIsa::is_known`] says whether it was published.
    pub const fn new(major: u8, minor: u8) -> Self {
        PtxIsa { major, minor }
    }

    /// The newest version this backend knows (accepted by ptxas 13.5).
    pub const NEWEST: PtxIsa = Ptxas::V13_5.newest_isa();

    /// The oldest version this backend knows.
    pub const OLDEST: PtxIsa = PtxIsa::new(5, 0);

    /// Whether this is a published version this backend knows.
    pub fn is_known(self) -> bool {
        let newest_minor = match self.major {
            5 => 0,
            6 => 5,
            7 => 8,
            8 => 8,
            9 => 5,
            _ => return false,
        };
        self.minor <= newest_minor
    }
}

impl Spell for PtxIsa {
    fn spell(&self, out: &mut String) {
        spell!(out, self.major, '.', self.minor);
    }
}

impl fmt::Display for PtxIsa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Displayed(self), f)
    }
}

/// An explicit lowering policy (`+<name>` after the target): what the client asserts about its
/// program so that a faster form may replace the default one. Never on by default: each one
/// changes a result where its assertion does not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PtxKnob {
    /// `+packed-half-add`: see [`PtxTarget::packed_half_add`].
    PackedHalfAdd,
    /// `+reassociate-float-add`: see [`PtxTarget::reassociate_float_add`].
    ReassociateFloatAdd,
    /// `+plain-loops`: see [`PtxTarget::plain_loops`].
    PlainLoops,
    /// `+serial-fold`: see [`PtxTarget::serial_fold`].
    SerialFold,
}

impl PtxKnob {
    /// Every knob.
    pub const ALL: [PtxKnob; 4] = [
        PtxKnob::PackedHalfAdd,
        PtxKnob::ReassociateFloatAdd,
        PtxKnob::PlainLoops,
        PtxKnob::SerialFold,
    ];

    /// The spelling after `+` in a target name.
    pub const fn name(self) -> &'static str {
        match self {
            PtxKnob::PackedHalfAdd => "packed-half-add",
            PtxKnob::ReassociateFloatAdd => "reassociate-float-add",
            PtxKnob::PlainLoops => "plain-loops",
            PtxKnob::SerialFold => "serial-fold",
        }
    }

    /// The feature the knob's faster form needs; a target without it refuses the knob.
    pub const fn needs(self) -> Feature {
        match self {
            PtxKnob::PackedHalfAdd => Feature::F16x2Add,
            PtxKnob::ReassociateFloatAdd => Feature::WarpCombine,
            PtxKnob::PlainLoops => Feature::WarpCombine,
            PtxKnob::SerialFold => Feature::CasB16,
        }
    }

    /// What the knob asserts and why it is off by default, for `--help` and docs.
    pub const fn help(self) -> &'static str {
        match self {
            PtxKnob::PackedHalfAdd => {
                "the other half of the aligned 32-bit word of every scalar f16/bf16 add or sub \
                 holds f16/bf16 data, so the add is the packed f16x2/bf16x2 atom on that word \
                 with -0.0 in the other half (ptxas makes scalar f16/bf16 adds a CAS loop); \
                 the other half is read and written back atomically and unchanged, except \
                 that a NaN there may come back as another NaN, hence off by default"
            }
            PtxKnob::ReassociateFloatAdd => {
                "relaxed f32 adds (and subs) need not be rounded one at a time: the lanes of a \
                 warp that add to one address sum their operands first and one lane adds the \
                 sum, each lane getting the old value plus the sum of the lanes below it; old \
                 and final values are those of another order of the additions, rounded \
                 differently (a zero may get the other sign); on global or generic memory \
                 without `.noftz.f32` (before sm_90 with PTX ISA 9.4) that add is the native \
                 atom.add.f32, which flushes subnormal inputs and results, where an exact add \
                 is otherwise a CAS loop; hence off by default"
            }
            PtxKnob::PlainLoops => {
                "smaller code, slower under contention: relaxed 8/16-bit integer add, sub, \
                 min and max and relaxed f32/f64 min and max are carried out by each lane on \
                 its own (a CAS loop, or the integer atom with its NaN loop) instead of once \
                 per 32-bit word or address by the warp's lanes combined; results are the same, hence a \
                 size choice rather than a default"
            }
            PtxKnob::SerialFold => {
                "relaxed scalar f16/bf16 and 8/16-bit integer add and sub are carried out once \
                 per 32-bit word by the warp's lanes, each lane's operation applied to its own \
                 bits in turn, in lane order and rounded as its own atomic would be, inside one \
                 CAS loop of the highest lane; exact (the results of the lanes' atomics one \
                 after another), off by default until the GPU shows it faster"
            }
        }
    }

    fn from_name(name: &str) -> Option<PtxKnob> {
        PtxKnob::ALL.into_iter().find(|knob| knob.name() == name)
    }
}

/// A PTX target: an architecture, the PTX ISA version the module declares, and the explicit
/// lowering policies the client opted into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxTarget {
    /// The architecture (`.target`).
    pub sm: Sm,
    /// The PTX ISA version (`.version`); a valid target has it at least [`Sm::min_isa`].
    pub isa: PtxIsa,
    /// `+packed-half-add`: the client asserts that the other 16-bit half of the aligned 32-bit
    /// word of every scalar f16/bf16 add or sub holds f16/bf16 data (a NaN there may be
    /// replaced by another NaN). A scalar f16 add then is `atom.add.noftz.f16x2` on that word
    /// with the operand in the addressed half and -0.0 in the other (bf16 likewise where the
    /// target has `bf16x2`); `x + -0.0 = x` bit for bit for every non-NaN `x`. False by
    /// default: a NaN of the other half may change its bits, and to the memory model the other
    /// half takes part in an atomic read-modify-write (so a concurrent non-atomic access to it
    /// is a race). Needs [`Feature::F16x2Add`].
    pub packed_half_add: bool,
    /// `+reassociate-float-add`: the client accepts that relaxed scalar f32 adds and subs are not
    /// rounded one at a time. The lanes of a warp that add to one address then sum their operands
    /// first and one lane carries out the add of the sum ([`atomir_ir::WarpCombine::Fold`] of the
    /// native RMW); each lane gets the old value plus the sum of the operands of the lanes below
    /// it. Old and final values are those of another order of the additions, rounded differently.
    /// False by default. Needs [`Feature::WarpCombine`].
    pub reassociate_float_add: bool,
    /// `+plain-loops`: code size before contended speed. The relaxed scalar nodes the default
    /// carries out once per word or address by a warp's lanes combined
    /// ([`atomir_ir::WarpCombine::WordFold`] of a masked CAS loop, [`atomir_ir::WarpCombine::Fold`]
    /// of an integer min/max) are carried out by each lane on its own
    /// ([`atomir_ir::WarpCombine::PerLane`]): the same results, a fraction of the code, and every
    /// lane's retries at a contended address. False by default. Needs [`Feature::WarpCombine`]
    /// (without it there is no combined form to leave out).
    pub plain_loops: bool,
    /// `+serial-fold`: relaxed scalar f16/bf16 and 8/16-bit integer add and sub are carried out
    /// once per aligned 32-bit word by a warp ([`atomir_ir::WarpCombine::SerialFold`]): in each
    /// attempt of one CAS loop on the word run by the highest of the lanes whose elements lie in
    /// it, every lane applies its own operation to its own bits, in lane order, to the word the
    /// lane below it left, rounded as its own atomic would be. Exact: old values and final memory
    /// are those of the lanes' atomics one after another. False by default until GPU timings
    /// show it faster than the scalar `atom` (which ptxas carries out as a CAS loop per lane)
    /// and the default warp-combined loop per word. Needs [`Feature::CasB16`] (and so the warp
    /// instructions, which come with the same architecture).
    pub serial_fold: bool,
}

impl PtxTarget {
    /// The pair as given, unchecked, with no lowering policy; [`PtxTarget::parse`] checks the
    /// version against the architecture.
    pub const fn new(sm: Sm, isa: PtxIsa) -> Self {
        PtxTarget {
            sm,
            isa,
            packed_half_add: false,
            reassociate_float_add: false,
            plain_loops: false,
            serial_fold: false,
        }
    }

    /// Parses `sm_XX[@X.Y][+<knob>]…` (the part of a target name after `ptx:`); the error says what
    /// was expected.
    pub fn parse(spec: &str) -> Result<PtxTarget, ParseTargetError> {
        PtxTarget::parse_spec(spec).map_err(ParseTargetError::new)
    }

    fn parse_spec(spec: &str) -> Result<PtxTarget, String> {
        let mut parts = spec.split('+');
        let mut target = PtxTarget::parse_base(parts.next().unwrap_or_default())?;
        for name in parts {
            let knob = PtxKnob::from_name(name)
                .ok_or_else(|| format!("unknown PTX target option `+{name}`"))?;
            if !target.has(knob.needs()) {
                let (sm, isa) = knob.needs().requires();
                return Err(format!(
                    "`+{name}` needs {} (sm_{sm} and PTX ISA {isa}); ptx:{target} lacks it",
                    knob.needs().label()
                ));
            }
            match knob {
                PtxKnob::PackedHalfAdd => target.packed_half_add = true,
                PtxKnob::ReassociateFloatAdd => target.reassociate_float_add = true,
                PtxKnob::PlainLoops => target.plain_loops = true,
                PtxKnob::SerialFold => target.serial_fold = true,
            }
        }
        Ok(target)
    }

    /// Parses `sm_XX` or `sm_XX@X.Y`.
    fn parse_base(spec: &str) -> Result<PtxTarget, String> {
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
            None => sm.default_isa(),
            Some(text) => {
                let parsed = text.split_once('.').and_then(|(major, minor)| {
                    Some(PtxIsa::new(major.parse().ok()?, minor.parse().ok()?))
                });
                match parsed {
                    Some(isa) if isa.is_known() => isa,
                    _ => {
                        return Err(format!(
                            "unknown PTX ISA version `{text}`; expected X.Y from {} to {}",
                            PtxIsa::OLDEST,
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
        if isa > sm.newest_isa() {
            return Err(format!(
                "PTX ISA {isa} cannot target {}: ptxas {}, the newest that assembles it, \
                 accepts PTX ISA up to {}",
                sm.name(),
                sm.judge(),
                sm.newest_isa()
            ));
        }
        Ok(PtxTarget::new(sm, isa))
    }

    /// Every target this backend accepts: every architecture at every PTX ISA version it can
    /// declare, and with `+packed-half-add` too where it has the packed f16 add, and with
    /// `+reassociate-float-add` and with `+plain-loops` where it can combine a warp's lanes
    /// (each option alone).
    pub fn all() -> Vec<PtxTarget> {
        let mut targets = Vec::new();
        let isas = (5..=PtxIsa::NEWEST.major)
            .flat_map(|major| (0..=9).map(move |minor| PtxIsa::new(major, minor)))
            .filter(|isa| isa.is_known());
        for &sm in Sm::ALL {
            let isas = isas
                .clone()
                .filter(|isa| *isa >= sm.min_isa() && *isa <= sm.newest_isa());
            for isa in isas {
                let target = PtxTarget::new(sm, isa);
                targets.push(target);
                if target.has(PtxKnob::PackedHalfAdd.needs()) {
                    targets.push(PtxTarget {
                        packed_half_add: true,
                        ..target
                    });
                }
                if target.has(PtxKnob::ReassociateFloatAdd.needs()) {
                    targets.push(PtxTarget {
                        reassociate_float_add: true,
                        ..target
                    });
                }
                if target.has(PtxKnob::PlainLoops.needs()) {
                    targets.push(PtxTarget {
                        plain_loops: true,
                        ..target
                    });
                }
            }
        }
        targets
    }

    /// Whether the target has a feature (both its architecture and its ISA version).
    pub fn has(self, feature: Feature) -> bool {
        let (sm, isa) = feature.requires();
        self.sm.number() >= sm && self.isa >= isa
    }
}

impl FromStr for PtxTarget {
    type Err = ParseTargetError;

    /// As [`PtxTarget::parse`].
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        PtxTarget::parse(spec)
    }
}

/// The target as `--target ptx:` spells it: `sm_90@8.0`, then its knobs (`+serial-fold`).
impl Spell for PtxTarget {
    fn spell(&self, out: &mut String) {
        spell!(out, self.sm.name(), '@', self.isa);
        let knobs = [
            (self.packed_half_add, PtxKnob::PackedHalfAdd),
            (self.reassociate_float_add, PtxKnob::ReassociateFloatAdd),
            (self.plain_loops, PtxKnob::PlainLoops),
            (self.serial_fold, PtxKnob::SerialFold),
        ];
        for (_, knob) in knobs.iter().filter(|(on, _)| *on) {
            spell!(out, '+', knob.name());
        }
    }
}

impl fmt::Display for PtxTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Displayed(self), f)
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
    /// The `.b128` register type and `mov.b128`.
    B128Register,
    /// `ld`/`st` of `.b128` (ordered or not).
    LdStB128,
    /// `ld`/`st` of `.b128` with `.sys` scope.
    LdStB128System,
    /// `cvt.rn.bf16.f32`.
    CvtBf16,
    /// `atom`/`red` `.add.noftz.f32`: the f32 add that keeps subnormals (plain `.add.f32`
    /// flushes them on global memory). Scalar in every space, `.v2/.v4` on global and generic.
    NoftzF32,
    /// `activemask`, `match.any.sync`, `shfl.sync`, `bfind` and `bar.warp.sync`: lanes of a warp
    /// that combine their atomics ([`atomir_ir::WarpCombine::WordFold`],
    /// [`atomir_ir::WarpCombine::Fold`]).
    WarpCombine,
    /// `redux.sync`: a warp's reduction in one instruction.
    WarpRedux,
    /// `min`/`max` on `.f16` and `.bf16` as exact float min/max but for the NaN of two NaNs
    /// (`atomir_ir::expand::SoftFloatNeeds::exact_min_max`). The instructions exist from sm_80
    /// (PTX ISA 7.0); they are used from sm_90, where they were measured: on an H100 (driver 580.159.04,
    /// 2026-11-24), `tests/gpu/half_min_max.py` compared each of the four with the reference on
    /// all 2^32 operand pairs: every pair but two NaNs gave the reference's bits (-0 < +0, a
    /// NaN beside a number gives the number, subnormals kept), two NaNs gave a NaN.
    HalfMinMax,
    /// `fence.acquire` and `fence.release`: a fence of one direction, for the acquire part after
    /// an access and the release part before it (LLVM's NVPTX backend spells C++ acquire and
    /// release fences so from sm_90 and PTX ISA 8.6). On sm_90 `fence.acquire` is one `CCTL.IVALL`
    /// where `fence.acq_rel` adds a `MEMBAR` and its error barriers.
    SplitFences,
}

impl Feature {
    /// Every feature.
    pub const ALL: [Feature; 19] = [
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
        Feature::B128Register,
        Feature::LdStB128,
        Feature::LdStB128System,
        Feature::CvtBf16,
        Feature::NoftzF32,
        Feature::WarpCombine,
        Feature::WarpRedux,
        Feature::HalfMinMax,
        Feature::SplitFences,
    ];

    /// How the target help names the feature.
    pub const fn label(self) -> &'static str {
        match self {
            Feature::Sem => ".sem",
            Feature::Cluster => ".cluster",
            Feature::CacheHint => "cache hints",
            Feature::F16Add => "f16 add",
            Feature::F16x2Add => "f16x2 add",
            Feature::Bf16Add => "bf16 add",
            Feature::CasB16 => "cas.b16",
            Feature::Vector => "vector atomics",
            Feature::B128 => ".b128",
            Feature::B128System => ".b128 .sys",
            Feature::B128Register => ".b128 registers",
            Feature::LdStB128 => "ld/st .b128",
            Feature::LdStB128System => "ld/st .b128 .sys",
            Feature::CvtBf16 => "cvt bf16",
            Feature::NoftzF32 => "exact f32 add (.noftz)",
            Feature::WarpCombine => "warp-combined atomics",
            Feature::WarpRedux => "redux.sync",
            Feature::HalfMinMax => "exact min/max .f16/.bf16",
            Feature::SplitFences => "fence.acquire/.release",
        }
    }

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
            Feature::B128Register => (70, PtxIsa::new(8, 3)),
            Feature::LdStB128 => (70, PtxIsa::new(8, 3)),
            Feature::LdStB128System => (70, PtxIsa::new(8, 4)),
            Feature::CvtBf16 => (80, PtxIsa::new(7, 0)),
            // ptxas 13.5 at 9.3: "Feature 'atom with .noftz and .f32' requires PTX ISA .version
            // 9.4 or later"; on sm_89: "... requires .target sm_90 or higher".
            Feature::NoftzF32 => (90, PtxIsa::new(9, 4)),
            // `match.any.sync` needs sm_70 (PTX ISA 6.0), `activemask` PTX ISA 6.2.
            Feature::WarpCombine => (70, PtxIsa::new(6, 2)),
            Feature::WarpRedux => (80, PtxIsa::new(7, 0)),
            Feature::HalfMinMax => (90, PtxIsa::new(7, 8)),
            Feature::SplitFences => (90, PtxIsa::new(8, 6)),
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
            .message()
            .contains("needs PTX ISA 8.6"));
        assert!(PtxTarget::parse("sm_91").is_err());
        assert!(PtxTarget::parse("sm_90@8.9").is_err());
        assert_eq!(
            PtxTarget::parse("sm_90@9.5").unwrap().to_string(),
            "sm_90@9.5"
        );
        assert!(PtxTarget::parse("sm_90@9.6").is_err());
        // Architectures only ptxas 13.5 knows default to its newest ISA, not below their floor.
        assert_eq!(
            PtxTarget::parse("sm_107").unwrap().to_string(),
            "sm_107@9.5"
        );
        assert_eq!(
            PtxTarget::parse("sm_110f").unwrap().to_string(),
            "sm_110f@9.5"
        );
        assert_eq!(
            PtxTarget::parse("sm_121a").unwrap().to_string(),
            "sm_121a@8.8"
        );
        assert!(PtxTarget::parse("sm_107@9.3")
            .unwrap_err()
            .message()
            .contains("needs PTX ISA 9.4"));
        // No ptxas assembles sm_60/sm_70 above 8.8.
        assert!(PtxTarget::parse("sm_70@9.0")
            .unwrap_err()
            .message()
            .contains("ptxas 12.9"));
        assert!(PtxTarget::parse("sm_90@x").is_err());
    }

    #[test]
    fn knobs_parse_and_print_back() {
        let target = PtxTarget::parse("sm_90+packed-half-add").unwrap();
        assert!(target.packed_half_add);
        assert_eq!(target.to_string(), "sm_90@8.8+packed-half-add");
        assert_eq!(PtxTarget::parse(&target.to_string()), Ok(target));
        assert!(!PtxTarget::parse("sm_90").unwrap().packed_half_add);
        let old = PtxTarget::parse("sm_60@6.2+packed-half-add").unwrap();
        assert_eq!(old.to_string(), "sm_60@6.2+packed-half-add");
        // No `atom.add.noftz.f16x2` before PTX ISA 6.2: the knob would promise nothing.
        assert!(PtxTarget::parse("sm_60@6.1+packed-half-add")
            .unwrap_err()
            .message()
            .contains("PTX ISA 6.2"));
        assert!(PtxTarget::parse("sm_90+packed")
            .unwrap_err()
            .message()
            .contains("unknown PTX target option `+packed`"));
        assert!(PtxTarget::parse("sm_90+").is_err());
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
        assert!(PtxTarget::parse("sm_90@9.4")
            .unwrap()
            .has(Feature::NoftzF32));
        assert!(!PtxTarget::parse("sm_90@9.3")
            .unwrap()
            .has(Feature::NoftzF32));
        assert!(!PtxTarget::parse("sm_88").unwrap().has(Feature::NoftzF32));
    }
}
