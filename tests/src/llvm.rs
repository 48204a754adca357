//! Running LLVM's own tools over batches of lowered kernels, bisecting only on failure.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use atomir_ir::{
    AtomicOp, Backend, ElementLowering, InstData, Kernel, LowerOptions, Lowering, Module,
};
use atomir_llvm::{LlvmTarget, Triple};

use crate::loops::Listing;
use crate::tools::{require, Tool};

/// `llvm-as`, `opt` and `llc` of one LLVM major version, and for SPIR-V triples the validator
/// that judges llc's binary.
pub struct LlvmTools {
    pub major: u32,
    pub llvm_as: PathBuf,
    pub opt: PathBuf,
    pub llc: PathBuf,
    /// `spirv-val`; when set, llc writes a SPIR-V binary for SPIR-V triples and it must validate.
    pub spirv_val: Option<PathBuf>,
}

impl LlvmTools {
    /// The tools of `major`, or `None` (skipped with a printed reason) when one is missing.
    pub fn require(major: u32) -> Option<LlvmTools> {
        Some(LlvmTools {
            major,
            llvm_as: require(Tool::LlvmAs(major))?,
            opt: require(Tool::Opt(major))?,
            llc: require(Tool::Llc(major))?,
            spirv_val: None,
        })
    }

    /// Adds `spirv-val` as the judge of `target`'s binaries where the triple is SPIR-V (a
    /// missing validator is skipped with a printed reason, or fails under
    /// `ATOMIR_REQUIRE_TOOLS=1`).
    pub fn with_spirv_val(mut self, target: &LlvmTarget) -> LlvmTools {
        if spirv_env(target).is_some() {
            self.spirv_val = require(Tool::SpirvVal);
        }
        self
    }
}

/// The `spirv-val` arguments that choose the environment a SPIR-V triple's binary is judged in
/// (`None` for the other triples). The OpenCL flavour is judged in spirv-val's default
/// (universal) environment: the OpenCL environments cap the SPIR-V version at 1.2, below the
/// 1.4 llc writes, and cannot know that a device has the 64-bit atomics extensions. The Vulkan
/// flavour is judged as Vulkan 1.3, the version its triple names (spirv-val 2025.5 also knows
/// 1.4; the atomic rules are the same there).
pub fn spirv_env(target: &LlvmTarget) -> Option<&'static [&'static str]> {
    match target.triple {
        Triple::Spirv64 => Some(&[]),
        Triple::SpirvVulkan => Some(&["--target-env", "vulkan1.3"]),
        _ => None,
    }
}

/// Lowers `kernels` as one complete module.
pub fn lower_module(target: &LlvmTarget, kernels: &[Kernel]) -> Result<String, String> {
    let module = Module {
        kernels: kernels.to_vec(),
    };
    let mut text = String::new();
    let verified = atomir_ir::verify::verify(&module).map_err(|d| d[0].to_string())?;
    target
        .lower(&verified, &LowerOptions::module(), &mut text)
        .map_err(|e| e.to_string())?;
    Ok(text)
}

/// How hard llc works. The matrix uses [`Codegen::Fast`]: `-O0` still runs AtomicExpand and
/// instruction selection on every atomic (the parts that reject or miscompile atomics), at a
/// third to a half of the cost; tests about what survives optimisation use the default level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codegen {
    Fast,
    Default,
}

