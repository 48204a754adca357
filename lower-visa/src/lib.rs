//! The Intel vISA backend of atomir: `svm_atomic` (TGLLP, and `+svm`) and LSC `lsc_atomic_*`
//! (DG2, MTL, PVC) messages, with fences for memory orders and the shared expansions where a
//! platform lacks an operation.
//!
//! - [`target`]: target names and platforms.
//! - `legal`: the one legality table (rule ids `visa.*`), split by concern: read-modify-writes,
//!   atomic loads and stores (single-copy atomicity), fences (order), kernel inputs, candidates.
//! - `emit`: the printer (execution model, data layout, native messages, primitives), private:
//!   it is reached through [`Backend`](atomir_ir::Backend).
//! - [`encode`]: the binary form of `SVM_ATOMIC`.
//!
//! # Example
//!
//! No vISA message is atomic on 8 bits, so a u8 add becomes a masked CAS loop on its dword; a
//! u32 add on shared memory needs LSC `slm` messages, which TGLLP's SVM messages do not reach.
//!
//! ```
//! use atomir_ir::{
//!     AddressSpace, AtomicNode, AtomicOp, Backend, ElemType, ElementLowering, Lowering,
//! };
//! use atomir_visa::VisaTarget;
//!
//! let pvc = VisaTarget::parse("PVC")?;
//! let mut add = AtomicNode::new(AtomicOp::Add, ElemType::U8);
//! add.space = AddressSpace::Global;
//! let legality = pvc.legalize(&add).expect("a u8 add is emulated");
//! assert_eq!(legality.lowering, Lowering::whole(ElementLowering::MaskedCasLoop));
//!
//! let tgllp = VisaTarget::parse("TGLLP")?;
//! let mut shared = AtomicNode::new(AtomicOp::Add, ElemType::U32);
//! shared.space = AddressSpace::Shared;
//! let refusal = tgllp.legalize(&shared).unwrap_err();
//! assert_eq!(refusal.rule.id(), "visa.svm-no-slm");
//! # Ok::<(), atomir_ir::ParseTargetError>(())
//! ```

#![warn(missing_docs)]

mod emit;
pub mod encode;
mod legal;
pub mod target;

use atomir_ir::expand::SoftFloatNeeds;
use atomir_ir::lower::{Passes, Table, Target};
use atomir_ir::{AtomicNode, Fence, LowerOptions, Param, Refusal};

use emit::VisaPrinter;
pub use legal::{MsgOp, VisaPlan, VisaRule};
pub use target::{Messages, Platform, VisaTarget};

/// Help text for this backend's target names, shown by `atomir lower --help`.
pub const TARGETS_HELP: &str = "visa:<PLATFORM>[+svm]  Intel vISA assembly for GenX_IR. PLATFORM: \
TGLLP (SVM messages), DG2, MTL, PVC (LSC messages; `+svm` forces SVM messages, global memory only)";

impl Table for VisaTarget {
    type Plan = VisaPlan;

    fn name(&self) -> String {
        self.to_string()
    }

    fn plan(&self, node: &AtomicNode) -> Result<VisaPlan, Refusal> {
        legal::plan(*self, node)
    }

    fn signature(&self, params: &[Param]) -> Result<(), (usize, Refusal)> {
        legal::signature(*self, params)
    }

    fn plan_fence(&self, fence: &Fence) -> Result<VisaPlan, Refusal> {
        legal::fence_plan(*self, fence)
    }

    fn candidates(&self) -> Vec<VisaTarget> {
        legal::candidates()
    }

    fn passes(&self) -> Passes {
        Passes {
            soft_float: SoftFloatNeeds {
                min_max: true,
                bf16_narrowing: true,
                ..SoftFloatNeeds::default()
            },
            ..Passes::default()
        }
    }
}

impl Target for VisaTarget {
    type Printer<'m> = VisaPrinter<'m>;

    fn printer<'m>(&self, options: &LowerOptions) -> VisaPrinter<'m> {
        VisaPrinter::new(*self, options.complete_module)
    }

    fn splice_type(&self, ty: atomir_ir::ValueType) -> atomir_ir::lower::SpliceType {
        emit::splice_type(*self, ty)
    }
}
