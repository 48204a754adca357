//! What the matched PTX gives each IR atomic, against what the IR asks: order, scope, flushing
//! and NaN rule; and the report's text.

use std::fmt::Write;

use atomir_ir::{AtomicNode, AtomicOp, FloatLaxity, MemoryOrder, Scope};
use atomir_llvm::read::LlAtomic;

use super::flow::Flow;
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

/// The float min/max instructions on the PTX lines run from line `from` to the group's last
/// part (in flow order): whether any propagates NaNs (`.NaN`) and whether any ignores them,
/// unless a NaN test on those lines (`setp.nan`, `testp.notanumber`) picks the NaN itself, as
/// a fix-up of a plain min/max into one that propagates NaNs does. A loop's first load may be
/// a plain `ld`, which is no atomic, so the lines start after the previous atomic's.
fn float_min_max(
    (ptx_source, flow): (&str, &Flow),
    from: u32,
    parts: &[PtxPart],
    group: &Group,
) -> (bool, bool) {
    let Some(&last) = group.parts().last() else {
        return (false, false);
    };
    let lines: Vec<&str> = ptx_source.lines().collect();
    let (mut propagates, mut ignores, mut tests_nan) = (false, false, false);
    for (first, end) in flow.ranges(from, parts[last].line) {
        for line in lines
            .iter()
            .take(end as usize)
            .skip((first as usize).saturating_sub(1))
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
    }
    (propagates || (ignores && tests_nan), ignores && !tests_nan)
}

fn judge(
    ir: &AtomicNode,
    atomic: &LlAtomic,
    (ptx_source, flow, from): (&str, &Flow, u32),
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
        let (propagates, ignores) = float_min_max((ptx_source, flow), from, parts, group);
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

/// How many PTX atomics a CAS loop matched to an IR atomic may lie past the place the previous
/// one ended.
const RESYNC: usize = 8;

/// The parts of `node` among those no other atomic took, and where they start: the shape at
/// `next`; else one instruction of its op (its split, integer min/max) after `next`, then
/// before it (blocks that llc laid out in another order); else a CAS loop starting at one of
/// the [`RESYNC`] free parts after `next`.
fn find_group(
    node: &AtomicNode,
    parts: &[PtxPart],
    taken: &[bool],
    next: usize,
) -> Option<(usize, Group)> {
    let free = |group: &Group| group.parts().iter().all(|&i| !taken[i]);
    let at = |start: usize, loops: bool| {
        if taken.get(start).copied().unwrap_or(true) {
            return None;
        }
        let group = match_access(node, parts, start, loops).filter(free)?;
        Some((start, group))
    };
    at(next, true)
        .or_else(|| {
            ((next + 1)..parts.len())
                .chain(0..next)
                .find_map(|s| at(s, false))
        })
        .or_else(|| {
            ((next + 1)..parts.len())
                .filter(|&s| !taken[s])
                .take(RESYNC)
                .find_map(|s| at(s, true))
        })
}

/// What the search for an atomic's alternatives reads.
struct Context<'a> {
    ptx_source: &'a str,
    flow: &'a Flow,
    parts: &'a [PtxPart],
    taken: &'a [bool],
    part_blocks: &'a [Option<usize>],
}

/// Why `group` cannot be told to be the atomic's, and the other group it may be: another free
/// group of its shape lies in a block that neither runs before nor after the group's (the
/// other arm of a branch, which llc may have laid out first), with another verdict. `None`
/// where the match is the only one that matters.
fn ambiguity(
    node: &AtomicNode,
    atomic: &LlAtomic,
    context: &Context<'_>,
    group: &Group,
) -> Option<(String, Vec<usize>)> {
    let Context {
        ptx_source,
        flow,
        parts,
        taken,
        part_blocks,
    } = *context;
    let ours = group.parts();
    let anchor = part_blocks[*group.carriers.first()?];
    let verdict = |group: &Group| {
        let from = group
            .parts()
            .first()
            .map_or(1, |&first| flow.block_start(parts[first].line));
        judge(node, atomic, (ptx_source, flow, from), parts, group)
    };
    let mut ours_verdict = None;
    for start in 0..parts.len() {
        if taken[start] || ours.contains(&start) || flow.ordered(anchor, part_blocks[start]) {
            continue;
        }
        let loops = group.shape == Shape::CasLoop;
        let Some(other) = match_access(node, parts, start, loops) else {
            continue;
        };
        let free = other
            .parts()
            .iter()
            .all(|i| !taken[*i] && !ours.contains(i));
        if !free {
            continue;
        }
        let ours_verdict = ours_verdict.get_or_insert_with(|| verdict(group));
        if verdict(&other) != *ours_verdict {
            let why = format!(
                "ambiguous: its shape is at PTX line {} and at line {}, in blocks of which \
                 neither runs before the other (the arms of a branch, in the order llc laid \
                 them out), with different verdicts",
                parts[ours[0]].line,
                parts[other.parts()[0]].line
            );
            return Some((why, other.parts()));
        }
    }
    None
}

