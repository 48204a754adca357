//! A kernel's parameters: the registers its inputs are bound to, and the refusal when they do
//! not fit.

use std::fmt::Write;

use atomir_ir::{AddressSpace, Param, Refusal, ValueType};

use super::VisaRule;
use crate::target::VisaTarget;

/// The registers GenX_IR binds inputs to: the kernel's initial register file (128 registers;
/// it asserts `INPUT payload execeeds the register number` past it).
const INPUT_REGISTERS: u32 = 128;

/// Where the inputs begin: the first 64 bytes are the thread payload.
const FIRST_INPUT: u32 = 64;

/// The bytes of a parameter's input: one lane of every SIMD channel per element, each lane of a
/// vector starting on a register (see [`VisaTarget::lane_bytes`]); a predicate arrives as a dword
/// per channel, a shared pointer as a 32-bit offset.
pub(crate) fn input_bytes(target: VisaTarget, ty: ValueType) -> u32 {
    let (per_channel, lanes) = match ty {
        ValueType::Pred | ValueType::Ptr(AddressSpace::Shared) => (4, 1),
        ValueType::Ptr(_) => (8, 1),
        ValueType::Data(elem, shape) => (if elem.bits() == 64 { 8 } else { 4 }, shape.len() as u32),
    };
    if lanes > 1 {
        lanes * target.lane_bytes(per_channel)
    } else {
        target.simd() * per_channel
    }
}

/// The offset and size of each parameter's input, in order (each on a 64-byte boundary).
pub(crate) fn input_layout(
    target: VisaTarget,
    params: &[Param],
) -> impl Iterator<Item = (u32, u32)> + '_ {
    params.iter().scan(FIRST_INPUT, move |offset, param| {
        let size = input_bytes(target, param.ty);
        let at = *offset;
        *offset += size.div_ceil(64) * 64;
        Some((at, size))
    })
}

/// The table's answer for a kernel's parameters: every type is carried, as long as the inputs
/// fit the registers they are bound to, short of the registers a message on the last input may
/// reach past it ([`VisaTarget::message_overhang`]: an input is the message's operand itself,
/// and cannot be declared wider than the payload it arrives in).
pub(crate) fn signature(target: VisaTarget, params: &[Param]) -> Result<(), (usize, Refusal)> {
    let grf = target.platform.grf_bytes();
    let bytes = INPUT_REGISTERS * grf - target.message_overhang();
    match input_layout(target, params).position(|(offset, size)| offset + size > bytes) {
        None => Ok(()),
        Some(index) => {
            let mut reason = format!(
                "the kernel's inputs need more than the {} registers of {grf} bytes they can be \
                 bound to ({} bytes at SIMD{})",
                bytes / grf,
                input_layout(target, params)
                    .last()
                    .map_or(0, |(offset, size)| offset + size),
                target.simd()
            );
            if target.message_overhang() > 0 {
                let _ = write!(
                    reason,
                    "; the last {} stay free because GenX_IR gives a message here the \
                     registers of SIMD{}",
                    target.message_overhang() / grf,
                    target.message_channels()
                );
            }
            Err((index, Refusal::new(VisaRule::InputsBeyondRegisters, reason)))
        }
    }
}
