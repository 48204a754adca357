//! The LLVM legality table: the one place that decides, per node and target, whether it is
//! printed as one native `atomicrmw`/`cmpxchg`, through the shared expansions, or refused.
//!
//! Every refusal and every non-obvious emulation names a rule id (`llvm.*`). The printer follows
//! the [`Plan`] it is given and decides nothing itself, so `legalize` and `lower` cannot disagree.
//! How one element is carried out (natively, by a CAS loop, masked) is decided in `element`.
//!
//! Measured facts behind the rules (llc of each version, see `tests/tests/llvm_matrix.rs`):
//! - NVPTX's llc (22 and older) drops the order and scope of a plain `atomicrmw` (it always emits
//!   `atom.relaxed.gpu`), while `cmpxchg` and `fence syncscope(…)` keep theirs (22). Before 22 the
//!   NVPTX backend cannot select a fence at all and drops the order of `cmpxchg` as well.
//!   LLVM 23 keeps order and scope on `atomicrmw` (`atom.acquire.cta…`, seq_cst as
//!   `fence.sc; atom.acquire`), so from 23 the order is printed on the instruction itself.
//! - f32 `atomicrmw fadd` on NVPTX: LLVM 23 selects the native `atom.add.f32` on global and
//!   generic memory only when the function's f32 denormal mode flushes (the instruction flushes
//!   subnormals there); otherwise it expands its own CAS loop, which is exact. atomir prints a
//!   plain `atomicrmw fadd` with no denormal attribute, so at 23 the exact CAS loop is what runs
//!   on global/generic memory, and the native instruction only on shared memory (where it does
//!   not flush). Getting the native global form would need `denormal_fpenv(float: preservesign)`,
//!   a flushing float mode that is never a default.
//! - llc 14 to 22 select `atom.add.f32` for an f32 `atomicrmw fadd` on global and generic
//!   memory at every scope and on every SM, so the exact add is atomir's CAS loop there (rule
//!   `llvm.nvptx-f32-add-flushes-before-23`); on shared memory the instruction is exact and
//!   stays.
//! - NVPTX's llc (19, 22, 23; sm_60 to sm_100) selects no `atom.add.noftz.f16x2`/`.bf16x2`:
//!   `atomicrmw fadd/fsub` on `<2 x half>`/`<2 x bfloat>` becomes a CAS loop of llc's own, so
//!   packed adds are atomir's loop and vectors of f16/bf16 a split (rule
//!   `llvm.nvptx-packed-half-add-by-cas`).
//! - The SPIR-V backend has no CAS expansion of its own; only ops with a SPIR-V instruction are
//!   left to it.
//! - Vulkan (`spirv-vulkan`, llc's `spirv1.6-unknown-vulkan1.3-compute`), judged by
//!   `spirv-val --target-env vulkan1.3` (SPIRV-Tools 2025.5, which knows the 2025 atomic VUIDs):
//!   - `SequentiallyConsistent` semantics are rejected in every Vulkan environment (VUID 10866),
//!     and no weaker order may stand in for it: seq_cst is refused.
//!   - Memory scope `CrossDevice` (llc's system scope) is not a Vulkan scope (VUID 04638), and
//!     device would be narrower: system scope is refused; cluster is widened to device.
//!   - A non-relaxed order needs the storage-class bit of the memory (VUID 10870) and a relaxed
//!     one must have none (VUID 10871). llc 22 prints the order bit alone (so only relaxed is
//!     valid there); llc 23 adds the pointer's storage-class bit to every order, relaxed too (so
//!     only acquire/release/acq_rel are valid there, and a relaxed RMW is printed acquire, a
//!     recorded strengthening).
//!   - Device scope: the Vulkan rule that Device scope needs `vulkanMemoryModelDeviceScope`
//!     applies under the Vulkan memory model only. llc declares `OpMemoryModel Logical GLSL450`
//!     in every module (also with `SPV_KHR_vulkan_memory_model`), where Device scope needs no
//!     feature; `tests/tests/llvm_matrix.rs` checks that the model is GLSL450.
//!   - llc crashes on `cmpxchg` for Vulkan (StorageBuffer at 22 and 23, Workgroup at 23) and
//!     22's Workgroup `cmpxchg` is invalid, so cas and every CAS-loop emulation are refused.
//!   - Fences: both versions print `OpMemoryBarrier` with the order bit only (VUID 10870).
//!   - llc 22 turns `load atomic`/`store atomic` into a plain `OpLoad`/`OpStore` (not atomic).
//!   - A shared parameter is one Workgroup variable of one type, and llc crashes on a pointer
//!     cast under logical addressing: a kernel accesses one shared parameter as one element
//!     type, and a later access as another is refused (`beside`).
//!   - llc 22 cannot meet the Int64Atomics requirement in the Vulkan environment ("Unable to
//!     meet SPIR-V requirements"); 23 can.
//! - `atomicrmw fmin/fmax` mean `llvm.minnum/maxnum`, whose order of -0.0 and +0.0 LangRef has
//!   left unspecified; atomir's min/max order -0.0 < +0.0, so float min/max is our own CAS loop.

mod candidates;
mod checks;
mod element;
mod fence;
mod ld_st;
mod plan;
mod rmw;
mod rules;
mod vulkan;

pub(crate) use candidates::candidates;
pub(crate) use checks::param;
pub(crate) use fence::fence_plan;
pub use plan::{Form, LlvmPlan, MemSpelling};
pub(crate) use rmw::plan;
pub use rules::LlvmRule;
pub(crate) use vulkan::beside;
