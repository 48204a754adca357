//! Shared by the golden and report tests: the target list, golden-file comparison with a bless
//! switch, and a small backend with known verdicts to test the reports against.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use atomir_cli::targets::{self, TargetBackend};
use atomir_ir::{
    AtomicNode, Backend, ElemType, ElementLowering, Legality, LowerError, LowerOptions,
    LowerReport, Lowering, Refusal, Rewrite, TargetId, Verdict,
};

/// The targets whose output is pinned in golden files and counted in the matrix report.
pub const TARGETS: [&str; 6] = [
    "ptx:sm_70",
    "ptx:sm_90",
    "visa:TGLLP",
    "visa:PVC",
    "llvm:nvptx64",
    "llvm:amdgcn",
];

/// Targets with an explicit lowering policy, which a client opts into and which is never a
/// default: the matrix report counts them in a table of their own, and pins their per-op × type
/// summary beside the defaults' (no golden lowering: their code is the default's but for the
/// cells the policy names).
pub const OPT_IN_TARGETS: [&str; 1] = ["ptx:sm_90+packed-half-add"];

/// The environment variable that rewrites golden files instead of comparing them.
pub const BLESS_ENV: &str = "ATOMIR_BLESS";

pub fn blessing() -> bool {
    std::env::var(BLESS_ENV).is_ok_and(|v| v == "1")
}

pub fn workspace_root() -> PathBuf {
    atomir_tests::tools::workspace_root()
}

/// The targets of [`TARGETS`] whose backend is built, each with its name. A backend that is
/// still a stub is skipped with a printed reason; any other refusal of a listed name fails.
pub fn built_targets() -> Vec<(&'static str, TargetBackend)> {
    parsed(&TARGETS)
}

/// The targets of [`OPT_IN_TARGETS`], each with its name.
pub fn opt_in_targets() -> Vec<(&'static str, TargetBackend)> {
    parsed(&OPT_IN_TARGETS)
}

fn parsed(names: &[&'static str]) -> Vec<(&'static str, TargetBackend)> {
    names
        .iter()
        .map(|&name| match targets::parse_target(name) {
            Ok(backend) => (name, backend),
            Err(message) => panic!("target {name} in the golden list is refused: {message}"),
        })
        .collect()
}

/// Compares `actual` with the golden file at `path`, or writes it when blessing. Returns a
/// failure message (naming the file and showing the diff) instead of panicking, so a test can
/// report every mismatch at once.
pub fn check_golden(path: &Path, actual: &str) -> Option<String> {
    if blessing() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create golden folder");
        }
        if std::fs::read_to_string(path).ok().as_deref() != Some(actual) {
            std::fs::write(path, actual).expect("write golden file");
            eprintln!("blessed {}", path.display());
        }
        return None;
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => None,
        Ok(expected) => Some(format!(
            "golden file {} differs (rerun with {BLESS_ENV}=1 to accept):\n{}",
            path.display(),
            pretty_assertions::StrComparison::new(&expected, actual)
        )),
        Err(_) => Some(format!(
            "golden file {} is missing (run with {BLESS_ENV}=1 to create it)",
            path.display()
        )),
    }
}

/// Files under `dir` (recursively) that no test produced: stale golden files. Removed when
/// blessing, reported otherwise.
pub fn stale_files(dir: &Path, produced: &[PathBuf]) -> Vec<String> {
    let mut stale = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if !produced.contains(&path) {
                if blessing() {
                    let _ = std::fs::remove_file(&path);
                    eprintln!("removed stale {}", path.display());
                } else {
                    stale.push(format!(
                        "stale golden file {} (run with {BLESS_ENV}=1 to remove it)",
                        path.display()
                    ));
                }
            }
        }
    }
    stale
}

atomir_ir::rules! {
    /// The one rule of the fake backend.
    pub enum FakeRule {
        NoB128 = "fake.no-b128": "the first fake generation has no 128-bit atomics",
    }
}

