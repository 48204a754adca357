//! Where the external tools live. `scripts/install-oracles` puts the pip-installed ones under
//! `target/oracles/`; Debian's packages put the rest under `/usr`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// An external tool that judges our output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// ptxas 12.9: the judge for sm_60 and sm_70 (ptxas 13 refuses them).
    Ptxas12,
    /// ptxas 13.5: the judge for sm_75 and newer.
    Ptxas13,
    /// nvdisasm 13.5: SASS of a cubin.
    Nvdisasm,
    /// Intel's vISA assembler.
    GenxIr,
    /// `llvm-as` of an LLVM major version.
    LlvmAs(u32),
    /// `opt` of an LLVM major version.
    Opt(u32),
    /// `llc` of an LLVM major version.
    Llc(u32),
    /// `spirv-val` 2025.5 (SPIRV-Tools): the judge of SPIR-V binaries.
    SpirvVal,
    /// Debian's clang 22: the `-emit-llvm` corpus of `tests/corpus/src/`.
    Clang22,
    /// Headless Chromium for the HTML report.
    Chromium,
    /// A C compiler for the threaded CPU driver.
    Cc,
}

/// The environment variable that turns a missing tool from a skip into a failure.
pub const REQUIRE_TOOLS_ENV: &str = "ATOMIR_REQUIRE_TOOLS";

impl Tool {
    /// A short name for messages, and the suffix of its override variable
    /// (`ATOMIR_TOOL_<NAME>`, upper-cased, `-` and `.` as `_`).
    pub fn name(self) -> String {
        match self {
            Tool::Ptxas12 => "ptxas-12.9".into(),
            Tool::Ptxas13 => "ptxas-13.5".into(),
            Tool::Nvdisasm => "nvdisasm".into(),
            Tool::GenxIr => "GenX_IR".into(),
            Tool::LlvmAs(v) => format!("llvm-as-{v}"),
            Tool::Opt(v) => format!("opt-{v}"),
            Tool::Llc(v) => format!("llc-{v}"),
            Tool::SpirvVal => "spirv-val".into(),
            Tool::Clang22 => "clang-22".into(),
            Tool::Chromium => "chromium".into(),
            Tool::Cc => "cc".into(),
        }
    }

    fn candidates(self) -> Vec<PathBuf> {
        let oracles = oracle_dir();
        let llvm = |v: u32, bin: &str| PathBuf::from(format!("/usr/lib/llvm-{v}/bin/{bin}"));
        match self {
            Tool::Ptxas12 => globbed(
                &oracles.join("cu12/lib"),
                "site-packages/nvidia/cuda_nvcc/bin/ptxas",
            ),
            Tool::Ptxas13 => globbed(
                &oracles.join("cu13/lib"),
                "site-packages/nvidia/cu13/bin/ptxas",
            ),
            Tool::Nvdisasm => globbed(
                &oracles.join("cu13/lib"),
                "site-packages/nvidia/cu13/bin/nvdisasm",
            ),
            Tool::GenxIr => vec![PathBuf::from("/usr/bin/GenX_IR")],
            // LLVM 23 has no Debian package: scripts/install-oracles installs it under oracles.
            Tool::LlvmAs(23) => vec![oracles.join("llvm23/bin/llvm-as")],
            Tool::Opt(23) => vec![oracles.join("llvm23/bin/opt")],
            Tool::Llc(23) => vec![oracles.join("llc23/llc")],
            Tool::LlvmAs(v) => vec![llvm(v, "llvm-as")],
            Tool::Opt(v) => vec![llvm(v, "opt")],
            Tool::Llc(v) => vec![llvm(v, "llc")],
            Tool::SpirvVal => vec![oracles.join("spirv-tools/bin/spirv-val")],
            Tool::Clang22 => vec![PathBuf::from("/usr/bin/clang-22"), llvm(22, "clang")],
            Tool::Chromium => vec![PathBuf::from("/usr/bin/chromium")],
            Tool::Cc => vec![PathBuf::from("/usr/bin/cc"), PathBuf::from("/usr/bin/gcc")],
        }
    }

    /// The tool's path, if it is installed (or named by its override variable).
    pub fn find(self) -> Option<PathBuf> {
        let var = format!(
            "ATOMIR_TOOL_{}",
            self.name().to_uppercase().replace(['-', '.'], "_")
        );
        if let Some(path) = std::env::var_os(&var) {
            let path = PathBuf::from(path);
            return path.is_file().then_some(path);
        }
        self.candidates().into_iter().find(|p| p.is_file())
    }
}

/// The folder `scripts/install-oracles` installs into: `<workspace>/target/oracles`.
pub fn oracle_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("ATOMIR_ORACLES") {
        return PathBuf::from(dir);
    }
    workspace_root().join("target/oracles")
}

/// The workspace root (the parent of this crate's folder).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// `<dir>/python3.*/<rest>` for every Python version folder found.
fn globbed(dir: &Path, rest: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| e.path().join(rest))
        .collect();
    found.sort();
    found
}

/// Whether CI asked for every tool to be present.
pub fn tools_required() -> bool {
    std::env::var(REQUIRE_TOOLS_ENV).is_ok_and(|v| v == "1")
}

/// The tool's path; `None` (with a printed reason) when it is missing and tools are not required.
///
/// # Panics
/// When the tool is missing and `ATOMIR_REQUIRE_TOOLS=1`.
pub fn require(tool: Tool) -> Option<PathBuf> {
    match tool.find() {
        Some(path) => Some(path),
        None if tools_required() => panic!(
            "{} is required ({REQUIRE_TOOLS_ENV}=1) but not installed; run scripts/install-oracles",
            tool.name()
        ),
        None => {
            eprintln!(
                "SKIPPED: {} not found; run scripts/install-oracles (or scripts/test) to install it",
                tool.name()
            );
            None
        }
    }
}

/// Runs a command, returning (success, stdout + stderr).
pub fn run(command: &mut Command) -> (bool, String) {
    match command.output() {
        Ok(output) => {
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            (output.status.success(), text)
        }
        Err(error) => (false, format!("could not run {command:?}: {error}")),
    }
}