/// Runs `llvm-as | opt (verifier) | llc` over one module file, piping bitcode between the
/// tools; llc's output goes to `llc_out`.
pub fn check_file(
    tools: &LlvmTools,
    target: &LlvmTarget,
    file: &Path,
    llc_out: &Path,
    codegen: Codegen,
) -> Result<(), String> {
    let err_file = |tool: &str| -> Result<(PathBuf, Stdio), String> {
        let path = file.with_extension(format!("{tool}.err"));
        let handle = File::create(&path).map_err(|e| e.to_string())?;
        Ok((path, Stdio::from(handle)))
    };
    let (as_err, as_stderr) = err_file("as")?;
    let (opt_err, opt_stderr) = err_file("opt")?;
    let (llc_err, llc_stderr) = err_file("llc")?;
    let verify = if tools.major < 15 {
        "-verify"
    } else {
        "-passes=verify"
    };
    let mut assemble = Command::new(&tools.llvm_as)
        .arg(file)
        .args(["-o", "-"])
        .stdout(Stdio::piped())
        .stderr(as_stderr)
        .spawn()
        .map_err(|e| format!("llvm-as-{}: {e}", tools.major))?;
    let mut verifier = Command::new(&tools.opt)
        .args([verify, "-", "-o", "-"])
        .stdin(Stdio::from(assemble.stdout.take().unwrap()))
        .stdout(Stdio::piped())
        .stderr(opt_stderr)
        .spawn()
        .map_err(|e| format!("opt-{}: {e}", tools.major))?;
    let mut codegen_cmd = Command::new(&tools.llc);
    if codegen == Codegen::Fast {
        codegen_cmd.arg("-O0");
    }
    let spirv = tools.spirv_val.as_ref().zip(spirv_env(target));
    if spirv.is_some() {
        codegen_cmd.arg("-filetype=obj");
    }
    let compile = codegen_cmd
        .args(target.llc_args())
        .arg("-")
        .arg("-o")
        .arg(llc_out)
        .stdin(Stdio::from(verifier.stdout.take().unwrap()))
        .stderr(llc_stderr)
        .status();
    let assembled = assemble.wait().map_err(|e| e.to_string())?;
    let verified = verifier.wait().map_err(|e| e.to_string())?;
    let compiled = compile.map_err(|e| format!("llc-{}: {e}", tools.major))?;
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    // The first tool that failed is the one whose message matters: the later ones only saw a
    // truncated stream.
    if !assembled.success() {
        return Err(format!("llvm-as-{}: {}", tools.major, read(&as_err)));
    }
    if !verified.success() {
        return Err(format!("opt-{} {verify}: {}", tools.major, read(&opt_err)));
    }
    if !compiled.success() {
        return Err(format!("llc-{}: {}", tools.major, read(&llc_err)));
    }
    if let Some((spirv_val, env)) = spirv {
        let (valid, message) = crate::tools::run(Command::new(spirv_val).args(env).arg(llc_out));
        if !valid {
            return Err(format!("spirv-val {}: {message}", env.join(" ")));
        }
        if target.triple == Triple::SpirvVulkan {
            glsl450_memory_model(llc_out)?;
        }
    }
    Ok(())
}

/// `OpMemoryModel Logical GLSL450` in a Vulkan binary. The Vulkan table lets device scope
/// through without `VulkanMemoryModelDeviceScope` because that capability is required under the
/// Vulkan memory model only; a module that declared that model would need it.
fn glsl450_memory_model(binary: &Path) -> Result<(), String> {
    const OP_MEMORY_MODEL: u32 = 14;
    const LOGICAL: u32 = 0;
    const GLSL450: u32 = 1;
    let bytes = std::fs::read(binary).map_err(|e| e.to_string())?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    // Header: magic, version, generator, bound, schema; then instructions, each led by a word
    // of (word count << 16 | opcode).
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if words[at] & 0xffff == OP_MEMORY_MODEL {
            let model = words.get(at + 1..at + 3);
            return if model == Some(&[LOGICAL, GLSL450][..]) {
                Ok(())
            } else {
                Err(format!(
                    "{}: OpMemoryModel {model:?}, not Logical GLSL450: device scope would need \
                     VulkanMemoryModelDeviceScope",
                    binary.display()
                ))
            };
        }
        if count == 0 {
            break;
        }
        at += count;
    }
    Err(format!("{}: no OpMemoryModel", binary.display()))
}

/// Checks `kernels` in one module; on failure, bisects down to one failing kernel and returns
/// its name with the tool's message.
pub fn check_batch(
    tools: &LlvmTools,
    target: &LlvmTarget,
    kernels: &[Kernel],
    dir: &Path,
    tag: &str,
    codegen: Codegen,
) -> Result<(), String> {
    let file = dir.join(format!("{tag}.ll"));
    let out = dir.join(format!("{tag}.s"));
    let text = lower_module(target, kernels)?;
    std::fs::write(&file, &text).map_err(|e| e.to_string())?;
    match check_file(tools, target, &file, &out, codegen) {
        Ok(()) => {
            // Names its kernels itself: no bisection.
            let native = native_is_not_llc_cas_loop(target, kernels, &out);
            // A passing batch's files are of no further use, and a whole matrix of them runs to
            // gigabytes; a failing batch's module stays, named in the message.
            if native.is_ok() {
                remove_batch_files(&file, &out);
            }
            native.map_err(|message| format!("{message}\n(module: {})", file.display()))
        }
        Err(message) if kernels.len() == 1 => Err(format!(
            "{}: {} (module: {})",
            kernels[0].name,
            truncate(&message),
            file.display()
        )),
        Err(_) => {
            remove_batch_files(&file, &out);
            let (left, right) = kernels.split_at(kernels.len() / 2);
            check_batch(tools, target, left, dir, &format!("{tag}l"), codegen)?;
            check_batch(tools, target, right, dir, &format!("{tag}r"), codegen)
        }
    }
}

