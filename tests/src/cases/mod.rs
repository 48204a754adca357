//! Runnable kernels: a random kernel with inputs for every parameter and two memory regions,
//! its expected outcome under the reference semantics, and the wrappers that run it as one
//! thread (LLVM IR for x86-64 and NVPTX, PTX for our PTX output).
//!
//! Memory: a **global** region and a **shared** region of [`REGION_BYTES`] each, 128-byte
//! aligned. Every pointer parameter points at one of [`SLOTS`] slots (128 bytes apart) of the
//! region its type implies: `ptr.global` the global region, `ptr.shared` and
//! `ptr.shared_cluster` the shared one, `ptr.generic` either. Pointers may alias, also across
//! spaces (a generic and a global pointer to one slot), and accesses of different widths overlap.
//! On a GPU the shared region is a real `.shared` buffer of the wrapper: it is filled from an
//! image before the kernel runs and copied back after, and a `ptr.shared` parameter carries its
//! shared-window address (a generic pointer into it, the generic address).
//!
//! Parameters other than pointers come from an argument block (one 16-byte-aligned slot each),
//! and every used result is stored by the kernel itself (`--module`'s trailing result pointers)
//! into an output block, one [`RESULT_SLOT`] per result in program order.
//!
//! The reference runs the instructions in order with `semantics::apply` per element; the result
//! of an atomic whose predicate is false is 0, as the IR defines it. What the IR leaves undefined
//! is tracked and never compared. Float add/sub results that are NaN are compared by class
//! (their payload is not specified); everything else bit for bit.

use std::fmt::Write as _;

use atomir_ir::{AddressSpace, Backend, ElemType, Kernel, Module, Value, ValueType};

use crate::judge::accepted_kernel;
use crate::random::{self, Config, Rng};

mod reference;
mod wrap;
pub use reference::{
    check, compare, ftz_on_global_f32, ieee, reference, ByteState, Expected, Lane, ModeFn,
    Observed, Semantics, Verdict,
};
pub use wrap::{
    llvm_plain_functions, llvm_signature, llvm_wrapper, ptx_functions, ptx_wrapper,
    LLVM_GPU_DECLARATIONS,
};

pub const REGION_BYTES: usize = 512;
pub const SLOT_BYTES: usize = 128;
pub const SLOTS: usize = REGION_BYTES / SLOT_BYTES;
/// Bytes of the output block per used result (the largest result, v8 of 128 bits).
pub const RESULT_SLOT: usize = 128;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    Global = 0,
    Shared = 1,
}

impl Region {
    pub fn name(self) -> &'static str {
        match self {
            Region::Global => "global",
            Region::Shared => "shared",
        }
    }
}

/// The input of one parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Pointer {
        region: Region,
        offset: usize,
    },
    /// One value per lane (one for a scalar).
    Data(Vec<u128>),
    Pred(bool),
}

/// A kernel with everything needed to run it once.
#[derive(Clone, Debug)]
pub struct Case {
    /// Where it came from: a seed or a file.
    pub origin: String,
    pub kernel: Kernel,
    pub args: Vec<Arg>,
    /// Initial global and shared regions.
    pub memory: [Vec<u8>; 2],
}

/// (bytes of one lane, lanes) of a data type.
fn data_layout(ty: ValueType) -> (usize, usize) {
    match ty {
        ValueType::Data(elem, shape) => (elem.bytes() as usize, shape.len()),
        ValueType::Pred => (1, 1),
        ValueType::Ptr(_) => (8, 1),
    }
}

fn round16(n: usize) -> usize {
    n.div_ceil(16) * 16
}

impl Case {
    /// The argument block offset of every non-pointer parameter (`None` for pointers).
    pub fn arg_offsets(&self) -> Vec<Option<usize>> {
        let mut offset = 0;
        self.kernel
            .params
            .iter()
            .map(|param| match param.ty {
                ValueType::Ptr(_) => None,
                ty => {
                    let (bytes, lanes) = data_layout(ty);
                    let at = offset;
                    offset += round16(bytes * lanes);
                    Some(at)
                }
            })
            .collect()
    }

    /// The argument block.
    pub fn arg_bytes(&self) -> Vec<u8> {
        let offsets = self.arg_offsets();
        let mut block = Vec::new();
        for ((param, arg), offset) in self.kernel.params.iter().zip(&self.args).zip(offsets) {
            let Some(offset) = offset else { continue };
            let (bytes, lanes) = data_layout(param.ty);
            block.resize(offset + round16(bytes * lanes), 0);
            match arg {
                Arg::Data(values) => {
                    for (lane, value) in values.iter().enumerate() {
                        let at = offset + lane * bytes;
                        block[at..at + bytes].copy_from_slice(&value.to_le_bytes()[..bytes]);
                    }
                }
                Arg::Pred(holds) => block[offset] = u8::from(*holds),
                Arg::Pointer { .. } => {}
            }
        }
        block.resize(block.len().max(16), 0);
        block
    }

