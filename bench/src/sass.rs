//! Reading SASS (nvdisasm's output) and PTX text per function: instruction counts, hardware CAS
//! loops, and whether a PTX function still carries the ordering and scope its node asked for.

use std::collections::HashMap;

use atomir_ir::matrix::Cell;
use atomir_ir::{MemoryOrder, Scope};
use atomir_tests::loops::Listing;

/// What one function's SASS looks like.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SassSummary {
    /// Instructions, without the NOP padding and the `BRA` to itself after the last `EXIT`.
    pub instructions: usize,
    /// A compare-and-swap inside a loop (a backward branch to at or before it).
    pub cas_loop: bool,
}

/// One function's instructions (offset, text) and label offsets while it is being read.
struct FunctionText {
    name: String,
    instructions: Vec<(u32, String)>,
    labels: HashMap<String, u32>,
}

/// The function a `.section .text.<name>` line of `nvdisasm` output opens, if it is one.
fn text_section_name(line: &str) -> Option<String> {
    let section = line
        .strip_prefix(".section\t.text.")
        .or_else(|| line.strip_prefix(".section .text."))?;
    Some(
        section
            .split([',', ' ', '\t'])
            .next()
            .unwrap_or_default()
            .to_string(),
    )
}

/// Splits `nvdisasm` output into functions and summarizes each.
pub fn summarize_sass(disassembly: &str) -> HashMap<String, SassSummary> {
    let mut functions = HashMap::new();
    let mut current: Option<FunctionText> = None;
    let mut pending_labels: Vec<String> = Vec::new();
    let finish = |functions: &mut HashMap<String, SassSummary>, done: Option<FunctionText>| {
        if let Some(f) = done {
            functions.insert(f.name, summarize_function(&f.instructions, &f.labels));
        }
    };
    for line in disassembly.lines() {
        let trimmed = line.trim();
        if let Some(name) = text_section_name(trimmed) {
            finish(&mut functions, current.take());
            current = Some(FunctionText {
                name,
                instructions: Vec::new(),
                labels: HashMap::new(),
            });
            continue;
        }
        let Some(function) = current.as_mut() else {
            continue;
        };
        if let Some(label) = trimmed.strip_suffix(':') {
            if label.starts_with(".L") {
                pending_labels.push(label.to_string());
            }
            continue;
        }
        if let Some((offset, text)) = parse_instruction(trimmed) {
            for label in pending_labels.drain(..) {
                function.labels.insert(label, offset);
            }
            function.instructions.push((offset, text));
        }
    }
    finish(&mut functions, current);
    functions
}

/// Splits `nvdisasm` output into each function's own text (its section, labels and
/// instructions), by function name.
pub fn sass_functions(disassembly: &str) -> HashMap<String, String> {
    let mut functions = HashMap::new();
    let mut current: Option<(String, String)> = None;
    for line in disassembly.lines() {
        let trimmed = line.trim();
        if let Some(name) = text_section_name(trimmed) {
            if let Some((name, text)) = current.take() {
                functions.insert(name, text);
            }
            current = Some((name, String::new()));
        }
        if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    if let Some((name, text)) = current {
        functions.insert(name, text);
    }
    functions
}

/// `/*0070*/   ATOMG.E.ADD.STRONG.GPU PT, R2, [R2.64], R5 ;` → (0x70, "ATOMG…").
fn parse_instruction(line: &str) -> Option<(u32, String)> {
    let rest = line.strip_prefix("/*")?;
    let (offset, text) = rest.split_once("*/")?;
    let offset = u32::from_str_radix(offset.trim(), 16).ok()?;
    let text = text.trim().trim_end_matches(';').trim();
    if text.is_empty() || !text.chars().next()?.is_ascii_alphabetic() && !text.starts_with('@') {
        return None;
    }
    Some((offset, text.to_string()))
}

fn opcode(text: &str) -> &str {
    let text = if text.starts_with('@') {
        text.split_once(' ').map_or(text, |(_, t)| t.trim())
    } else {
        text
    };
    text.split_whitespace().next().unwrap_or_default()
}

fn summarize_function(
    instructions: &[(u32, String)],
    labels: &HashMap<String, u32>,
) -> SassSummary {
    let last_exit = instructions.iter().rposition(|(_, t)| opcode(t) == "EXIT");
    let counted = instructions
        .iter()
        .enumerate()
        .filter(|(index, (_, text))| {
            let op = opcode(text);
            let padding =
                op == "NOP" || (op == "BRA" && last_exit.is_some_and(|exit| *index > exit));
            !padding
        });
    let instructions_count = counted.count();
    let cas_offsets: Vec<u32> = instructions
        .iter()
        .filter(|(_, t)| opcode(t).contains("CAS"))
        .map(|(offset, _)| *offset)
        .collect();
    let cas_loop = instructions.iter().any(|(offset, text)| {
        opcode(text) == "BRA"
            && branch_target(text, labels).is_some_and(|target| {
                target <= *offset && cas_offsets.iter().any(|c| *c >= target && *c <= *offset)
            })
    });
    SassSummary {
        instructions: instructions_count,
        cas_loop,
    }
}

fn branch_target(text: &str, labels: &HashMap<String, u32>) -> Option<u32> {
    let start = text.find("`(")? + 2;
    let end = text[start..].find(')')? + start;
    labels.get(&text[start..end]).copied()
}

/// The forms in one PTX function that explain a longer SASS than another compiler's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PtxForms {
    /// A compare-and-swap (`atom.cas`), in a loop or not.
    pub cas: bool,
    /// An `atom.cas.b16`, which ptxas carries out as a 32-bit CAS loop of its own.
    pub cas_b16: bool,
    /// Lanes of a warp combined before one of them performs the atomic (`match.any.sync` or
    /// `redux.sync`).
    pub warp_combined: bool,
    /// An integer `atom.min`/`atom.max`.
    pub integer_min_max: bool,
    /// A fence (`fence.*`, `membar.*`) between a label and a later branch back to it: one that
    /// runs on every retry of a loop.
    pub fence_in_loop: bool,
    /// PTX instructions of the function's body: lines that are neither a directive, a label, a
    /// brace nor a comment (the parameter loads and result stores of the kernel included).
    pub instructions: usize,
    /// Atomic accesses (`atom`, `red`, `ld`, `st`) that carry an order themselves (`.acquire`,
    /// `.release`, `.acq_rel`).
    pub ordered_accesses: usize,
}