/// A backend with simple, known verdicts, standing in for a real one in report tests: b128 is
/// refused, 8/16-bit widened, vectors split, f64 min/max a CAS loop, sub a rewrite, everything
/// else native. Its second generation (`fake:2`) has b128 and f64 min/max natively.
pub struct FakeBackend {
    pub generation: u32,
}

pub const FAKE: FakeBackend = FakeBackend { generation: 1 };

impl FakeBackend {
    fn verdict(&self, node: &AtomicNode) -> Verdict {
        let newer = self.generation >= 2;
        if node.ty == ElemType::B128 && newer {
            return Ok(Legality::native());
        }
        if node.ty == ElemType::B128 {
            return Err(Refusal::new(FakeRule::NoB128, "b128 needs a newer fake")
                .accepted_by(TargetId::new("fake:2", "fake:2")));
        }
        if node.shape.is_vector() {
            return Ok(Legality::emulated(Lowering::per_element(
                ElementLowering::Native,
                node.shape,
            )));
        }
        if node.ty.bits() < 32 && !node.ty.is_float() {
            return Ok(Legality::emulated(Lowering::whole(
                ElementLowering::MaskedCasLoop,
            )));
        }
        if !newer
            && node.ty == ElemType::F64
            && matches!(node.op, atomir_ir::AtomicOp::Min | atomir_ir::AtomicOp::Max)
        {
            return Ok(Legality::emulated(Lowering::whole(
                ElementLowering::CasLoop,
            )));
        }
        if node.op == atomir_ir::AtomicOp::Sub {
            return Ok(Legality::native().with(Rewrite::SubAsAddOfNegation));
        }
        Ok(Legality::native())
    }
}

impl Backend for FakeBackend {
    fn target_name(&self) -> String {
        format!("fake:{}", self.generation)
    }

    fn legalize(&self, node: &AtomicNode) -> Verdict {
        self.verdict(node)
    }

    fn legalize_signature(
        &self,
        _params: &[atomir_ir::Param],
    ) -> Result<(), (usize, atomir_ir::Refusal)> {
        Ok(())
    }

    /// A fence is native on either generation.
    fn legalize_fence(&self, _fence: &atomir_ir::Fence) -> Verdict {
        Ok(Legality::native())
    }

    /// The report tests lower whole modules only.
    fn splice(
        &self,
        module: &atomir_ir::verify::Verified<'_>,
        kernel: usize,
        inst: atomir_ir::Inst,
        _names: &atomir_ir::lower::SpliceNames,
        _fragment: &mut atomir_ir::lower::Fragment,
    ) -> Result<Legality, LowerError> {
        let kernel = &module.kernels[kernel];
        let refusal = atomir_ir::Refusal::new(
            atomir_ir::rule::KitRule::Unprintable,
            "the fake backend prints no fragments",
        );
        Err(atomir_ir::lower::error(kernel, inst, refusal))
    }

    /// The fake backend binds nothing: its instructions have no values of the client's.
    fn binding_types(
        &self,
        _module: &atomir_ir::verify::Verified<'_>,
        _kernel: usize,
        _inst: atomir_ir::Inst,
    ) -> Result<atomir_ir::lower::BindingTypes, LowerError> {
        Ok(atomir_ir::lower::BindingTypes::default())
    }

    fn lower(
        &self,
        module: &atomir_ir::verify::Verified<'_>,
        _options: &LowerOptions,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        let mut report = atomir_ir::lower::legalize_module(self, module)?;
        for (index, inst, legality) in report.decisions() {
            let kernel = &module.kernels[index];
            match &kernel.insts[inst] {
                atomir_ir::InstData::Atomic(node) => out.push_str(&format!(
                    "// {} <{}>\nfake.{}.{}.{}.{}\n",
                    kernel.name,
                    legality.strategy(),
                    node.op,
                    node.order,
                    node.shape,
                    node.ty
                )),
                atomir_ir::InstData::Fence(fence) => out.push_str(&format!(
                    "// {} <{}>\nfake.fence.{}.{}\n",
                    kernel.name,
                    legality.strategy(),
                    fence.order,
                    fence.scope
                )),
            }
        }
        report.shrink_to_fit();
        Ok(report)
    }
}
