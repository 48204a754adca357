//! Text templates ([`atomir_ir::lower::Template`]) change no byte: random modules whose every
//! instruction is repeated (so that later copies replay the first one's template, with other
//! results, temporaries and labels) lower to the same code as with a printer that prints every
//! expansion afresh, for every backend, as listings and as complete modules.

use std::cell::Cell;
use std::rc::Rc;

use atomir_ir::expand::{Block, Prim, Var};
use atomir_ir::lower::{
    lower_with, At, Expanding, Fence, FenceBracket, Hole, Label, Printer, Recorder, Replay, Style,
    Target, Unprintable,
};
use atomir_ir::{text, verify, AddressSpace, Inst, Kernel, LowerOptions, Module};
use atomir_llvm::LlvmTarget;
use atomir_ptx::PtxTarget;
use atomir_tests::random::{module, Config};
use atomir_visa::VisaTarget;

/// A backend's printer, either as it is (its replays counted) or without its replay: every
/// expansion printed afresh. Afresh, its hooks are handed the expansion without its key, so
/// that the printer keeps nothing of one instruction for the next (vISA's replayed temp
/// allocations).
struct Wrapped<P> {
    printer: P,
    afresh: bool,
    /// The holes filled by replays, counted where the caller can read them after the lowering
    /// has taken the printer.
    fills: Rc<Cell<usize>>,
}

impl<P> Wrapped<P> {
    fn new(printer: P, afresh: bool, fills: &Rc<Cell<usize>>) -> Self {
        Wrapped {
            printer,
            afresh,
            fills: Rc::clone(fills),
        }
    }

    /// `x`, without its expansion's key where printing afresh.
    fn unkeyed<'a, Q>(&self, x: &Expanding<'a, Q>) -> Expanding<'a, Q> {
        Expanding {
            expansion_key: if self.afresh { None } else { x.expansion_key },
            ..*x
        }
    }
}

// A plan holds nothing borrowed (so a replay of the wrapped printer may lend its recorder).
impl<'m, P: Printer<'m>> Replay<P::Plan> for Wrapped<P>
where
    P::Plan: 'static,
{
    fn recorder(&mut self) -> Option<&Recorder> {
        self.printer.replay()?.recorder()
    }

    fn shape(&mut self, x: &Expanding<'_, P::Plan>, shape: &mut Vec<u64>) -> bool {
        self.printer
            .replay()
            .is_some_and(|replay| replay.shape(x, shape))
    }

    fn fill(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        hole: Hole,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.fills.set(self.fills.get() + 1);
        match self.printer.replay() {
            Some(replay) => replay.fill(x, hole, out),
            None => Err(Unprintable("a hole for a printer without replay".into())),
        }
    }
}