impl PtxForms {
    /// The forms of `function`'s instructions.
    pub fn of(function: &str) -> Self {
        let mut forms = PtxForms::default();
        for line in function.lines() {
            forms.instructions += usize::from(is_ptx_instruction(line));
            let Some(opcode) = line.split_whitespace().find(|t| !t.starts_with('@')) else {
                continue;
            };
            let parts = || opcode.trim_end_matches(';').split('.');
            let access = ["atom.", "red.", "ld.", "st."]
                .iter()
                .any(|head| opcode.starts_with(head));
            forms.ordered_accesses += usize::from(
                access && parts().any(|p| matches!(p, "acquire" | "release" | "acq_rel")),
            );
            if opcode.starts_with("atom.") {
                forms.cas |= parts().any(|p| p == "cas");
                forms.cas_b16 |= parts().any(|p| p == "cas") && parts().any(|p| p == "b16");
                forms.integer_min_max |= parts().any(|p| p == "min" || p == "max")
                    && parts().any(|p| matches!(p, "s32" | "u32" | "s64" | "u64"));
            }
            forms.warp_combined |= opcode.starts_with("match.any.") || opcode.starts_with("redux.");
        }
        forms.fence_in_loop = fence_in_loop(function);
        forms
    }
}

/// Whether a line of a PTX function's text is an instruction.
fn is_ptx_instruction(line: &str) -> bool {
    let line = line.split("//").next().unwrap_or_default().trim();
    !(line.is_empty()
        || line.starts_with('.')
        || line.starts_with('{')
        || line.starts_with('}')
        || line.starts_with(')')
        || line.ends_with(':'))
}

/// Whether a fence lies between a label of `function` and a later branch back to it.
fn fence_in_loop(function: &str) -> bool {
    let lines = Listing::Ptx.code_lines(function);
    Listing::Ptx.loops(function).iter().any(|found| {
        lines[found.label..found.back]
            .iter()
            .any(|line| line.starts_with("fence.") || line.starts_with("membar."))
    })
}

/// Splits PTX text into its `.entry` functions by name, each followed by the `.func`s it calls
/// (atomir defines a warp-combined form once per module as a `.func`): all the code it runs.
pub fn ptx_functions(ptx: &str) -> HashMap<String, String> {
    atomir_tests::ptx::entry_code(ptx).into_iter().collect()
}

