//! Every shape of atomic load and store as runnable cases: for each element width, float or
//! integer, scalar and v2/v4/v8, one kernel that loads from and stores to global, shared and
//! generic addresses with every order a load or store takes. Their code moves values between
//! registers and memory in ways no read-modify-write's does (a vector carried by the widest
//! accesses the ISA has, 16-bit elements paired into the 32-bit words that hold them, a
//! parameter read both narrow and zero-extended), and random kernels hold few of them.
//!
//! The cases run on the GPU with the random kernels (`atomir_tests::gpu_kernels`), as one
//! thread, and are judged like them against `atomir_ir::semantics`: each load's result, and the
//! final memory, where the stores left their operands.

use atomir_ir::{text, Backend, ElemType};

use crate::cases::{bind, Case};
use crate::judge::accepted_kernel;

/// The element types: every width, and the 16-bit floats beside the 16-bit integers.
pub const TYPES: [ElemType; 9] = [
    ElemType::U8,
    ElemType::S16,
    ElemType::F16,
    ElemType::Bf16,
    ElemType::U32,
    ElemType::F32,
    ElemType::U64,
    ElemType::F64,
    ElemType::F16x2,
];

/// The shapes, as spelled in an instruction (the scalar one empty).
pub const SHAPES: [&str; 4] = ["", "v2.", "v4.", "v8."];

/// The access cases `backend` accepts whole, named `case<first>`, `case<first + 1>`, ….
pub fn cases(backend: &dyn Backend, first: usize) -> Vec<Case> {
    let mut cases = Vec::new();
    for ty in TYPES {
        for shape in SHAPES {
            let index = first + cases.len();
            if let Some(case) = case(backend, ty, shape, index) {
                cases.push(case);
            }
        }
    }
    cases
}

/// Loads before the stores, which then write other values, and loads after them, which read
/// what they wrote where no other store wrote since: every order, and both directions of the
/// data, at addresses the binding spreads over the regions' slots. The last store writes what
/// the first load read, so that its lanes are read where they are, not only the words a test
/// entry stores a result by.
const BODY: [&str; 9] = [
    "%r0 = atomic.load.relaxed.device.global.T [%g]",
    "%r1 = atomic.load.acquire.block.shared.T [%s]",
    "%r2 = atomic.load.seq_cst.system.generic.T [%p]",
    "atomic.store.release.device.global.T [%g], %x",
    "atomic.store.relaxed.block.shared.T [%s], %y",
    "atomic.store.seq_cst.device.generic.T [%p], %y",
    "%r3 = atomic.load.acquire.device.global.T [%g]",
    "%r4 = atomic.load.relaxed.block.shared.T [%s]",
    "atomic.store.relaxed.system.global.T [%h], %r0",
];

fn case(backend: &dyn Backend, ty: ElemType, shape: &str, index: usize) -> Option<Case> {
    let name = format!("case{index}");
    let typed = format!("{shape}{ty}");
    let mut source = format!(
        "kernel {name}(%g: ptr.global, %s: ptr.shared, %p: ptr.generic, %h: ptr.global, \
         %x: {typed}, %y: {typed}) {{\n"
    );
    for line in BODY {
        source.push_str("  ");
        source.push_str(&line.replace(".T ", &format!(".{typed} ")));
        source.push('\n');
    }
    source.push_str("}\n");
    let mut module = text::parse(&source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    let kernel = accepted_kernel(backend, module.kernels.remove(0))?;
    // A refused access would leave its form untested: the shape is tested where all are taken.
    if kernel.insts.len() != BODY.len() {
        return None;
    }
    Some(bind(
        kernel,
        0xACCE_5500 + index as u64,
        format!("accesses: {typed}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_of_every_type_is_a_case_on_the_oldest_target() {
        let sm_60 = atomir_ptx::PtxTarget::parse("sm_60").unwrap();
        let cases = cases(&sm_60, 7);
        assert_eq!(cases.len(), TYPES.len() * SHAPES.len());
        assert_eq!(cases[0].kernel.name, "case7");
        assert!(cases
            .iter()
            .all(|case| case.kernel.insts.len() == BODY.len()));
    }
}
