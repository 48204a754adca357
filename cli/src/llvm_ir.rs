//! `atomir read`, `check` and `fix` on LLVM IR (`.ll`): the text each prints, built from the
//! reader of [`atomir::llvm::read`] and [`atomir::fix`].

use std::fmt::Write;

use atomir::fix::{fix_module, Fixed};
use atomir::llvm::read::{self, LlAtomic, ReadOptions, Reading};
use atomir::{Backend, Diagnostic, Node, Target};

use crate::porting::{outcome, Porting, Row};

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

/// What an atomic means: its node, or its fence.
pub fn node_of(atomic: &LlAtomic) -> Option<Node> {
    match (atomic.node(), atomic.fence()) {
        (Some(node), _) => Some(Node::Atomic(node)),
        (None, Some(fence)) => Some(Node::Fence(fence)),
        (None, None) => None,
    }
}

/// Each atomic in atomir's text form (one instruction of its function's kernel).
fn canonical_texts(source: &str, reading: &Reading) -> Vec<String> {
    let kernels = read::to_module(source, &reading.module, false);
    kernels
        .insts
        .iter()
        .map(|(kernel, inst)| {
            let kernel = &kernels.module.kernels[*kernel];
            let mut text = String::new();
            atomir::text::write_inst(&mut text, kernel, &kernel.insts[*inst]);
            text
        })
        .collect()
}

/// `atomir read FILE.ll`: each atomic as `file:line:col: <atomir text>` and, after `//`, the
/// LLVM instruction it was read from and what its node leaves out.
pub fn listing(name: &str, source: &str, reading: &Reading, out: &mut String) {
    let texts = canonical_texts(source, reading);
    for (atomic, text) in reading.module.atomics.iter().zip(texts) {
        let instruction = source.get(atomic.span.clone()).unwrap_or("");
        let _ = write!(
            out,
            "{name}:{}:{}: {text}\t// {instruction}",
            atomic.loc.line, atomic.loc.col
        );
        for note in notes(atomic) {
            let _ = write!(out, " [{note}]");
        }
        out.push('\n');
    }
}

/// `atomir check FILE.ll --target T…`: the porting report of the module's atomics.
pub fn porting(name: &str, source: &str, reading: &Reading, targets: &[Target]) -> Porting {
    let texts = canonical_texts(source, reading);
    let rows = reading
        .module
        .atomics
        .iter()
        .zip(texts)
        .filter_map(|(atomic, text)| {
            let node = node_of(atomic)?;
            Some(Row {
                line: atomic.loc.line,
                col: atomic.loc.col,
                ptx: source.get(atomic.span.clone()).unwrap_or("").to_string(),
                atomir: text,
                outcomes: targets
                    .iter()
                    .map(|target| {
                        let verdict = match &node {
                            Node::Atomic(node) => target.legalize(node),
                            Node::Fence(fence) => target.legalize_fence(fence),
                        };
                        outcome(verdict, &node)
                    })
                    .collect(),
            })
        })
        .collect();
    Porting {
        file: name.to_string(),
        language: "LLVM IR",
        targets: targets.iter().map(ToString::to_string).collect(),
        rows,
    }
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