/// Whether a PTX function still carries the order and scope of its cell: an acquire part needs
/// `.acquire`/`.acq_rel` or a fence, a release part `.release`/`.acq_rel` or a fence, seq_cst a
/// `fence.sc` (or `membar`), and every atomic, reduction, fence and membar must be at least as
/// wide as the cell's scope (a wider one is correct, a narrower one is not; an `atom`/`red`
/// without a scope is `.gpu`).
pub fn ptx_keeps_order_and_scope(function: &str, cell: &Cell) -> bool {
    let has = |needle: &str| function.contains(needle);
    let fence = has("fence.") || has("membar.");
    let order_kept = match cell.order {
        MemoryOrder::Relaxed => true,
        MemoryOrder::Acquire => has(".acquire") || has(".acq_rel") || fence,
        MemoryOrder::Release => has(".release") || has(".acq_rel") || fence,
        MemoryOrder::AcqRel => has(".acq_rel") || (has(".acquire") && has(".release")) || fence,
        MemoryOrder::SeqCst => has("fence.sc") || has("membar."),
    };
    let scope_kept = function
        .lines()
        .filter_map(synchronizing_scope)
        .all(|scope| scope.includes(cell.scope));
    order_kept && scope_kept
}

/// The scope of a PTX line that synchronizes (`atom`, `red`, `fence`, `membar`), if it is one.
fn synchronizing_scope(line: &str) -> Option<Scope> {
    let mut tokens = line.split_whitespace();
    let mut opcode = tokens.next()?;
    if opcode.starts_with('@') {
        opcode = tokens.next()?;
    }
    // An operand-less instruction ends in its `;` (`fence.sc.sys;`).
    let opcode = opcode.trim_end_matches(';');
    let is_sync = ["atom.", "red.", "fence.", "membar."]
        .iter()
        .any(|p| opcode.starts_with(p));
    if !is_sync {
        return None;
    }
    let has = |part: &str| opcode.split('.').any(|p| p == part);
    let scope = if has("sys") {
        Scope::System
    } else if has("gpu") || has("gl") {
        Scope::Device
    } else if has("cluster") {
        Scope::Cluster
    } else if has("cta") {
        Scope::Block
    } else {
        Scope::Device
    };
    Some(scope)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
\t.section\t.text.loop_fn,\"ax\",@progbits
        /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_0:
        /*0010*/                   LD.E R4, desc[UR4][R2.64] ;
        /*0020*/                   ATOMG.E.CAS.STRONG.GPU PT, R6, [R2.64], R4, R5 ;
        /*0030*/                   ISETP.NE.AND P0, PT, R6, R4, PT ;
        /*0040*/               @P0 BRA `(.L_x_0) ;
        /*0050*/                   EXIT ;
.L_x_1:
        /*0060*/                   BRA `(.L_x_1);
        /*0070*/                   NOP;
\t.section\t.text.plain_fn,\"ax\",@progbits
        /*0000*/                   ATOMG.E.ADD.STRONG.GPU PT, R2, [R2.64], R5 ;
        /*0010*/                   EXIT ;
";

    #[test]
    fn scope_check_accepts_wider_and_rejects_narrower() {
        let cell = |scope| Cell {
            op: atomir_ir::AtomicOp::Add,
            ty: atomir_ir::ElemType::U32,
            shape: atomir_ir::VectorShape::Scalar,
            order: MemoryOrder::Relaxed,
            scope,
            space: atomir_ir::AddressSpace::Global,
            result_used: true,
            laxity: None,
        };
        let gpu = "\tatom.global.add.u32 %r1, [%rd1], %r2;\n";
        let sys = "\tatom.relaxed.sys.global.add.u32 %r1, [%rd1], %r2;\n";
        let cta = "\t@%p1 atom.relaxed.cta.shared::cta.add.u32 %r1, [%rd1], %r2;\n";
        assert!(ptx_keeps_order_and_scope(gpu, &cell(Scope::Block)));
        assert!(ptx_keeps_order_and_scope(gpu, &cell(Scope::Device)));
        assert!(!ptx_keeps_order_and_scope(gpu, &cell(Scope::System)));
        assert!(ptx_keeps_order_and_scope(sys, &cell(Scope::System)));
        assert!(!ptx_keeps_order_and_scope(cta, &cell(Scope::Device)));
        assert!(ptx_keeps_order_and_scope(cta, &cell(Scope::Block)));
        let fenced = "\tfence.sc.sys;\n\tatom.acquire.sys.global.cas.b32 %r4, [%rd1], %r1, %r3;\n";
        let seq_cst_system = Cell {
            order: MemoryOrder::SeqCst,
            ..cell(Scope::System)
        };
        assert!(ptx_keeps_order_and_scope(fenced, &seq_cst_system));
        let narrow_fence =
            "\tfence.sc.gpu;\n\tatom.acquire.sys.global.cas.b32 %r4, [%rd1], %r1, %r3;\n";
        assert!(!ptx_keeps_order_and_scope(narrow_fence, &seq_cst_system));
    }

    #[test]
    fn reads_the_forms_of_a_ptx_function() {
        let b16_loop = "\tatom.relaxed.gpu.global.cas.b16 %h5, [%rd0], %h2, %h4;\n";
        assert_eq!(
            PtxForms::of(b16_loop),
            PtxForms {
                cas: true,
                cas_b16: true,
                instructions: 1,
                ..PtxForms::default()
            }
        );
        let float_max = "\t@%p1 atom.relaxed.gpu.global.max.s32 %r1, [%rd1], %r2;\n\
                         \tatom.relaxed.gpu.global.cas.b32 %r4, [%rd1], %r1, %r3;\n";
        let forms = PtxForms::of(float_max);
        assert!(forms.integer_min_max && forms.cas && !forms.cas_b16);
        let combined = "\tmatch.any.sync.b64 %r1, %rd1, %r2;\n\tred.global.add.u32 [%rd1], %r3;\n";
        let forms = PtxForms::of(combined);
        assert!(forms.warp_combined && !forms.cas && forms.instructions == 2);
        // A float max is no integer one, and `cas` elsewhere in a line is no compare-and-swap.
        let native = "\tatom.global.max.f32 %f1, [%rd1], %f2; // cas.b16\n";
        let one_instruction = PtxForms {
            instructions: 1,
            ..PtxForms::default()
        };
        assert_eq!(PtxForms::of(native), one_instruction);
        // A fence on every retry (llc's seq_cst loop), and fences only around a loop (ours).
        let fenced_retry = "$L__BB0_1:                // %.0.b1\n\tfence.sc.sys;\n\tatom.acquire.sys.shared.cas.b32 \
                            %r2, [%rd1], %r6, %r1;\n\tsetp.ne.b32 %p1, %r2, %r6;\n\t@%p1 bra \
                            $L__BB0_1;\n";
        assert!(PtxForms::of(fenced_retry).fence_in_loop);
        let lean = "\tfence.sc.sys;\n$L0_b1:\n\tatom.relaxed.sys.shared::cta.cas.b32 %_r8, \
                    [%_d0], %_r6, %_r4;\n\t@!%_p0 bra $L0_b1;\n$L0_b2:\n\tfence.acquire.sys;\n";
        assert!(!PtxForms::of(lean).fence_in_loop);
        // A vector's elements with the order on each, and the same between one pair of fences.
        let on_each = "\tatom.acquire.gpu.global.add.s32 %r2, [%rd1], %r1;\n\
                       \tatom.acquire.gpu.global.add.s32 %r3, [%rd1+4], %r4;\n";
        assert_eq!(PtxForms::of(on_each).ordered_accesses, 2);
        let fenced = "\tatom.relaxed.gpu.global.add.s32 %r2, [%rd1], %r1;\n\
                      \tld.param.u64 %rd2, [p];\n\tfence.acquire.gpu;\n";
        assert_eq!(PtxForms::of(fenced).ordered_accesses, 0);
        // A forward branch over a fence is no loop.
        let forward = "\t@%p1 bra $L1;\n\tfence.sc.sys;\n$L1:\n";
        assert!(!PtxForms::of(forward).fence_in_loop);
    }

    #[test]
    fn splits_ptx_by_function() {
        let ptx = ".visible .entry f(\n)\n{\n\tret;\n}\n\n.visible .entry g(\n)\n{\n\tret;\n}\n";
        let functions = ptx_functions(ptx);
        assert_eq!(functions["f"], ".visible .entry f(\n)\n{\n\tret;\n}\n\n");
        assert!(functions["g"].starts_with(".visible .entry g("));
        // A called function follows each entry that calls it.
        let shared = ".func (.param .b32 r) s(.param .b64 a)\n{\n\tret;\n}\n\n\
                      .visible .entry f(\n)\n{\n\tcall (r), s, (a);\n}\n\n\
                      .visible .entry g(\n)\n{\n\tret;\n}\n";
        let functions = ptx_functions(shared);
        assert!(functions["f"]
            .ends_with("}\n\n.func (.param .b32 r) s(.param .b64 a)\n{\n\tret;\n}\n\n"));
        assert!(!functions["g"].contains(".func"));
    }

    #[test]
    fn splits_sass_by_function() {
        let functions = sass_functions(SAMPLE);
        assert_eq!(functions.len(), 2);
        assert!(functions["loop_fn"].contains("ATOMG.E.CAS"));
        assert!(!functions["loop_fn"].contains("ATOMG.E.ADD"));
        assert!(functions["plain_fn"].contains("ATOMG.E.ADD"));
    }

    #[test]
    fn finds_functions_counts_and_loops() {
        let summaries = summarize_sass(SAMPLE);
        assert_eq!(
            summaries["loop_fn"],
            SassSummary {
                instructions: 6,
                cas_loop: true
            }
        );
        assert_eq!(
            summaries["plain_fn"],
            SassSummary {
                instructions: 2,
                cas_loop: false
            }
        );
    }
}
