//! What the matched PTX gives each IR atomic, against what the IR asks: order, scope, flushing
//! and NaN rule; and the report's text.

use std::fmt::Write;

use atomir_ir::{AtomicNode, AtomicOp, FloatLaxity, MemoryOrder, Scope};
use atomir_llvm::read::LlAtomic;

use super::group::{match_access, Group, PtxPart, Shape};
use super::{Entry, Report, SourceLine, Verdict, Weakening};

/// The order given by `release`, `acquire` and seq_cst parts together.
fn order_of(release: bool, acquire: bool, seq_cst: bool) -> MemoryOrder {
    match (seq_cst, acquire, release) {
        (true, true, true) => MemoryOrder::SeqCst,
        (_, true, true) => MemoryOrder::AcqRel,
        (_, true, false) => MemoryOrder::Acquire,
        (_, false, true) => MemoryOrder::Release,
        _ => MemoryOrder::Relaxed,
    }
}

/// The weakest order any carrier gives the IR atomic, with the fences around it that reach
/// its scope; and the narrowest scope of its carriers.
fn given(ir: &AtomicNode, parts: &[PtxPart], group: &Group) -> (MemoryOrder, Scope) {
    // A carrier's fences: those of the group before it (after it) that reach the node's scope;
    // where the carriers are alternatives (integer min/max by the operand's sign, branches of
    // their own), only those with no other carrier in between.
    let fences: Vec<usize> = group
        .leading
        .iter()
        .chain(&group.trailing)
        .copied()
        .collect();
    let alternatives = group.shape == Shape::IntMinMax;
    let between =
        |from: usize, to: usize| alternatives && group.carriers.iter().any(|&c| from < c && c < to);
    let reaching = |index: usize| -> Option<MemoryOrder> {
        let (order, scope) = parts[index].order_scope();
        scope.includes(ir.scope).then_some(order)
    };
    let (mut release, mut acquire, mut seq_cst) = (true, true, true);
    let mut scope = Scope::System;
    for &carrier in &group.carriers {
        let before: Vec<MemoryOrder> = fences
            .iter()
            .filter(|&&f| f < carrier && !between(f, carrier))
            .filter_map(|&f| reaching(f))
            .collect();
        let after: Vec<MemoryOrder> = fences
            .iter()
            .filter(|&&f| f > carrier && !between(carrier, f))
            .filter_map(|&f| reaching(f))
            .collect();
        let lead_release = before.iter().any(|o| o.has_release());
        let lead_seq_cst = before.contains(&MemoryOrder::SeqCst);
        let trail_acquire = after.iter().any(|o| o.has_acquire());
        let (order, carrier_scope) = parts[carrier].order_scope();
        scope = scope.min(carrier_scope);
        let reaches = carrier_scope.includes(ir.scope);
        let own = |part: bool| reaches && part;
        let acq = own(order.has_acquire()) || trail_acquire;
        release &= own(order.has_release()) || lead_release;
        acquire &= acq;
        let completes = ir.op == AtomicOp::Store || acq;
        seq_cst &= own(order == MemoryOrder::SeqCst) || (lead_seq_cst && completes);
    }
    // A store has no acquire part and a load no release part: `fence.sc; st.release` and
    // `fence.sc; ld.acquire` are seq_cst.
    let is_store = ir.op == AtomicOp::Store;
    let is_load = ir.op == AtomicOp::Load;
    if seq_cst && (is_store || acquire) && (is_load || release) {
        return (MemoryOrder::SeqCst, scope);
    }
    (order_of(release, acquire, false), scope)
}

/// The float min/max instructions on the PTX lines from `from` to the group's last: whether
/// any propagates NaNs (`.NaN`) and whether any ignores them, unless a NaN test on those lines
/// (`setp.nan`, `testp.notanumber`) picks the NaN itself, as a fix-up of a plain min/max into
/// one that propagates NaNs does. A loop's first load may be a plain `ld`, which is no atomic,
/// so the lines start after the previous atomic's.
fn float_min_max(ptx_source: &str, from: u32, parts: &[PtxPart], group: &Group) -> (bool, bool) {
    let lines: Vec<u32> = group.parts().iter().map(|&i| parts[i].line).collect();
    let (Some(first), Some(last)) = (Some(&from), lines.iter().max()) else {
        return (false, false);
    };
    let first = &(*first).clamp(1, *last);
    let (mut propagates, mut ignores, mut tests_nan) = (false, false, false);
    for line in ptx_source
        .lines()
        .skip(*first as usize - 1)
        .take((*last - *first + 1) as usize)
    {
        let Some(opcode) = line.split_whitespace().find(|w| !w.starts_with('@')) else {
            continue;
        };
        if opcode.starts_with("setp.nan") || opcode.starts_with("testp.notanumber") {
            tests_nan = true;
        }
        let float = [".f32", ".f64", ".f16", ".bf16", ".f16x2", ".bf16x2"]
            .iter()
            .any(|t| opcode.ends_with(t));
        if float && (opcode.starts_with("min.") || opcode.starts_with("max.")) {
            if opcode.contains(".NaN") {
                propagates = true;
            } else {
                ignores = true;
            }
        }
    }
    (propagates || (ignores && tests_nan), ignores && !tests_nan)
}

