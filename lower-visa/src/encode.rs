//! The binary form of `SVM_ATOMIC` (opcode 0x4E, sub-opcode 0x05), as the vISA spec lays it
//! out: `0x4E 0x05 ExecSize:u8 Pred:u16 Op:u8 addresses src0 src1 dst`, each operand a raw
//! operand (u32 variable index, u16 byte offset). Note the binary order (addr, src0, src1,
//! dst) differs from the text order (addr, dst, src0, src1).

/// The SVM opcode.
pub const OPCODE_SVM: u8 = 0x4E;
/// The SVM sub-opcode of `SVM_ATOMIC`.
pub const SVM_ATOMIC: u8 = 0x05;
/// The first variable index of declared variables in vISA 4.x (indices below are predefined).
pub const FIRST_DECLARED_VAR: u32 = 32;

/// Why an `SVM_ATOMIC` (or one of its fields) has no binary form: which field breaks which rule
/// of the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EncodeError {
    /// An exec size other than 1, 2, 4 or 8.
    ExecSize(u8),
    /// A channel mask outside `M1..M8`.
    ChannelMask(u8),
    /// A predicate id that does not fit its 12 bits.
    PredicateId(u16),
    /// `%null` addresses.
    NullAddresses,
    /// `src0` is `%null` where the op reads it, or not `%null` where the op does not.
    Src0 {
        /// The op.
        op: SvmOp,
        /// Whether the op needs `%null` there.
        must_be_null: bool,
    },
    /// `src1` is `%null` where the op reads it, or not `%null` where the op does not.
    Src1 {
        /// The op.
        op: SvmOp,
        /// Whether the op needs `%null` there.
        must_be_null: bool,
    },
    /// `predec`, which has no text form.
    Predec,
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let not = |must_be_null: bool| if must_be_null { "" } else { "not " };
        match *self {
            EncodeError::ExecSize(size) => {
                write!(f, "SVM_ATOMIC exec size must be 1, 2, 4 or 8, not {size}")
            }
            EncodeError::ChannelMask(mask) => {
                write!(f, "channel mask must be M1..M8, not M{mask}")
            }
            EncodeError::PredicateId(id) => write!(f, "predicate id {id} does not fit 12 bits"),
            EncodeError::NullAddresses => f.write_str("SVM_ATOMIC addresses cannot be %null"),
            EncodeError::Src0 { op, must_be_null } => {
                write!(f, "{op:?}: src0 must {}be %null", not(must_be_null))
            }
            EncodeError::Src1 { op, must_be_null } => {
                write!(f, "{op:?}: src1 must {}be %null", not(must_be_null))
            }
            EncodeError::Predec => f.write_str("predec has no text form and is not emitted"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Which channels execute: `M1`..`M8` is the group of 8 (or fewer) channels of the thread's
/// dispatch mask; `_NM` ignores the mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExecSize {
    /// 1, 2, 4 or 8.
    pub size: u8,
    /// 1..=8 (`M1`..`M8`).
    pub mask: u8,
    /// `_NM`: run the channels whatever the dispatch mask says.
    pub no_mask: bool,
}

impl ExecSize {
    /// `(M<mask>[_NM], <size>)`; an error names a size other than 1, 2, 4, 8 or a mask outside
    /// `M1..M8`.
    pub fn new(size: u8, mask: u8, no_mask: bool) -> Result<Self, EncodeError> {
        if !matches!(size, 1 | 2 | 4 | 8) {
            return Err(EncodeError::ExecSize(size));
        }
        if !(1..=8).contains(&mask) {
            return Err(EncodeError::ChannelMask(mask));
        }
        Ok(ExecSize {
            size,
            mask,
            no_mask,
        })
    }

    /// Bits 2:0 log2(size); bits 7:4 the mask (M1 = 0), plus 8 for `_NM`.
    pub const fn byte(self) -> u8 {
        let log2 = self.size.trailing_zeros() as u8;
        let mask = (self.mask - 1) | if self.no_mask { 8 } else { 0 };
        (mask << 4) | log2
    }

    /// The text form, e.g. `(M5_NM, 8)`.
    pub fn write_text(self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(
            out,
            "(M{}{}, {})",
            self.mask,
            if self.no_mask { "_NM" } else { "" },
            self.size
        );
    }
}

/// How a predicate combines channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PredControl {
    /// Per channel.
    Normal,
    /// `.any`: every channel runs if the predicate holds in any channel of the group.
    Any,
    /// `.all`: every channel runs only if the predicate holds in all channels of the group.
    All,
}

/// `(P<id>)`, `(!P<id>)`, or none (id 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pred {
    /// Predicate variable id (12 bits); 0 = not predicated.
    pub id: u16,
    /// How the predicate's channels combine.
    pub control: PredControl,
    /// `!P<id>`: the channels where the predicate is false run.
    pub inverse: bool,
}

impl Pred {
    /// Not predicated (variable id 0): every enabled channel runs.
    pub const NONE: Pred = Pred {
        id: 0,
        control: PredControl::Normal,
        inverse: false,
    };

    /// Id in bits 11:0, control in 14:13 (any = 1, all = 2), inverse in bit 15.
    pub fn encode(self) -> Result<u16, EncodeError> {
        if self.id >= 1 << 12 {
            return Err(EncodeError::PredicateId(self.id));
        }
        let control = match self.control {
            PredControl::Normal => 0,
            PredControl::Any => 1,
            PredControl::All => 2,
        };
        Ok(self.id | (control << 13) | (u16::from(self.inverse) << 15))
    }
}

