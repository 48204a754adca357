//! Target names: `visa:<PLATFORM>[+svm]`.

use std::fmt;
use std::str::FromStr;

use atomir_ir::ParseTargetError;

/// An Intel GPU generation GenX_IR knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Platform {
    /// Xe-LP (Tiger Lake): SVM (HDC) messages only; no 64-bit integer or f64 ALU.
    Tgllp,
    /// Xe-HPG (Arc): LSC messages; no 64-bit integer or f64 ALU.
    Dg2,
    /// Xe-LPG (Meteor Lake): LSC messages; no 64-bit integer or f64 ALU.
    Mtl,
    /// Xe-HPC (Ponte Vecchio): LSC messages, 64-bit integer and f64 ALU, f64 atomic add.
    Pvc,
}

impl Platform {
    /// Every platform, oldest first.
    pub const ALL: [Platform; 4] = [Platform::Tgllp, Platform::Dg2, Platform::Mtl, Platform::Pvc];

    /// The name GenX_IR's `-platform` takes.
    pub const fn as_str(self) -> &'static str {
        match self {
            Platform::Tgllp => "TGLLP",
            Platform::Dg2 => "DG2",
            Platform::Mtl => "MTL",
            Platform::Pvc => "PVC",
        }
    }

    /// The platform of a GenX_IR `-platform` name, in any case (`pvc`, `PVC`).
    pub fn from_name(name: &str) -> Option<Self> {
        Platform::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(name))
    }

    /// Whether the platform has LSC (load/store cache) messages, `lsc_atomic_*` and
    /// `lsc_fence`; every platform after TGLLP does.
    pub const fn has_lsc(self) -> bool {
        !matches!(self, Platform::Tgllp)
    }

    /// The size of one general register.
    pub const fn grf_bytes(self) -> u32 {
        match self {
            Platform::Pvc => 64,
            _ => 32,
        }
    }

    /// Native 64-bit integer add/sub/min/max/shift/compare and f64 arithmetic.
    pub const fn has_64bit_alu(self) -> bool {
        matches!(self, Platform::Pvc)
    }
}

/// Which data-port messages carry the atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Messages {
    /// `svm_atomic` (A64 stateless HDC messages): global memory only.
    Svm,
    /// `lsc_atomic_*` on `ugm` (global) and `slm` (shared).
    Lsc,
}

/// A vISA target: a platform and the messages it is lowered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VisaTarget {
    /// The GPU generation, which decides the messages and ALU widths available.
    pub platform: Platform,
    /// The messages atomics are lowered to: the platform's default, or SVM by `+svm`.
    pub messages: Messages,
}

impl VisaTarget {
    /// The platform's default messages: SVM on TGLLP, LSC elsewhere (as IGC does).
    pub const fn new(platform: Platform) -> Self {
        let messages = if platform.has_lsc() {
            Messages::Lsc
        } else {
            Messages::Svm
        };
        VisaTarget { platform, messages }
    }

    /// Parses `TGLLP`, `DG2`, `MTL`, `PVC`, optionally followed by `+svm` (the part of a target
    /// name after `visa:`); the error says what was expected.
    pub fn parse(spec: &str) -> Result<VisaTarget, ParseTargetError> {
        VisaTarget::parse_spec(spec).map_err(ParseTargetError::new)
    }

    fn parse_spec(spec: &str) -> Result<Self, String> {
        let (name, flags) = match spec.split_once('+') {
            Some((name, flags)) => (name, Some(flags)),
            None => (spec, None),
        };
        let platform = Platform::from_name(name).ok_or_else(|| {
            format!("unknown vISA platform `{name}`; expected TGLLP, DG2, MTL or PVC")
        })?;
        let mut target = VisaTarget::new(platform);
        if let Some(flags) = flags {
            for flag in flags.split('+') {
                match flag {
                    "svm" => target.messages = Messages::Svm,
                    other => {
                        return Err(format!(
                            "unknown vISA target flag `+{other}`; expected `+svm`"
                        ))
                    }
                }
            }
        }
        Ok(target)
    }

    /// Every target this backend accepts: every platform with its own messages and, where those
    /// are LSC, with `+svm` too.
    pub fn all() -> Vec<VisaTarget> {
        let mut targets = Vec::new();
        for platform in Platform::ALL {
            let native = VisaTarget::new(platform);
            targets.push(native);
            if native.messages != Messages::Svm {
                targets.push(VisaTarget {
                    messages: Messages::Svm,
                    ..native
                });
            }
        }
        targets
    }

    /// The bytes between two lanes of a vector value whose channels take `per_channel` bytes:
    /// one lane's channels, rounded up to whole registers, because a message's operands and
    /// results must start on a register (SIMD8 dwords fill half of PVC's 64-byte register).
    pub const fn lane_bytes(self, per_channel: u32) -> u32 {
        (self.simd() * per_channel).next_multiple_of(self.platform.grf_bytes())
    }

    /// Channels per instruction: each channel is one thread of the IR.
    pub const fn simd(self) -> u32 {
        match self.messages {
            Messages::Svm => 8,
            Messages::Lsc => 16,
        }
    }

    /// The channels whose registers GenX_IR gives a message's operands. Its PVC has no
    /// half-width LSC messages (SIMD32 at least), so a SIMD16 `lsc_*` reads and writes twice
    /// the registers of its operands (`dstLen=4` for a `d64` result of two registers), while
    /// its register allocator reserves only what a variable declares: an operand allocated
    /// in the last registers makes the message reach past r127, and GenX_IR's software
    /// scoreboarding then dereferences a null register entry (SIGSEGV).
    pub const fn message_channels(self) -> u32 {
        match (self.messages, self.platform) {
            (Messages::Lsc, Platform::Pvc) => 32,
            _ => self.simd(),
        }
    }

    /// The bytes past an operand that a message may touch: the extra channels of
    /// [`VisaTarget::message_channels`] at the widest lane a message takes (8 bytes: an `a64`
    /// address, `d64` data).
    pub const fn message_overhang(self) -> u32 {
        (self.message_channels() - self.simd()) * 8
    }
}

impl FromStr for VisaTarget {
    type Err = ParseTargetError;

    /// As [`VisaTarget::parse`].
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        VisaTarget::parse(spec)
    }
}

impl fmt::Display for VisaTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "visa:{}", self.platform.as_str())?;
        if self.messages == Messages::Svm && self.platform.has_lsc() {
            f.write_str("+svm")?;
        }
        Ok(())
    }
}