fn judge(
    ir: &AtomicNode,
    atomic: &LlAtomic,
    (ptx_source, from): (&str, u32),
    parts: &[PtxPart],
    group: &Group,
) -> Verdict {
    let (order, scope) = given(ir, parts, group);
    let mut weakenings = Vec::new();
    if !order.implies(ir.order) {
        weakenings.push(Weakening::Order {
            ir: ir.order,
            ptx: order,
            split: group.shape == Shape::Split,
        });
    }
    if !scope.includes(ir.scope) {
        weakenings.push(Weakening::Scope {
            ir: ir.scope,
            ptx: scope,
        });
    }
    let ignores_denormals = atomic
        .access
        .as_ref()
        .is_some_and(|a| a.metadata.ignore_denormal_mode);
    let carried_with = |laxity: FloatLaxity| {
        group.carriers.iter().any(
            |&i| matches!(&parts[i].node, atomir_ir::Node::Atomic(n) if n.laxity == Some(laxity)),
        ) && !FloatLaxity::carries(Some(laxity), ir.laxity)
    };
    let float_add = matches!(ir.op, AtomicOp::Add | AtomicOp::Sub) && ir.ty.is_float();
    let flushed = group.carriers.iter().any(|&i| parts[i].flushes);
    if float_add && flushed && !ignores_denormals && ir.laxity.is_none() {
        weakenings.push(Weakening::FlushesSubnormals);
    }
    if ir.ty.is_float() && carried_with(FloatLaxity::Ieee2008MinMax) {
        weakenings.push(Weakening::NanLoosened);
    }
    if ir.ty.is_float() {
        let (propagates, ignores) = float_min_max(ptx_source, from, parts, group);
        match ir.op {
            AtomicOp::FMinimum | AtomicOp::FMaximum if ignores => {
                weakenings.push(Weakening::NanRule {
                    ir_propagates: true,
                })
            }
            AtomicOp::Min | AtomicOp::Max | AtomicOp::FMinimumNum | AtomicOp::FMaximumNum
                if propagates =>
            {
                weakenings.push(Weakening::NanRule {
                    ir_propagates: false,
                })
            }
            _ => {}
        }
    }
    if !weakenings.is_empty() {
        return Verdict::Weakened(weakenings);
    }
    let mut stronger = Vec::new();
    if order != ir.order {
        stronger.push(format!("order {} for {}", order, ir.order));
    }
    if scope != ir.scope {
        stronger.push(format!("scope {} for {}", scope, ir.scope));
    }
    if stronger.is_empty() {
        Verdict::Kept
    } else {
        Verdict::Strengthened(stronger)
    }
}

/// How many PTX atomics an IR atomic's match may lie past the next unclaimed one.
const RESYNC: usize = 8;