/// The first part from `at` on that no atomic took.
fn first_free(taken: &[bool], at: usize) -> usize {
    (at..taken.len())
        .find(|&i| !taken[i])
        .unwrap_or(taken.len())
}

/// The verdict of an IR fence against the PTX part at `next`, if that is a fence.
fn judge_fence(fence: &atomir_ir::Fence, part: Option<&PtxPart>) -> Option<Verdict> {
    let part = part.filter(|p| p.is_fence())?;
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
    Some(if !weakenings.is_empty() {
        Verdict::Weakened(weakenings)
    } else if order != fence.order || scope != fence.scope {
        Verdict::Strengthened(vec![format!("fence.{order}.{scope}")])
    } else {
        Verdict::Kept
    })
}

/// Audits the atomics of one function against its PTX parts (in flow order), appending an
/// entry per atomic; returns the parts it matched.
pub(crate) fn audit_function(
    (ir_source, ptx_source): (&str, &str),
    (function, flow): (&str, &Flow),
    atomics: &[&LlAtomic],
    parts: &[PtxPart],
    entries: &mut Vec<Entry>,
) -> Vec<usize> {
    let mut taken = vec![false; parts.len()];
    let part_blocks: Vec<Option<usize>> = parts.iter().map(|p| flow.block_of(p.line)).collect();
    // Parts another match could have been an earlier atomic's, with that atomic's IR line.
    let mut contested: Vec<Option<u32>> = vec![None; parts.len()];
    let mut next = 0;
    // The line of the last part matched, or where the function's code starts.
    let mut from = flow
        .start()
        .unwrap_or_else(|| function_line(ptx_source, &super::ptx_name(function)));
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
            let part = parts
                .get(next)
                .filter(|_| !taken.get(next).copied().unwrap_or(true));
            match judge_fence(&fence, part) {
                Some(verdict) => {
                    let part = &parts[next];
                    entry.verdict = verdict;
                    entry.ptx.push(SourceLine {
                        line: part.line,
                        text: part.text.clone(),
                    });
                    taken[next] = true;
                    from = part.line;
                    next = first_free(&taken, next + 1);
                }
                None => entry.verdict = Verdict::Weakened(vec![Weakening::FenceDropped]),
            }
            entries.push(entry);
            continue;
        }
        let Some(node) = atomic.node() else { continue };
        let found = find_group(&node, parts, &taken, next);
        if let Some((_, group)) = &found {
            let context = Context {
                ptx_source,
                flow,
                parts,
                taken: &taken,
                part_blocks: &part_blocks,
            };
            let contested_by = group.parts().iter().find_map(|&i| contested[i]);
            let why = match contested_by {
                Some(line) => Some(format!(
                    "ambiguous: its shape lies where the atomic on IR line {line} may also be, \
                     in arms of a branch whose order llc chose"
                )),
                None => ambiguity(&node, atomic, &context, group).map(|(why, other)| {
                    for index in other {
                        contested[index] = Some(atomic.loc.line);
                    }
                    why
                }),
            };
            if let Some(why) = why {
                // The parts are taken all the same, so that no later atomic matches them.
                for index in group.parts() {
                    taken[index] = true;
                }
                entry.verdict = Verdict::Unmatched(why);
                entries.push(entry);
                continue;
            }
        }
        match found {
            Some((start, group)) => {
                // The lines a loop's plain first load may lie on: after the previous atomic,
                // or in the group's own first block where it lies elsewhere.
                let scan_from = match group.parts().first() {
                    Some(&first) if start != next => flow.block_start(parts[first].line),
                    _ => from,
                };
                entry.verdict = judge(&node, atomic, (ptx_source, flow, scan_from), parts, &group);
                let indices = group.parts();
                for &index in &indices {
                    entry.ptx.push(SourceLine {
                        line: parts[index].line,
                        text: parts[index].text.clone(),
                    });
                    taken[index] = true;
                }
                // Matched where the previous atomic ended, the next one is looked for after
                // it; matched elsewhere (a block laid out away from the IR's order), the free
                // parts at the cursor are still the next atomic's.
                match indices.last() {
                    Some(&last) if start == next => {
                        from = parts[last].line;
                        next = first_free(&taken, last + 1);
                    }
                    _ => next = first_free(&taken, next),
                }
                entry.ptx.sort_by_key(|line| line.line);
            }
            None => {
                let found = parts.get(next).map_or_else(
                    || "no PTX atomic is left in the function".to_string(),
                    |p| {
                        format!(
                            "no PTX atomic of the function that no other IR atomic took has its \
                             shape (the next in flow order, line {}: `{}`)",
                            p.line, p.text
                        )
                    },
                );
                entry.verdict = Verdict::Unmatched(found);
            }
        }
        entries.push(entry);
    }
    (0..parts.len()).filter(|&i| taken[i]).collect()
}

/// The line of the header of PTX function `name` (`.entry name(`, `.func name(`), or 1.
pub(crate) fn function_line(ptx_source: &str, name: &str) -> u32 {
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
