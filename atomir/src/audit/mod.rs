//! `audit`: translation validation of a compiler's atomics, from LLVM IR to the PTX it made.
//!
//! Each atomic of the IR ([`llvm::read`](atomir_llvm::read)) is matched, per kernel (the
//! function's name) and in order, to the PTX atomics that carry it ([`read_ptx`](crate::read_ptx)),
//! knowing the shapes an atomic takes: one `atom`/`red`/`ld`/`st`, fences around it, a CAS
//! loop, integer min/max for a float min/max, a per-element split. Each is then
//! [`Verdict::Kept`], [`Verdict::Strengthened`] or [`Verdict::Weakened`]: its order dropped or
//! weaker (for a split, an element without the order), its scope narrower, an f32 add that now
//! flushes subnormals (`atom.add.f32` without `.noftz` on global or generic memory, read as
//! laxity `ftz`, where the IR's add is exact), a NaN rule changed (a float min/max loop whose
//! `min`/`max` propagates NaNs where the IR ignores them, or the reverse) or loosened (an exact
//! IR min/max carried by a `.noftz` f16/bf16 min/max, read as laxity `ieee2008`; an IR
//! `fmin`/`fmax` allows it). An atomic that matches no shape is [`Verdict::Unmatched`], never guessed.
//!
//! Matching follows each PTX function's branches, so blocks that llc `-O2` laid out
//! in another order than the IR's (a CAS loop after its exit, the arms of a branch swapped) are
//! matched as at `-O0`: the blocks in reverse post-order, and where llc's comments name the IR
//! block each was made from, in the IR's order of those. Each IR atomic takes the shape at the
//! place the previous one ended; where none is there, one instruction of its op further on or
//! earlier in the function, and only then a CAS loop a few atomics on; never a part another
//! atomic took. Where the blocks are not named and another group of the shape lies in a block
//! that neither runs before nor after the one found (the other arm of a branch) with another
//! verdict, the atomic is unmatched as ambiguous, and so is the one that could be in its place.
//!
//! What it does not see: the order of a loop's first load (LLVM's loops always write, so only
//! their CAS carries the order), and arithmetic other than float min/max.
//!
//! ```
//! use atomir::audit::{audit, Verdict};
//!
//! let ir = r#"target triple = "nvptx64-nvidia-cuda"
//! define ptx_kernel void @publish(ptr addrspace(1) %flag) {
//!   %old = atomicrmw xchg ptr addrspace(1) %flag, i32 1 syncscope("device") release, align 4
//!   ret void
//! }
//! "#;
//! // What llc 22 makes of it: the release is gone.
//! let ptx = ".version 8.8\n.target sm_90\n.address_size 64\n\
//!            .visible .entry publish(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n\
//!            ld.param.u64 %rd1, [p];\n\
//!            atom.global.exch.b32 %r1, [%rd1], 1;\nret;\n}\n";
//! let report = audit(ir, ptx, Default::default());
//! assert_eq!(report.weakened(), 1);
//! assert!(matches!(report.entries[0].verdict, Verdict::Weakened(_)));
//! println!("{}", report.render("app.ll", "app.ptx"));
//! ```

mod flow;
mod group;
mod strength;

use std::fmt;

use atomir_ir::{Diagnostic, MemoryOrder, Node, Scope};
use atomir_llvm::read::{self, LlAtomic, ReadOptions};

use group::PtxPart;