/// The instructions of llc's assembly that are a compare-and-swap, by triple: a CAS loop llc
/// expanded an `atomicrmw` into has one (NVPTX `atom….cas`, AMDGPU `…_cmpswap` on global and
/// flat memory and `ds_cmpst…` on LDS).
fn is_llc_cas(triple: Triple, line: &str) -> bool {
    let line = line.trim_start();
    match triple {
        Triple::Nvptx64 => line.starts_with("atom.") && line.contains(".cas."),
        Triple::Amdgcn => line.contains("_cmpswap") || line.starts_with("ds_cmpst"),
        Triple::X86_64 | Triple::Spirv64 | Triple::SpirvVulkan => false,
    }
}

/// Every kernel whose atomics are all carried out natively (each verdict's lowering
/// the whole node by [`ElementLowering::Native`], no `cas` among them) has no compare-and-swap
/// in llc's assembly
/// `llc_out`: a native verdict says the target's instruction does it, so llc's own CAS loop
/// there would make the verdict (and its size) a claim llc does not keep. NVPTX and AMDGPU
/// only, whose assembly names each function (`.entry`/`.func NAME(`, `NAME:`).
pub fn native_is_not_llc_cas_loop(
    target: &LlvmTarget,
    kernels: &[Kernel],
    llc_out: &Path,
) -> Result<(), String> {
    let listing = match target.triple {
        Triple::Nvptx64 => Listing::Ptx,
        Triple::Amdgcn => Listing::Amdgcn,
        Triple::X86_64 | Triple::Spirv64 | Triple::SpirvVulkan => return Ok(()),
    };
    let assembly = std::fs::read_to_string(llc_out).map_err(|e| e.to_string())?;
    let mut wrong = Vec::new();
    for kernel in kernels {
        let native = kernel.insts.iter().all(|(inst, data)| match data {
            InstData::Atomic(atomic) => {
                atomic.op != AtomicOp::Cas
                    && target.legalize_inst(kernel, inst).is_ok_and(|legality| {
                        legality.lowering == Lowering::whole(ElementLowering::Native)
                    })
            }
            InstData::Fence(_) => true,
        });
        if !native {
            continue;
        }
        let body = function_body(target.triple, &assembly, &kernel.name).ok_or_else(|| {
            format!(
                "llc's output {} has no function `{}`",
                llc_out.display(),
                kernel.name
            )
        })?;
        // A loop needs a branch back (to a label above it): llc 23 reads a 128-bit atomic as one
        // `cas.b128` whose compare and swap values are equal, and at -O0 the kernel's own
        // blocks stay as forward branches; neither is a loop.
        let branches = !listing.loops(body).is_empty();
        let cas = body.lines().find(|line| is_llc_cas(target.triple, line));
        if let Some(cas) = cas.filter(|_| branches) {
            wrong.push(format!(
                "{}: verdict native, but llc compiled it to a CAS loop (`{}`)",
                kernel.name,
                cas.trim()
            ));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n"))
    }
}

/// The text of function `name` in llc's assembly for `triple`: from its header to the next
/// function's (NVPTX) or to its `.Lfunc_end` label (AMDGPU).
fn function_body<'a>(triple: Triple, assembly: &'a str, name: &str) -> Option<&'a str> {
    match triple {
        Triple::Nvptx64 => {
            let is_header = |line: &str| {
                let line = line.trim_start();
                [".visible ", ".entry ", ".func ", ".weak "]
                    .iter()
                    .any(|lead| line.starts_with(lead))
                    && (line.contains(".entry ") || line.contains(".func "))
            };
            let header = format!(" {name}(");
            let mut start = None;
            let mut offset = 0;
            for line in assembly.split_inclusive('\n') {
                if is_header(line) {
                    if let Some(start) = start {
                        return Some(&assembly[start..offset]);
                    }
                    if line.contains(&header) || line.trim_end().ends_with(&format!(" {name}")) {
                        start = Some(offset);
                    }
                }
                offset += line.len();
            }
            start.map(|start| &assembly[start..])
        }
        Triple::Amdgcn => {
            let label = format!("\n{name}:");
            let start = assembly.find(&label)? + 1;
            let end = assembly[start..]
                .find(".Lfunc_end")
                .map_or(assembly.len(), |end| start + end);
            Some(&assembly[start..end])
        }
        Triple::X86_64 | Triple::Spirv64 | Triple::SpirvVulkan => None,
    }
}

/// Removes a batch's module, llc's output and the tools' message files (named by
/// [`check_file`] after the module).
fn remove_batch_files(file: &Path, llc_out: &Path) {
    for path in [
        file.to_path_buf(),
        llc_out.to_path_buf(),
        file.with_extension("as.err"),
        file.with_extension("opt.err"),
        file.with_extension("llc.err"),
    ] {
        let _ = std::fs::remove_file(path);
    }
}

fn truncate(message: &str) -> String {
    message.lines().take(12).collect::<Vec<_>>().join("\n")
}