/// The data width of an SVM atomic (`.16`, none, `.64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// `.16`: each operand is the low 16 bits of a dword (unpacked), word-aligned accesses.
    W16,
    /// No suffix: 32-bit data, dword-aligned.
    W32,
    /// `.64`: 64-bit data and operand types, qword-aligned.
    W64,
}

/// The op codes of the seed's table (bits 4:0 of the op byte). Operand types follow the
/// spec: `imin`/`imax` on signed D/Q, `fmin`/`fmax`/`fcmpwr` on F, the others on UD/UQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SvmOp {
    /// `add`: wrapping integer add.
    Add = 0x00,
    /// `sub`: wrapping integer subtract.
    Sub = 0x01,
    /// `inc`: add one, no operand (src0 is `%null`).
    Inc = 0x02,
    /// `dec`: subtract one, no operand (src0 is `%null`).
    Dec = 0x03,
    /// `min`: unsigned minimum.
    Min = 0x04,
    /// `max`: unsigned maximum.
    Max = 0x05,
    /// `xchg`: exchange.
    Xchg = 0x06,
    /// `cmpxchg`: compare (src0) and exchange (src1).
    Cmpxchg = 0x07,
    /// `and`.
    And = 0x08,
    /// `or`.
    Or = 0x09,
    /// `xor`.
    Xor = 0x0A,
    /// `imin`: signed minimum.
    Imin = 0x0B,
    /// `imax`: signed maximum.
    Imax = 0x0C,
    /// `predec`: the table's pre-decrement (src0 is `%null`); no lowering emits it.
    Predec = 0x0D,
    /// `fmax`: f32 maximum.
    Fmax = 0x10,
    /// `fmin`: f32 minimum.
    Fmin = 0x11,
    /// `fcmpwr`: f32 compare (src0) and write (src1); no lowering emits it.
    Fcmpwr = 0x12,
}

impl SvmOp {
    /// Whether src0 must be `%null` (inc, dec, predec).
    pub const fn src0_is_null(self) -> bool {
        matches!(self, SvmOp::Inc | SvmOp::Dec | SvmOp::Predec)
    }

    /// Whether src1 is used (cmpxchg, fcmpwr); otherwise it must be `%null`.
    pub const fn uses_src1(self) -> bool {
        matches!(self, SvmOp::Cmpxchg | SvmOp::Fcmpwr)
    }
}

/// The op byte: op code in bits 4:0, data width in bits 6:5 (16-bit = 1, 64-bit = 2).
pub const fn op_byte(op: SvmOp, width: Width) -> u8 {
    let width_bits = match width {
        Width::W32 => 0,
        Width::W16 => 1,
        Width::W64 => 2,
    };
    (op as u8) | (width_bits << 5)
}

/// A raw operand: a variable index (0 = `%null`) and a byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawOperand {
    /// The variable index; below [`FIRST_DECLARED_VAR`] a predefined variable, 0 `%null`.
    pub var: u32,
    /// Byte offset into the variable.
    pub offset: u16,
}

impl RawOperand {
    /// `%null` (V0): an operand the op does not read, or a result nobody reads.
    pub const NULL: RawOperand = RawOperand { var: 0, offset: 0 };

    /// The `n`-th declared variable (0-based) at `offset` bytes.
    pub const fn declared(n: u32, offset: u16) -> Self {
        RawOperand {
            var: FIRST_DECLARED_VAR + n,
            offset,
        }
    }

    /// Whether this is `%null`.
    pub const fn is_null(self) -> bool {
        self.var == 0
    }

    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.var.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
    }
}

/// One `SVM_ATOMIC` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SvmAtomic {
    /// How many channels, under which part of the mask.
    pub exec: ExecSize,
    /// The predicate, or [`Pred::NONE`].
    pub pred: Pred,
    /// The operation.
    pub op: SvmOp,
    /// The data width (bits 6:5 of the op byte).
    pub width: Width,
    /// A UQ variable of byte addresses, one per channel; never `%null`.
    pub addresses: RawOperand,
    /// The old values, one per channel; `%null` when the result is unused.
    pub dst: RawOperand,
    /// The operand (the compare value of `cmpxchg`/`fcmpwr`); `%null` for inc, dec, predec.
    pub src0: RawOperand,
    /// The new value of `cmpxchg`/`fcmpwr`; `%null` for every other op.
    pub src1: RawOperand,
}

impl SvmAtomic {
    /// Appends the instruction's bytes to `out`, after checking the operand rules of the spec.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.addresses.is_null() {
            return Err(EncodeError::NullAddresses);
        }
        if self.op.src0_is_null() != self.src0.is_null() {
            return Err(EncodeError::Src0 {
                op: self.op,
                must_be_null: self.op.src0_is_null(),
            });
        }
        if self.op.uses_src1() == self.src1.is_null() {
            return Err(EncodeError::Src1 {
                op: self.op,
                must_be_null: !self.op.uses_src1(),
            });
        }
        if self.op == SvmOp::Predec {
            return Err(EncodeError::Predec);
        }
        let pred = self.pred.encode()?;
        out.extend_from_slice(&[OPCODE_SVM, SVM_ATOMIC, self.exec.byte()]);
        out.extend_from_slice(&pred.to_le_bytes());
        out.push(op_byte(self.op, self.width));
        self.addresses.write(out);
        self.src0.write(out);
        self.src1.write(out);
        self.dst.write(out);
        Ok(())
    }
}
