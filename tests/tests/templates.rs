//! Text templates ([`atomir_ir::lower::Template`]) change no byte: random modules whose every
//! instruction is repeated (so that later copies replay the first one's template, with other
//! results, temporaries and labels) lower to the same code as with a printer that prints every
//! expansion afresh, for every backend, as listings and as complete modules.

use atomir_ir::expand::{Block, Prim, Var};
use atomir_ir::lower::{
    lower_with, At, Expanding, Fence, FenceBracket, Label, Params, Printer, Target, Unprintable,
};
use atomir_ir::{text, verify, AddressSpace, Inst, Kernel, LowerOptions, Module};
use atomir_llvm::LlvmTarget;
use atomir_ptx::PtxTarget;
use atomir_tests::random::{module, Config};
use atomir_visa::VisaTarget;

/// A printer's hooks without its recorder: every expansion printed afresh. Its hooks are
/// handed the expansion without its key, so that the printer keeps nothing of one
/// instruction for the next (vISA's replayed temp allocations).
struct Afresh<P>(P);

/// `x` without its expansion's key.
fn unkeyed<'a, P>(x: &Expanding<'a, P>) -> Expanding<'a, P> {
    Expanding {
        expansion_key: None,
        ..*x
    }
}

impl<'m, P: Printer<'m>> Printer<'m> for Afresh<P> {
    type Plan = P::Plan;
    const PARAMS: Params = P::PARAMS;
    const BRACKETS_EXPANSIONS: bool = P::BRACKETS_EXPANSIONS;
    const HEADS_KERNEL_AT_END: bool = P::HEADS_KERNEL_AT_END;

    fn generic_params_space(&self) -> AddressSpace {
        self.0.generic_params_space()
    }

    fn code<'a>(&'a self, out: &'a str) -> &'a str {
        self.0.code(out)
    }

    fn module_begin(&mut self, module: &'m Module, out: &mut String) {
        self.0.module_begin(module, out);
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String) {
        self.0.kernel_begin(kernel, index, out);
    }

    fn whole(
        &mut self,
        at: At<'_>,
        plan: &P::Plan,
        bracket: FenceBracket,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.0.whole(at, plan, bracket, out)
    }

    fn fence(
        &mut self,
        inst: Inst,
        fence: &atomir_ir::Fence,
        plan: &P::Plan,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.0.fence(inst, fence, plan, out)
    }

    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.0.expansion_begin(&unkeyed(x), out)
    }

    fn block(&mut self, x: &Expanding<'_, P::Plan>, block: Block, entry: bool, out: &mut String) {
        self.0.block(&unkeyed(x), block, entry, out);
    }

    fn prim(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.0.prim(&unkeyed(x), prim, bracket, out)
    }

    fn copy(&mut self, x: &Expanding<'_, P::Plan>, dst: Var, src: Var, out: &mut String) {
        self.0.copy(&unkeyed(x), dst, src, out);
    }

    fn branch(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        cond: Var,
        negated: bool,
        to: Label,
        out: &mut String,
    ) {
        self.0.branch(&unkeyed(x), cond, negated, to, out);
    }

    fn jump(&mut self, x: &Expanding<'_, P::Plan>, to: Label, out: &mut String) {
        self.0.jump(&unkeyed(x), to, out);
    }

    fn label(&mut self, x: &Expanding<'_, P::Plan>, label: Label, out: &mut String) {
        self.0.label(&unkeyed(x), label, out);
    }

    fn terminator(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        block: Block,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.0.terminator(&unkeyed(x), block, out)
    }

    fn expansion_fence(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        fence: Fence,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.0.expansion_fence(&unkeyed(x), fence, out)
    }

    fn expansion_end(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.0.expansion_end(&unkeyed(x), out)
    }

    fn kernel_end(&mut self, out: &mut String) {
        self.0.kernel_end(out);
    }

    fn module_end(&mut self, out: &mut String) {
        self.0.module_end(out);
    }
}

/// `source` with the instructions of each kernel repeated `copies` more times after them,
/// each result renamed: a copy then meets other temporaries and labels than its original.
fn repeated(source: &str, copies: usize) -> String {
    let mut out = String::new();
    let mut body: Vec<&str> = Vec::new();
    for line in source.lines() {
        if line.starts_with("  ") {
            body.push(line);
        } else {
            for copy in 1..=copies {
                for line in body.iter().filter(|line| line.contains("atomic.")) {
                    let renamed = match line.find(" = atomic.") {
                        Some(end) => {
                            let start = line[..end].rfind(' ').map_or(0, |space| space + 1);
                            let (before, name) = (&line[..start], &line[start..end]);
                            format!("{before}{name}_t{copy}{}", &line[end..])
                        }
                        None => line.to_string(),
                    };
                    out.push_str(&renamed);
                    out.push('\n');
                }
            }
            body.clear();
        }
        out.push_str(line);
        out.push('\n');
        if line.starts_with("  ") {
            continue;
        }
    }
    out
}

/// Lowers `source` for `target` with and without templates, as a listing and as a module:
/// how many lowerings succeeded (and were compared).
fn compare<T: Target>(target: &T, name: &str, source: &str) -> usize {
    let Ok(module) = text::parse(source) else {
        return 0;
    };
    let Ok(verified) = verify::verify(&module) else {
        return 0;
    };
    let mut lowered = 0;
    for options in [LowerOptions::fragment(), LowerOptions::module()] {
        let (mut replayed, mut afresh) = (String::new(), String::new());
        let with = lower_with(target, target.printer(&options), &verified, &mut replayed);
        let without = lower_with(
            target,
            Afresh(target.printer(&options)),
            &verified,
            &mut afresh,
        );
        assert_eq!(with, without, "{name}: the reports differ for\n{source}");
        if replayed != afresh {
            let line = replayed
                .lines()
                .zip(afresh.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{name}: line {} differs: `{}` replayed, `{}` afresh, for\n{source}",
                line + 1,
                replayed.lines().nth(line).unwrap_or(""),
                afresh.lines().nth(line).unwrap_or(""),
            );
        }
        lowered += usize::from(with.is_ok());
    }
    lowered
}