impl<'m, P: Printer<'m>> Printer<'m> for Wrapped<P>
where
    P::Plan: 'static,
{
    type Plan = P::Plan;
    const STYLE: Style = P::STYLE;

    fn generic_params_space(&self) -> AddressSpace {
        self.printer.generic_params_space()
    }

    fn code<'a>(&'a self, out: &'a str) -> &'a str {
        self.printer.code(out)
    }

    fn module_begin(&mut self, module: &'m Module, out: &mut String) {
        self.printer.module_begin(module, out);
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String) {
        self.printer.kernel_begin(kernel, index, out);
    }

    fn whole(
        &mut self,
        at: At<'_>,
        plan: &P::Plan,
        bracket: FenceBracket,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.whole(at, plan, bracket, out)
    }

    fn fence(
        &mut self,
        inst: Inst,
        fence: &atomir_ir::Fence,
        plan: &P::Plan,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.fence(inst, fence, plan, out)
    }

    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.expansion_begin(&self.unkeyed(x), out)
    }

    fn expansion_done(&mut self, x: &Expanding<'_, P::Plan>) -> bool {
        self.printer.expansion_done(&self.unkeyed(x))
    }

    fn block(&mut self, x: &Expanding<'_, P::Plan>, block: Block, entry: bool, out: &mut String) {
        self.printer.block(&self.unkeyed(x), block, entry, out);
    }

    fn prim(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.prim(&self.unkeyed(x), prim, bracket, out)
    }

    fn copy(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        dst: Var,
        src: Var,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.copy(&self.unkeyed(x), dst, src, out)
    }

    fn branch(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        cond: Var,
        negated: bool,
        to: Label,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer
            .branch(&self.unkeyed(x), cond, negated, to, out)
    }

    fn jump(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        to: Label,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.jump(&self.unkeyed(x), to, out)
    }

    fn label(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        label: Label,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.label(&self.unkeyed(x), label, out)
    }

    fn terminator(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        block: Block,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.terminator(&self.unkeyed(x), block, out)
    }

    fn expansion_fence(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        fence: Fence,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.expansion_fence(&self.unkeyed(x), fence, out)
    }

    fn expansion_end(
        &mut self,
        x: &Expanding<'_, P::Plan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.printer.expansion_end(&self.unkeyed(x), out)
    }

    fn replay(&mut self) -> Option<&mut dyn Replay<P::Plan>> {
        if self.afresh {
            None
        } else {
            Some(self)
        }
    }

    fn kernel_end(&mut self, out: &mut String) {
        self.printer.kernel_end(out);
    }

    fn module_end(&mut self, out: &mut String) {
        self.printer.module_end(out);
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

/// What [`compare`] did: the lowerings compared, and the holes their replays filled.
#[derive(Default)]
struct Compared {
    lowered: usize,
    fills: usize,
}

/// Lowers `source` for `target` with and without templates, as a listing and as a module,
/// into `compared`.
fn compare<T: Target>(target: &T, name: &str, source: &str, compared: &mut Compared)
where
    T::Plan: 'static,
{
    let Ok(module) = text::parse(source) else {
        return;
    };
    let Ok(verified) = verify::verify(&module) else {
        return;
    };
    // Each instruction's code where it stands: a PTX printer handed the expansion keys would
    // otherwise call a warp-combined form it printed once, which the unkeyed one cannot
    // (`lower-ptx/tests/shared_forms.rs` covers that).
    let listing = LowerOptions::fragment().with_count_instructions(true);
    for options in [
        listing,
        LowerOptions::module().with_count_instructions(true),
    ] {
        let (mut replayed, mut afresh) = (String::new(), String::new());
        let fills = Rc::new(Cell::new(0));
        let replaying = Wrapped::new(target.printer(&options), false, &fills);
        let with = lower_with(target, replaying, &verified, &mut replayed);
        let without = lower_with(
            target,
            Wrapped::new(target.printer(&options), true, &fills),
            &verified,
            &mut afresh,
        );
        compared.fills += fills.get();
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
        compared.lowered += usize::from(with.is_ok());
    }
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
    let mut sources = 0;
    let (mut ptx_done, mut visa_done, mut llvm_done) = (
        Compared::default(),
        Compared::default(),
        Compared::default(),
    );
    for seed in 0..600 {
        let generated = module(seed, &config);
        let source = repeated(&text::print(&generated.module), 2);
        if text::parse(&source).is_err() {
            continue;
        }
        sources += 1;
        for target in &ptx {
            compare(target, "ptx", &source, &mut ptx_done);
        }
        for target in &visa {
            compare(target, "visa", &source, &mut visa_done);
        }
        for target in &llvm {
            compare(target, "llvm", &source, &mut llvm_done);
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
            compare(target, "ptx", &source, &mut ptx_done);
        }
        for target in &visa {
            compare(target, "visa", &source, &mut visa_done);
        }
        for target in &llvm {
            compare(target, "llvm", &source, &mut llvm_done);
        }
    }
    assert!(sources >= 400, "only {sources} repeated modules parse");
    let lowered = ptx_done.lowered + visa_done.lowered + llvm_done.lowered;
    assert!(lowered >= 2000, "only {lowered} lowerings to compare");
    // Every backend's second instruction of a plan is compared with printing afresh; vISA and
    // LLVM replay templates there (the holes they fill prove it), PTX prints afresh itself.
    for (name, done) in [
        ("ptx", &ptx_done),
        ("visa", &visa_done),
        ("llvm", &llvm_done),
    ] {
        eprintln!(
            "{name}: {} lowerings, {} holes filled",
            done.lowered, done.fills
        );
        assert!(
            done.lowered >= 100,
            "{name}: only {} lowerings",
            done.lowered
        );
    }
    assert_eq!(ptx_done.fills, 0, "PTX replays no template");
    assert!(
        visa_done.fills >= 10_000,
        "vISA filled only {} holes",
        visa_done.fills
    );
    assert!(
        llvm_done.fills >= 10_000,
        "LLVM filled only {} holes",
        llvm_done.fills
    );
}