/// One way the PTX gives less than the IR asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Weakening {
    /// The order is gone or weaker (`split`: some element of a per-element split lacks it).
    Order {
        /// The IR's order.
        ir: MemoryOrder,
        /// The weakest order the PTX gives an element.
        ptx: MemoryOrder,
        /// Whether the atomic was split into per-element accesses.
        split: bool,
    },
    /// The scope is narrower.
    Scope {
        /// The IR's scope.
        ir: Scope,
        /// The narrowest scope of the PTX's accesses.
        ptx: Scope,
    },
    /// An f32 add that keeps subnormals in the IR flushes them in the PTX.
    FlushesSubnormals,
    /// A float min/max whose NaN rule changed: the PTX's `min`/`max` propagate NaNs where the
    /// IR's op ignores them, or the reverse.
    NanRule {
        /// Whether the IR's op propagates NaNs (`fminimum`/`fmaximum`).
        ir_propagates: bool,
    },
    /// A float min/max that gives the canonical NaN and orders -0 below +0 in the IR, carried
    /// by a PTX min/max of IEEE 754-2008's looser rule (the `.noftz` f16/bf16 forms, read as
    /// laxity `ieee2008`).
    NanLoosened,
    /// An IR fence with no PTX fence where it stands.
    FenceDropped,
}

impl fmt::Display for Weakening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Weakening::Order { ir, ptx, split } => {
                let what = if *ptx == MemoryOrder::Relaxed { "dropped" } else { "weaker" };
                write!(f, "order {what}: {ir} in the IR, {ptx} in the PTX")?;
                if *split {
                    f.write_str(" (a split whose elements lost it)")?;
                }
                Ok(())
            }
            Weakening::Scope { ir, ptx } => {
                write!(f, "scope narrower: {ir} in the IR, {ptx} in the PTX")
            }
            Weakening::FlushesSubnormals => f.write_str(
                "flushes subnormals: atom.add.f32 without .noftz on global memory, where the IR's float add keeps them",
            ),
            Weakening::NanRule { ir_propagates: true } => f.write_str(
                "NaN rule changed: the IR's op propagates NaNs, the PTX's min/max ignores them",
            ),
            Weakening::NanRule { ir_propagates: false } => f.write_str(
                "NaN rule changed: the IR's op ignores a NaN operand, the PTX's min/max propagates it",
            ),
            Weakening::NanLoosened => f.write_str(
                "NaN rule loosened: the IR's min/max gives the canonical NaN and orders -0 below +0, the PTX's .noftz min/max (IEEE 754-2008) need not",
            ),
            Weakening::FenceDropped => f.write_str("fence dropped: no PTX fence where it stands"),
        }
    }
}

/// What became of one IR atomic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The PTX gives exactly what the IR asks.
    Kept,
    /// The PTX gives more: a stronger order or a wider scope (in words).
    Strengthened(Vec<String>),
    /// The PTX gives less.
    Weakened(Vec<Weakening>),
    /// No PTX matches it in any shape an atomic takes: why.
    Unmatched(String),
}

/// One line of a source: its number and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLine {
    /// 1-based line.
    pub line: u32,
    /// The instruction as written.
    pub text: String,
}

/// One IR atomic, the PTX that carries it and the verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The kernel (function) it is in.
    pub function: String,
    /// The IR instruction.
    pub ir: SourceLine,
    /// The PTX instructions matched to it (leading fences, accesses, trailing fences).
    pub ptx: Vec<SourceLine>,
    /// What became of it.
    pub verdict: Verdict,
}

/// The audit of one IR module against one PTX module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// One entry per IR atomic read, in the IR's order.
    pub entries: Vec<Entry>,
    /// PTX atomics that no IR atomic took, with their function.
    pub unclaimed: Vec<(String, SourceLine)>,
    /// IR atomics that could not be read (`line:col: error: …`).
    pub ir_errors: Vec<Diagnostic>,
    /// PTX atomics that could not be read.
    pub ptx_errors: Vec<String>,
}

impl Report {
    /// How many IR atomics the PTX weakens.
    pub fn weakened(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Weakened(_)))
    }

    /// How many IR atomics match no PTX.
    pub fn unmatched(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Unmatched(_)))
    }

    fn count(&self, which: impl Fn(&Verdict) -> bool) -> usize {
        self.entries.iter().filter(|e| which(&e.verdict)).count()
    }

    /// Whether the PTX keeps every atomic's meaning: nothing weakened or unmatched, both
    /// modules read whole.
    pub fn is_clean(&self) -> bool {
        self.weakened() == 0
            && self.unmatched() == 0
            && self.ir_errors.is_empty()
            && self.ptx_errors.is_empty()
    }

    /// The report as text: one block per IR atomic, `kept`/`strengthened`/`WEAKENED`/
    /// `UNMATCHED` with both lines, then the totals.
    pub fn render(&self, ir_name: &str, ptx_name: &str) -> String {
        strength::render(self, ir_name, ptx_name)
    }
}