/// A kernel of `count` atomics drawn from a couple of dozen kinds (of one seed's choosing) with
/// varied operands, results and predicates: every kind recurs after varied others, so that
/// a template is replayed where other temporaries are free than where it was recorded.
fn kinds_kernel(seed: u64, count: usize) -> String {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let types = ["u32", "s32", "u64", "b32", "b64", "f32", "u16", "s64"];
    let orders = ["relaxed", "acquire", "release", "acq_rel", "seq_cst"];
    let mut text = String::from("kernel k(%g: ptr.global, %s: ptr.shared, %p: pred, %q: pred");
    for ty in types {
        text.push_str(&format!(", %a_{ty}: {ty}, %b_{ty}: {ty}"));
    }
    text.push_str(") {\n");
    let kinds: Vec<_> = (0..24)
        .map(|_| {
            let ty = types[next(types.len())];
            let ops: &[&str] = match ty {
                "f32" => &["add", "min", "max", "exch", "load"],
                "b32" | "b64" => &["and", "or", "xor", "exch", "cas", "load"],
                "u32" | "u64" => &["add", "min", "max", "xor", "exch", "cas", "inc", "dec"],
                _ => &["add", "sub", "min", "max", "exch", "cas", "load"],
            };
            let op = ops[next(ops.len())];
            let order = match (op, orders[next(orders.len())]) {
                ("load", "release" | "acq_rel") => "acquire",
                (_, order) => order,
            };
            let (space, scope) = match next(3) {
                0 => ("shared", "block"),
                _ => ("global", ["device", "system", "block"][next(3)]),
            };
            (ty, op, order, space, scope)
        })
        .collect();
    let mut results: Vec<Vec<String>> = vec![Vec::new(); types.len()];
    for index in 0..count {
        let (ty, op, order, space, scope) = kinds[next(kinds.len())];
        let t = types.iter().position(|&other| other == ty).unwrap_or(0);
        let operand = |next: &mut dyn FnMut(usize) -> usize| match next(4) {
            0 if !results[t].is_empty() => results[t][next(results[t].len())].clone(),
            0 | 1 => ["1", "7", "255"][next(3)].to_string(),
            _ => format!("%{}_{ty}", ["a", "b"][next(2)]),
        };
        let args = match op {
            "load" => String::new(),
            "cas" => format!(", {}, {}", operand(&mut next), operand(&mut next)),
            _ => format!(", {}", operand(&mut next)),
        };
        let predicate = ["", "", "@%p ", "@!%q "][next(4)];
        let used = op == "load" || next(3) > 0;
        let result = if used {
            format!("%r{index} = ")
        } else {
            String::new()
        };
        let pointer = if space == "shared" { "%s" } else { "%g" };
        text.push_str(&format!(
            "  {predicate}{result}atomic.{op}.{order}.{scope}.{space}.{ty} [{pointer}]{args}\n"
        ));
        if used {
            results[t].push(format!("%r{index}"));
        }
    }
    text.push_str("}\n");
    text
}

#[test]
fn replayed_templates_print_what_printing_afresh_does() {
    let config = Config {
        wild_names: false,
        max_insts: 24,
        ..Config::default()
    };
    let ptx = ["sm_90", "sm_70", "sm_60"].map(|sm| PtxTarget::parse(sm).unwrap());
    let visa = ["PVC", "TGLLP", "DG2", "MTL", "PVC+svm"].map(|p| VisaTarget::parse(p).unwrap());
    let llvm = [
        "nvptx64@22",
        "amdgcn",
        "spirv64",
        "x86_64",
        "spirv-vulkan@23",
        "nvptx64@14",
    ]
    .map(|triple| LlvmTarget::parse(triple).unwrap());
    let (mut sources, mut lowered) = (0, 0);
    for seed in 0..600 {
        let generated = module(seed, &config);
        let source = repeated(&text::print(&generated.module), 2);
        if text::parse(&source).is_err() {
            continue;
        }
        sources += 1;
        for target in &ptx {
            lowered += compare(target, "ptx", &source);
        }
        for target in &visa {
            lowered += compare(target, "visa", &source);
        }
        for target in &llvm {
            lowered += compare(target, "llvm", &source);
        }
    }
    for seed in 0..8 {
        // Two kernels of the same kinds, their parameters named otherwise: a template is
        // the text of its own kernel.
        let first = kinds_kernel(seed, 400);
        let second = first
            .replace("kernel k(", "kernel k2(")
            .replace("%a_", "%c_");
        let source = format!("{first}{second}");
        assert!(text::parse(&source).is_ok(), "{source}");
        sources += 1;
        for target in &ptx {
            lowered += compare(target, "ptx", &source);
        }
        for target in &visa {
            lowered += compare(target, "visa", &source);
        }
        for target in &llvm {
            lowered += compare(target, "llvm", &source);
        }
    }
    assert!(sources >= 400, "only {sources} repeated modules parse");
    assert!(lowered >= 2000, "only {lowered} lowerings to compare");
}
