//! `atomir read`, `check` and `fix` on LLVM IR (`.ll`): the text each prints, built from the
//! reader of [`atomir::llvm::read`] and [`atomir::fix`].

use std::fmt::Write;

use atomir::fix::{fix_module, Fixed};
use atomir::llvm::read::{self, LlAtomic, NanRule, ReadOptions, Reading};
use atomir::{AtomicNode, Diagnostic, Kernel, Target};

/// Whether a file name is LLVM IR text, which the commands read as a module of atomics.
pub fn is_llvm_ir(file: &str) -> bool {
    file.ends_with(".ll")
}

/// Where the reading of one module went: the atomics read, and the lines to print on standard
/// error for those that could not be read.
pub fn read_module(name: &str, source: &str, options: &ReadOptions) -> (Reading, Vec<String>) {
    let reading = read::read(source, options);
    let errors = reading
        .diagnostics
        .iter()
        .map(|d| render(name, d))
        .collect();
    (reading, errors)
}

fn render(name: &str, diagnostic: &Diagnostic) -> String {
    diagnostic.render(name)
}

/// What an atomic's node leaves out of the LLVM instruction, in words (empty: nothing).
fn notes(atomic: &LlAtomic) -> Vec<&'static str> {
    let mut notes = Vec::new();
    if atomic.scope.one_address_space {
        notes.push("one-as: LLVM orders one address space, the node all");
    }
    if let Some(failure) = atomic.failure_order {
        if read::joined_order(atomic.order, failure) != atomic.order {
            notes.push("order joined with the cmpxchg's failure order");
        }
    }
    if let Some(access) = &atomic.access {
        if access.nan_rule == NanRule::MinMaxNum {
            notes.push("fmin/fmax: the node's min/max is one of the results minnum/maxnum allow");
        }
        if access.whole_vector {
            notes.push("whole-vector atomicity: the node is atomic per element");
        }
        if access.weak {
            notes.push("weak: the node's cas never fails spuriously");
        }
        if access.volatile {
            notes.push("volatile");
        }
        let metadata = access.metadata;
        if metadata.no_fine_grained_memory {
            notes.push("!amdgpu.no.fine.grained.memory");
        }
        if metadata.no_remote_memory {
            notes.push("!amdgpu.no.remote.memory");
        }
        if metadata.ignore_denormal_mode {
            notes.push("!amdgpu.ignore.denormal.mode");
        }
    }
    notes
}

/// `atomir read FILE.ll`: one atomir kernel per function, each atomic's instruction with its
/// place in the module and what its node leaves out.
pub fn print_read(name: &str, source: &str, reading: &Reading, out: &mut String) {
    let kernels = read::to_module(source, &reading.module, false);
    for (index, kernel) in kernels.module.kernels.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        write_header(out, kernel);
        for ((kernel_index, inst), atomic) in kernels.insts.iter().zip(&reading.module.atomics) {
            if *kernel_index != index {
                continue;
            }
            out.push_str("  ");
            atomir::text::write_inst(out, kernel, &kernel.insts[*inst]);
            let _ = write!(out, "  # {name}:{}:{}", atomic.loc.line, atomic.loc.col);
            for note in notes(atomic) {
                let _ = write!(out, "; {note}");
            }
            out.push('\n');
        }
        out.push_str("}\n");
    }
}

fn write_header(out: &mut String, kernel: &Kernel) {
    let _ = write!(out, "kernel {}(", kernel.name);
    for (index, param) in kernel.params.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "%{}: {}", kernel.value_name(param.value), param.ty);
    }
    out.push_str(") {\n");
}

/// The verdict of `target` on one atomic, in words: `native`, the emulation, or the refusal
/// with its rule and smallest target. Whether it is refused is the second value.
fn verdict(target: &Target, atomic: &LlAtomic) -> (String, bool) {
    let verdict = match (atomic.node(), atomic.fence()) {
        (Some(node), _) => target.legalize(&node),
        (None, Some(fence)) => target.backend().legalize_fence(&fence),
        (None, None) => return ("nothing to judge".into(), false),
    };
    match verdict {
        Ok(legality) => match atomic.node() {
            Some(node) => (legality.describe(node.ty, node.shape), false),
            None => (legality.describe_fence(), false),
        },
        Err(refusal) => (format!("refused: {refusal}"), true),
    }
}

/// `atomir check FILE.ll --target T…`: per atomic and target, the verdict. Returns whether a
/// target refuses any atomic.
pub fn print_check(name: &str, reading: &Reading, targets: &[Target], out: &mut String) -> bool {
    let mut refused = false;
    for atomic in &reading.module.atomics {
        let node = atomic
            .node()
            .map_or_else(|| describe_fence(atomic), |node| describe_node(&node));
        let _ = writeln!(out, "{name}:{}:{}: {node}", atomic.loc.line, atomic.loc.col);
        for target in targets {
            let (words, is_refusal) = verdict(target, atomic);
            refused |= is_refusal;
            let _ = writeln!(out, "  {target}: {words}");
        }
    }
    refused
}

fn describe_fence(atomic: &LlAtomic) -> String {
    format!("fence.{}.{}", atomic.order, atomic.scope.scope)
}

fn describe_node(node: &AtomicNode) -> String {
    let shape = if node.shape.is_vector() {
        format!(".{}", node.shape)
    } else {
        String::new()
    };
    format!(
        "atomic.{}.{}.{}.{}{shape}.{}{}",
        node.op,
        node.order,
        node.scope,
        node.space,
        node.ty,
        if node.result_used {
            ""
        } else {
            " (result unused)"
        }
    )
}

/// `atomir fix FILE.ll --target T`: the fixed module, or the lines of what was left as it was.
pub fn fix(
    name: &str,
    source: &str,
    target: &Target,
    options: ReadOptions,
) -> Result<Fixed, Vec<String>> {
    let fixed = fix_module(source, target, options)
        .map_err(|error| vec![format!("{name}: error: {error}")])?;
    if fixed.diagnostics.is_empty() {
        Ok(fixed)
    } else {
        Err(fixed.diagnostics.iter().map(|d| render(name, d)).collect())
    }
}