/// Audits the atomics of one function against its PTX parts, appending an entry per atomic;
/// returns the parts it matched.
pub(crate) fn audit_function(
    ir_source: &str,
    ptx_source: &str,
    function: &str,
    atomics: &[&LlAtomic],
    parts: &[PtxPart],
    entries: &mut Vec<Entry>,
) -> Vec<usize> {
    let mut used = Vec::new();
    let mut next = 0;
    // The line after the last atomic matched, or the function's header.
    let mut from = function_line(ptx_source, &super::ptx_name(function));
    for atomic in atomics {
        let ir = SourceLine {
            line: atomic.loc.line,
            text: ir_source.get(atomic.span.clone()).unwrap_or("").to_string(),
        };
        let mut entry = Entry {
            function: function.to_string(),
            ir,
            ptx: Vec::new(),
            verdict: Verdict::Kept,
        };
        if parts.is_empty() {
            entry.verdict = Verdict::Unmatched(format!(
                "the PTX has no atomic in a function named `{}`",
                super::ptx_name(function)
            ));
            entries.push(entry);
            continue;
        }
        if let Some(fence) = atomic.fence() {
            match parts.get(next) {
                Some(part) if part.is_fence() => {
                    let (order, scope) = part.order_scope();
                    let mut weakenings = Vec::new();
                    if !order.implies(fence.order) {
                        weakenings.push(Weakening::Order {
                            ir: fence.order,
                            ptx: order,
                            split: false,
                        });
                    }
                    if !scope.includes(fence.scope) {
                        weakenings.push(Weakening::Scope {
                            ir: fence.scope,
                            ptx: scope,
                        });
                    }
                    entry.verdict = if !weakenings.is_empty() {
                        Verdict::Weakened(weakenings)
                    } else if order != fence.order || scope != fence.scope {
                        Verdict::Strengthened(vec![format!("fence.{order}.{scope}")])
                    } else {
                        Verdict::Kept
                    };
                    entry.ptx.push(SourceLine {
                        line: part.line,
                        text: part.text.clone(),
                    });
                    used.push(next);
                    from = from.max(part.line + 1);
                    next += 1;
                }
                _ => entry.verdict = Verdict::Weakened(vec![Weakening::FenceDropped]),
            }
            entries.push(entry);
            continue;
        }
        let Some(node) = atomic.node() else { continue };
        // PTX atomics that no IR instruction made (a call of an NVVM atomic intrinsic) stand
        // between: a match a few parts on leaves them unclaimed, and the report lists them.
        let found = (next..parts.len().min(next + RESYNC))
            .find_map(|at| match_access(&node, parts, at).map(|group| (at, group)));
        match found.map(|(_, group)| group) {
            Some(group) => {
                entry.verdict = judge(&node, atomic, (ptx_source, from), parts, &group);
                for index in group.parts() {
                    from = from.max(parts[index].line + 1);
                    entry.ptx.push(SourceLine {
                        line: parts[index].line,
                        text: parts[index].text.clone(),
                    });
                    used.push(index);
                    next = next.max(index + 1);
                }
            }
            None => {
                let found = parts.get(next).map_or_else(
                    || "no PTX atomic is left in the function".to_string(),
                    |p| {
                        format!(
                            "the next PTX atomic, line {}: `{}`, is no shape of it",
                            p.line, p.text
                        )
                    },
                );
                entry.verdict = Verdict::Unmatched(found);
            }
        }
        entries.push(entry);
    }
    used
}

/// The line of the header of PTX function `name` (`.entry name(`, `.func name(`), or 1.
fn function_line(ptx_source: &str, name: &str) -> u32 {
    ptx_source
        .lines()
        .position(|line| {
            (line.contains(".entry") || line.contains(".func"))
                && line
                    .split(|c: char| c.is_whitespace() || c == '(')
                    .any(|w| w == name)
        })
        .map_or(1, |index| index as u32 + 1)
}

/// The report as text (see [`Report::render`]).
pub(crate) fn render(report: &Report, ir_name: &str, ptx_name: &str) -> String {
    let mut out = String::new();
    for entry in &report.entries {
        let word = match &entry.verdict {
            Verdict::Kept => "kept".to_string(),
            Verdict::Strengthened(how) => format!("strengthened ({})", how.join(", ")),
            Verdict::Weakened(how) => {
                let how: Vec<String> = how.iter().map(ToString::to_string).collect();
                format!("WEAKENED: {}", how.join("; "))
            }
            Verdict::Unmatched(why) => format!("UNMATCHED: {why}"),
        };
        let _ = writeln!(out, "{ir_name}:{}: {word}", entry.ir.line);
        let _ = writeln!(out, "  ir:  {}", entry.ir.text);
        for line in &entry.ptx {
            let _ = writeln!(out, "  ptx: {ptx_name}:{}: {}", line.line, line.text);
        }
    }
    for (function, line) in &report.unclaimed {
        let _ = writeln!(
            out,
            "{ptx_name}:{}: no IR atomic (in {function}): {}",
            line.line, line.text
        );
    }
    for error in &report.ir_errors {
        let _ = writeln!(out, "{}", error.render(ir_name));
    }
    for error in &report.ptx_errors {
        let _ = writeln!(out, "{ptx_name}:{error}");
    }
    let kept = report
        .entries
        .iter()
        .filter(|e| e.verdict == Verdict::Kept)
        .count();
    let strengthened = report
        .entries
        .iter()
        .filter(|e| matches!(e.verdict, Verdict::Strengthened(_)))
        .count();
    let _ = writeln!(
        out,
        "{} atomics: {kept} kept, {strengthened} strengthened, {} weakened, {} unmatched",
        report.entries.len(),
        report.weakened(),
        report.unmatched()
    );
    out
}
