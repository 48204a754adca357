//! Random valid modules, deterministic by seed, covering what the text form allows.
//!
//! [`module`] builds a [`Module`] through the public API (`Kernel::add_param`, `constant`,
//! `vector`, `push`) and, alongside it, a text spelling of the same module that uses the text
//! form's freedoms: omitted default qualifiers, every literal spelling (decimal, hex in either
//! case with leading zeros, negative, `inf`/`nan`, float decimals with exponents), comments and
//! odd spacing. [`check_text_path`] parses that text (and the canonical print) back and compares
//! the result with the built module, field by field.
//!
//! What a module holds: 1–[`Config::max_kernels`] kernels, each of 1–[`Config::max_insts`]
//! instructions: atomics (read-modify-writes, loads and stores) of any op × type × shape ×
//! order × scope × space the verifier accepts, and fences of every order and scope; cache hints,
//! predicates and negated predicates, results read by later atomics (as scalars, vector values
//! and brace-list elements), repeated atomics, unused parameters of every type, and names chosen
//! to stress every backend's naming: `$`, `_`, numbers, keywords and special registers of PTX,
//! vISA and LLVM, names shaped like the backends' own temporaries, labels and parameter names,
//! names that differ only in `$` and `_`, and kernel names that collide after sanitising.

use std::fmt::Write as _;

use atomir_ir::{
    text, verify, AddressSpace, InstData, Kernel, Module, Operand, Scalar, Value, ValueDef,
};

mod draft;
mod names;
mod spell;
pub use draft::random_value_type;
use draft::{build, draft_kernel};
use names::kernel_names;
pub use names::WILD_VALUE_NAMES;
pub use spell::literal;
use spell::write_varied;

/// SplitMix64: small, fast, and the same sequence everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn wide(&mut self) -> u128 {
        (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64())
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn percent(&mut self, percent: u32) -> bool {
        self.next_u64() % 100 < u64::from(percent)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// How big and how wild the generated modules are.
#[derive(Clone, Debug)]
pub struct Config {
    pub max_kernels: usize,
    pub max_insts: usize,
    /// Names from [`WILD_VALUE_NAMES`] and colliding kernel names; plain names otherwise.
    pub wild_names: bool,
    /// Extra parameters no instruction reads.
    pub unused_params: bool,
    /// Only the given address spaces for instructions (all when empty).
    pub spaces: Vec<AddressSpace>,
    /// Percent of instructions guarded by a predicate.
    pub predicated_percent: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_kernels: 3,
            max_insts: 12,
            wild_names: true,
            unused_params: true,
            spaces: Vec::new(),
            predicated_percent: 30,
        }
    }
}

/// A generated module and a text spelling of it (not the canonical print).
#[derive(Clone, Debug)]
pub struct Generated {
    pub seed: u64,
    pub module: Module,
    pub text: String,
}

/// One random valid module for `seed`.
pub fn module(seed: u64, config: &Config) -> Generated {
    let mut rng = Rng::new(seed ^ 0xA70_D1E5_EED5);
    let count = 1 + rng.below(config.max_kernels.max(1));
    let names = kernel_names(&mut rng, seed, count, config.wild_names);
    let mut module = Module::default();
    let mut text = String::new();
    for name in &names {
        let (params, insts) = draft_kernel(&mut rng, config);
        let (kernel, spellings) = build(name, &params, &insts);
        write_varied(&mut rng, &kernel, &spellings, &mut text);
        module.kernels.push(kernel);
    }
    Generated { seed, module, text }
}

// ---- comparing modules ------------------------------------------------------------------------