/// The PTX function that LLVM's NVPTX backend makes of an IR function name: characters PTX
/// names cannot hold become `_$_`.
fn ptx_name(ir_name: &str) -> String {
    let name = ir_name.trim_matches('"');
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
            out.push(c);
        } else {
            out.push_str("_$_");
        }
    }
    out
}

/// The names of the blocks of an IR function, in text order: its entry block, then each label
/// at the start of a line of its body (`else:`, `12:`).
fn ir_block_names<'a>(ir_source: &'a str, function: &'a read::LlFunction) -> Vec<&'a str> {
    let body = ir_source.get(function.body.clone()).unwrap_or("");
    let labels = body.lines().filter_map(|line| {
        let (label, _) = line.split_once(':')?;
        let plain = !label.is_empty()
            && label
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-'));
        plain.then_some(label)
    });
    std::iter::once(function.entry_block.as_str())
        .chain(labels)
        .collect()
}

/// Audits the PTX `ptx_source` made from the LLVM IR `ir_source` (read per `options`, the
/// triple nvptx64 where the module names none).
pub fn audit(ir_source: &str, ptx_source: &str, options: ReadOptions) -> Report {
    let options = ReadOptions {
        triple: options.triple.or(Some(atomir_llvm::Triple::Nvptx64)),
    };
    let reading = read::read(ir_source, &options);
    let ptx = crate::read_ptx(ptx_source);
    let mut report = Report {
        ir_errors: reading.diagnostics.clone(),
        ptx_errors: ptx.errors.iter().map(ToString::to_string).collect(),
        ..Report::default()
    };
    let parts: Vec<(String, PtxPart)> = ptx
        .atomics
        .iter()
        .map(|read| {
            let text = ptx_source
                .get(read.span.clone())
                .unwrap_or("")
                .trim()
                .to_string();
            let flushes = matches!(&read.node, Node::Atomic(n)
                if n.laxity == Some(atomir_ir::FloatLaxity::MayFlushSubnormals));
            (
                read.function.clone(),
                PtxPart {
                    line: read.line,
                    text,
                    node: read.node,
                    flushes,
                },
            )
        })
        .collect();
    let mut claimed = vec![false; parts.len()];
    for (function_index, function) in reading.module.functions.iter().enumerate() {
        let atomics: Vec<&LlAtomic> = reading
            .module
            .atomics
            .iter()
            .filter(|a| a.function == function_index)
            .collect();
        if atomics.is_empty() {
            continue;
        }
        let wanted = ptx_name(&function.name);
        let header = strength::function_line(ptx_source, &wanted);
        let ir_blocks = ir_block_names(ir_source, function);
        let flow = flow::Flow::of_function(ptx_source, header, &ir_blocks);
        let mut indices: Vec<usize> = (0..parts.len()).filter(|&i| parts[i].0 == wanted).collect();
        indices.sort_by_key(|&i| flow.position(parts[i].1.line));
        let function_parts: Vec<PtxPart> = indices.iter().map(|&i| parts[i].1.clone()).collect();
        let used = strength::audit_function(
            (ir_source, ptx_source),
            (&function.name, &flow),
            &atomics,
            &function_parts,
            &mut report.entries,
        );
        for local in used {
            claimed[indices[local]] = true;
        }
    }
    for (index, (function, part)) in parts.into_iter().enumerate() {
        if !claimed[index] {
            report.unclaimed.push((
                function,
                SourceLine {
                    line: part.line,
                    text: part.text,
                },
            ));
        }
    }
    report
}
