//! Atomic loads and stores on vISA.
//!
//! **Single-copy atomicity.** No public source states that a plain data-port access
//! (`lsc_load`/`lsc_store`, `svm_gather`/`svm_scatter`, `svm_block_ld`/`svm_block_st`) of any
//! width is single-copy atomic, and IGC never relies on one: its OpenCL built-ins make an atomic
//! load an `or` with zero and an atomic store an exchange, because "the L3$ has 2 pipelines -
//! coherent and non-coherent" whose order is not guaranteed against each other, while atomics
//! always take the coherent one (`IGC/BiFModule/Implementation/atomics.cl`). Its vector
//! backend lowers `load atomic`/`store atomic` on LSC platforms to `lsc_atomic_load`/
//! `lsc_atomic_store` and asserts a data size of 16c32, 32 or 64 bits
//! (`GenXLoadStoreLowering.cpp`). GenX_IR is laxer than that: it assembles plain loads and
//! stores of every size and silently turns `svm_gather.2` (a block size that does not exist)
//! into a one-byte read. So every atomic load and store here is an atomic message:
//!
//! - LSC: `lsc_atomic_load` / `lsc_atomic_store` with `d16c32`, `d32` or `d64` (GenX_IR refuses
//!   `d8`, `d16`, `d8c32`: "LSC atomics only support D16U32, D32, or D64"); on SLM no `d64`
//!   ("LSC SLM D64 atomics only support icas"): a 64-bit SLM load is an `icas` of zero with
//!   zero, a 64-bit SLM store the CAS loop.
//! - SVM (TGLLP, `+svm`): `svm_atomic.or` with zero / `svm_atomic.xchg` with the result
//!   dropped, `.16`, 32-bit and `.64`.
//! - 8 bits: no atomic message exists. A load reads the containing aligned dword atomically and
//!   extracts the byte (no write, unlike a CAS loop); a store is the masked CAS loop on that
//!   dword.
//! - Vectors: split per element (an atomic message carries one element per channel:
//!   "LSC_DATA_ELEMS must be 1 for atomic operations"). Each element is single-copy atomic, as
//!   the IR's vector accesses promise, not the vector as a whole.
//! - 128 bits: no message is atomic on them; refused (`visa.no-128-bit`) on every platform.

use atomir_ir::{AtomicOp, ElementLowering};

/// The lowering of an 8-bit element of `op`, which no atomic message carries: the containing
/// aligned dword. A load is one atomic load of that dword (a masked op, whose widened message is
/// the load itself); the rest as [`ElementLowering::masked`] says.
pub(crate) const fn part_word(op: AtomicOp) -> ElementLowering {
    match op {
        AtomicOp::Load => ElementLowering::MaskedOp,
        op => ElementLowering::masked(op),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_8_bit_load_reads_its_word_without_writing() {
        assert_eq!(part_word(AtomicOp::Load), ElementLowering::MaskedOp);
        assert_eq!(part_word(AtomicOp::Store), ElementLowering::MaskedCasLoop);
        assert_eq!(part_word(AtomicOp::Or), ElementLowering::MaskedOp);
    }
}