/// A kernel's content with ids resolved to names and bits: equal for equal kernels however
/// their ids were assigned.
fn describe_kernel(kernel: &Kernel) -> String {
    let mut out = format!("kernel {}\n", kernel.name);
    let name = |value: Value| {
        kernel
            .values
            .get(value)
            .map_or_else(|| format!("<{value}>"), |d| d.name.to_string())
    };
    for param in &kernel.params {
        let _ = writeln!(out, "param %{}: {}", name(param.value), param.ty);
    }
    for (value, data) in kernel.values.iter() {
        let def = match data.def {
            ValueDef::Param(i) => format!("param {i}"),
            ValueDef::Result(inst) => format!("result of {}", inst.as_u32()),
        };
        let _ = writeln!(out, "value %{} = {def}: {}", name(value), data.ty);
    }
    let scalar = |s: Scalar| match s {
        Scalar::Value(v) => format!("%{}", name(v)),
        Scalar::Const(c) => format!("{:#x}", kernel.constants[c]),
    };
    let operand = |o: Operand| match o {
        Operand::Scalar(s) => scalar(s),
        Operand::Vector(list) => {
            let elements: Vec<String> = kernel
                .vector_elements(list)
                .iter()
                .map(|&s| scalar(s))
                .collect();
            format!("{{{}}}", elements.join(", "))
        }
    };
    for inst in kernel.insts.values() {
        let inst = match inst {
            InstData::Atomic(inst) => inst,
            InstData::Fence(fence) => {
                let _ = writeln!(out, "fence {} {}", fence.order, fence.scope);
                continue;
            }
        };
        let _ = writeln!(
            out,
            "{:?} {} {} {} {} {} {} pred={:?} addr=%{} operand={:?} new={:?} result={:?}",
            inst.op,
            inst.ty,
            inst.shape,
            inst.order,
            inst.scope,
            inst.space,
            inst.hint.map_or("-", |h| h.as_str()),
            inst.predicate.map(|p| format!(
                "{}%{}",
                if p.negated { "!" } else { "" },
                name(p.value)
            )),
            name(inst.addr),
            inst.operand.map(operand),
            inst.new_value.map(operand),
            inst.result.map(name),
        );
    }
    out
}

/// Whether two modules hold the same kernels (names, parameters, values, instructions and
/// literal bits); the first difference otherwise.
pub fn same_module(expected: &Module, found: &Module) -> Result<(), String> {
    if expected.kernels.len() != found.kernels.len() {
        return Err(format!(
            "{} kernels, expected {}",
            found.kernels.len(),
            expected.kernels.len()
        ));
    }
    for (a, b) in expected.kernels.iter().zip(&found.kernels) {
        let (a, b) = (describe_kernel(a), describe_kernel(b));
        if a != b {
            let line = a
                .lines()
                .zip(b.lines())
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!("expected `{x}`\n   found `{y}`"))
                .unwrap_or_else(|| "different lengths".into());
            return Err(line);
        }
    }
    Ok(())
}

/// The checks every generated module must pass: it verifies; its varied text and its canonical
/// print both parse back to the same module; the canonical print is a fixed point.
pub fn check_text_path(generated: &Generated) -> Result<(), String> {
    let module = &generated.module;
    let seed = generated.seed;
    verify::verify(module).map_err(|errors| {
        format!(
            "seed {seed}: generated module does not verify: {}\n{}",
            errors[0],
            text::print(module)
        )
    })?;
    let varied = text::parse(&generated.text).map_err(|errors| {
        format!(
            "seed {seed}: varied text does not parse: {}\n{}",
            errors[0], generated.text
        )
    })?;
    same_module(module, &varied).map_err(|e| {
        format!(
            "seed {seed}: varied text parses to another module: {e}\n{}",
            generated.text
        )
    })?;
    let printed = text::print(module);
    let reparsed = text::parse(&printed).map_err(|errors| {
        format!(
            "seed {seed}: canonical print does not parse: {}\n{printed}",
            errors[0]
        )
    })?;
    same_module(module, &reparsed)
        .map_err(|e| format!("seed {seed}: canonical print parses to another module: {e}"))?;
    if text::print(&reparsed) != printed {
        return Err(format!("seed {seed}: canonical print is not a fixed point"));
    }
    verify::verify(&reparsed).map(|_| ()).map_err(|errors| {
        format!(
            "seed {seed}: re-parsed module does not verify: {}",
            errors[0]
        )
    })
}