    /// The used results, in program order (their output slot is their position).
    pub fn results(&self) -> Vec<Value> {
        self.kernel
            .insts
            .values()
            .filter_map(|i| i.result())
            .collect()
    }

    pub fn out_bytes(&self) -> usize {
        (self.results().len() * RESULT_SLOT).max(16)
    }
}

/// Random inputs for `kernel` (deterministic by `seed`).
pub fn bind(kernel: Kernel, seed: u64, origin: String) -> Case {
    let mut rng = Rng::new(seed ^ 0xB1ED);
    let args = kernel
        .params
        .iter()
        .map(|param| match param.ty {
            ValueType::Ptr(space) => {
                let region = match space {
                    AddressSpace::Global => Region::Global,
                    AddressSpace::Shared | AddressSpace::SharedCluster => Region::Shared,
                    AddressSpace::Generic if rng.percent(50) => Region::Global,
                    AddressSpace::Generic => Region::Shared,
                };
                Arg::Pointer {
                    region,
                    offset: rng.below(SLOTS) * SLOT_BYTES,
                }
            }
            ValueType::Pred => Arg::Pred(rng.percent(60)),
            ValueType::Data(elem, shape) => Arg::Data(
                (0..shape.len())
                    .map(|_| random::literal(&mut rng, elem).0)
                    .collect(),
            ),
        })
        .collect();
    let memory = [0, 1].map(|_| {
        let mut bytes = Vec::with_capacity(REGION_BYTES);
        while bytes.len() < REGION_BYTES {
            // Values of a random type at every 8 bytes: NaNs, infinities, subnormals, extremes
            // and small numbers, where a value of the same width would be read.
            let ty = *rng.pick(&[
                ElemType::U64,
                ElemType::F64,
                ElemType::F32,
                ElemType::F16,
                ElemType::U8,
                ElemType::Bf16,
                ElemType::S32,
            ]);
            let mut word = 0u64;
            let width = ty.bits() as usize;
            for part in 0..64 / width {
                word |= (random::literal(&mut rng, ty).0 as u64) << (part * width);
            }
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        bytes
    });
    Case {
        origin,
        kernel,
        args,
        memory,
    }
}

/// A random case for `target`: a random one-kernel module, without the instructions `target`
/// refuses, named `name`. `None` when nothing is left.
pub fn random_case(seed: u64, backend: &dyn Backend, name: &str) -> Option<Case> {
    let config = Config {
        max_kernels: 1,
        max_insts: 8,
        ..Config::default()
    };
    let mut generated = random::module(seed, &config);
    let mut kernel = accepted_kernel(backend, generated.module.kernels.remove(0))?;
    kernel.name = name.to_string();
    Some(bind(kernel, seed, format!("seed {seed:#x}")))
}

/// Lowers the kernels of `cases` as one complete module for `backend`. The wrappers call the
/// kernels as functions and may pass a `ptr.generic` parameter a shared address, so generic
/// parameters stay generic.
pub fn lower_cases(backend: &dyn Backend, cases: &[Case]) -> Result<String, String> {
    let module = Module {
        kernels: cases.iter().map(|c| c.kernel.clone()).collect(),
    };
    let mut code = String::new();
    let verified = atomir_ir::verify::verify(&module).map_err(|d| d[0].to_string())?;
    let options =
        atomir_ir::LowerOptions::module().with_generic_params(atomir_ir::GenericParams::Anywhere);
    backend
        .lower(&verified, &options, &mut code)
        .map_err(|e| e.to_string())?;
    Ok(code)
}

/// A hex string of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// The result slots of `case`, as a list of result value names (for messages).
pub fn describe(case: &Case) -> String {
    let mut text = String::new();
    atomir_ir::text::print_kernel(&mut text, &case.kernel);
    for (param, arg) in case.kernel.params.iter().zip(&case.args) {
        let _ = match arg {
            Arg::Pointer { region, offset } => {
                writeln!(
                    text,
                    "  # %{} -> {} +{offset}",
                    case.kernel.value_name(param.value),
                    region.name()
                )
            }
            Arg::Data(lanes) => writeln!(
                text,
                "  # %{} = {}",
                case.kernel.value_name(param.value),
                lanes
                    .iter()
                    .map(|l| format!("{l:#x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Arg::Pred(holds) => writeln!(
                text,
                "  # %{} = {holds}",
                case.kernel.value_name(param.value)
            ),
        };
    }
    text
}
