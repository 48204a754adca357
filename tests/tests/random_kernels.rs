//! The random-kernel generator itself: every module it makes verifies, its varied text and its
//! canonical print parse back to the same module, the same seed gives the same module, and a
//! few thousand seeds reach every op, type, shape, order, scope, space, hint, predicate form,
//! literal form and naming hazard the generator promises.

use std::collections::HashSet;

use atomir_ir::matrix::fence_cells;
use atomir_ir::{
    text, AddressSpace, AtomicInst, AtomicOp, CacheHint, ElemType, InstData, Kernel, MemoryOrder,
    Operand, Scalar, Scope, Value, ValueDef, ValueType, VectorShape,
};
use atomir_tests::random::{check_text_path, module, same_module, Config};

const SEEDS: u64 = 3000;

#[test]
fn generated_modules_verify_and_survive_the_text_path() {
    let config = Config::default();
    for seed in 0..SEEDS {
        let generated = module(seed, &config);
        if let Err(message) = check_text_path(&generated) {
            panic!("{message}");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_module() {
    let config = Config::default();
    for seed in [0, 1, 77, u64::MAX] {
        let (a, b) = (module(seed, &config), module(seed, &config));
        assert_eq!(a.text, b.text);
        same_module(&a.module, &b.module).unwrap();
    }
    assert_ne!(module(1, &config).text, module(2, &config).text);
}

#[derive(Default)]
struct Seen {
    ops: HashSet<AtomicOp>,
    fences: HashSet<(MemoryOrder, Scope)>,
    types: HashSet<ElemType>,
    shapes: HashSet<VectorShape>,
    orders: HashSet<MemoryOrder>,
    scopes: HashSet<Scope>,
    spaces: HashSet<AddressSpace>,
    hints: HashSet<CacheHint>,
    pointer_spaces_of_generic: HashSet<AddressSpace>,
    param_types: HashSet<String>,
    features: HashSet<&'static str>,
}

impl Seen {
    /// The literal forms, qualifier omissions and comments of a module's text.
    fn text_features(&mut self, text: &str) {
        for (feature, present) in [
            ("hex literal", text.contains("0x")),
            ("upper-case hex prefix", text.contains("0X")),
            (
                "negative literal",
                text.contains(", -") || text.contains("{-"),
            ),
            ("inf", text.contains("inf")),
            ("nan", text.contains("nan")),
            ("exponent", text.contains("e-") || text.contains("E+")),
            (
                "omitted qualifiers",
                text.split_whitespace()
                    .any(|w| w.starts_with("atomic.") && w.matches('.').count() < 5),
            ),
            ("comment", text.contains('#')),
        ] {
            if present {
                self.features.insert(feature);
            }
        }
    }

    /// The naming hazards of a module's kernels, their parameters and values, and each atomic
    /// and fence.
    fn kernels(&mut self, kernels: &[Kernel]) {
        let mut kernel_names = HashSet::new();
        for kernel in kernels {
            if !kernel_names.insert(kernel.name.replace('$', "_")) {
                self.features.insert("kernel names equal after sanitising");
            }
            if kernel.name.contains("_param_") {
                self.features.insert("kernel named like a parameter");
            }
            let read = values_read(kernel);
            for param in &kernel.params {
                self.param_types.insert(param.ty.to_string());
                if !read.contains(&param.value) {
                    self.features.insert("unused parameter");
                }
            }
            self.value_names(kernel);
            let mut previous = Vec::new();
            for inst in kernel.insts.values() {
                match inst {
                    InstData::Atomic(inst) => self.atomic(kernel, inst, &mut previous),
                    InstData::Fence(fence) => {
                        self.fences.insert((fence.order, fence.scope));
                    }
                }
            }
        }
        if kernels.len() > 1 {
            self.features.insert("several kernels");
        }
    }

    /// Value names that differ only in `$` and `_`, and names that start with a digit.
    fn value_names(&mut self, kernel: &Kernel) {
        let names: HashSet<&str> = kernel.values.values().map(|d| &*d.name).collect();
        for name in &names {
            if name.contains('$') && names.contains(name.replace('$', "_").as_str()) {
                self.features.insert("value names differing in $ and _");
            }
            if name.starts_with(|c: char| c.is_ascii_digit()) {
                self.features.insert("numeric value name");
            }
        }
    }

    /// One atomic's fields, and whether it repeats one of `previous` (the kernel's atomics
    /// before it, results aside).
    fn atomic(&mut self, kernel: &Kernel, inst: &AtomicInst, previous: &mut Vec<AtomicInst>) {
        self.ops.insert(inst.op);
        self.types.insert(inst.ty);
        self.shapes.insert(inst.shape);
        self.orders.insert(inst.order);
        self.scopes.insert(inst.scope);
        self.spaces.insert(inst.space);
        if let Some(hint) = inst.hint {
            self.hints.insert(hint);
        }
        if let Some(p) = inst.predicate {
            self.features.insert(if p.negated {
                "negated predicate"
            } else {
                "predicate"
            });
        }
        if inst.space == AddressSpace::Generic {
            if let ValueType::Ptr(space) = kernel.value_type(inst.addr) {
                self.pointer_spaces_of_generic.insert(space);
            }
        }
        let mut node = *inst;
        node.result = None;
        if previous.contains(&node) {
            self.features.insert("repeated atomic");
        }
        previous.push(node);
        for operand in [inst.operand, inst.new_value].into_iter().flatten() {
            self.operand(kernel, inst, operand);
        }
    }

    /// Lists mixing literals and values, and results read by a later atomic.
    fn operand(&mut self, kernel: &Kernel, inst: &AtomicInst, operand: Operand) {
        let elements: Vec<Scalar> = match operand {
            Operand::Scalar(s) => vec![s],
            Operand::Vector(list) => {
                let elements = kernel.vector_elements(list).to_vec();
                let literals = elements.iter().any(|e| matches!(e, Scalar::Const(_)));
                let values = elements.iter().any(|e| matches!(e, Scalar::Value(_)));
                if literals && values {
                    self.features.insert("list mixing literals and values");
                }
                elements
            }
        };
        for element in elements {
            if let Scalar::Value(v) = element {
                if matches!(kernel.values[v].def, ValueDef::Result(_)) {
                    self.features
                        .insert(if kernel.value_type(v) == ValueType::scalar(inst.ty) {
                            "result read by a later atomic"
                        } else {
                            "result of another type read by a bN atomic"
                        });
                    if matches!(operand, Operand::Scalar(_)) && inst.shape.is_vector() {
                        self.features.insert("vector result read whole");
                    }
                }
            }
        }
    }
}

/// The values a kernel's atomics read: addresses, predicates, operands and their lists'
/// elements.
fn values_read(kernel: &Kernel) -> HashSet<Value> {
    let mut read = HashSet::new();
    for (_, inst) in kernel.atomics() {
        read.insert(inst.addr);
        read.extend(inst.predicate.map(|p| p.value));
        for operand in [inst.operand, inst.new_value].into_iter().flatten() {
            match operand {
                Operand::Scalar(Scalar::Value(v)) => {
                    read.insert(v);
                }
                Operand::Scalar(Scalar::Const(_)) => {}
                Operand::Vector(list) => {
                    read.extend(kernel.vector_elements(list).iter().filter_map(|e| match e {
                        Scalar::Value(v) => Some(*v),
                        Scalar::Const(_) => None,
                    }))
                }
            }
        }
    }
    read
}

#[test]
fn generated_modules_cover_what_the_text_form_allows() {
    let config = Config::default();
    let mut seen = Seen::default();
    for seed in 0..SEEDS {
        let generated = module(seed, &config);
        seen.text_features(&generated.text);
        seen.kernels(&generated.module.kernels);
    }
    assert_eq!(seen.ops.len(), AtomicOp::ALL.len());
    assert_eq!(seen.fences.len(), fence_cells().count());
    assert_eq!(seen.types.len(), ElemType::ALL.len());
    assert_eq!(seen.shapes.len(), VectorShape::ALL.len());
    assert_eq!(seen.orders.len(), MemoryOrder::ALL.len());
    assert_eq!(seen.scopes.len(), Scope::ALL.len());
    assert_eq!(seen.spaces.len(), AddressSpace::ALL.len());
    assert_eq!(seen.hints.len(), CacheHint::ALL.len());
    assert_eq!(
        seen.pointer_spaces_of_generic.len(),
        AddressSpace::ALL.len()
    );
    // Every pointer, pred, every scalar type and most vector types appear as parameters.
    assert!(
        seen.param_types.len() > 4 + 1 + 19 + 40,
        "{:?}",
        seen.param_types
    );
    let wanted = [
        "hex literal",
        "upper-case hex prefix",
        "negative literal",
        "inf",
        "nan",
        "exponent",
        "omitted qualifiers",
        "comment",
        "kernel names equal after sanitising",
        "kernel named like a parameter",
        "unused parameter",
        "value names differing in $ and _",
        "numeric value name",
        "predicate",
        "negated predicate",
        "repeated atomic",
        "list mixing literals and values",
        "result read by a later atomic",
        "result of another type read by a bN atomic",
        "vector result read whole",
        "several kernels",
    ];
    let missing: Vec<&&str> = wanted
        .iter()
        .filter(|f| !seen.features.contains(*f))
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

/// A generated module lowers the same whether built in code or read back from its text.
#[test]
fn built_and_parsed_modules_lower_alike() {
    let config = Config::default();
    let backends: Vec<atomir::Target> = ["ptx:sm_90", "visa:PVC", "llvm:nvptx64", "llvm:x86_64@14"]
        .iter()
        .map(|name| name.parse().unwrap())
        .collect();
    let options = atomir_ir::LowerOptions::module();
    let mut compared = 0;
    // Enough seeds that modules every backend lowers whole are common, although a module with
    // one instruction a backend refuses (loads, stores, fences and the newer ops, for now) is
    // compared only by its refusal.
    for seed in 0..900 {
        let generated = module(seed, &config);
        let parsed = text::parse(&generated.text).unwrap();
        for backend in &backends {
            let (mut a, mut b) = (String::new(), String::new());
            let built = backend.lower(
                &atomir_ir::verify::verify(&generated.module).unwrap(),
                &options,
                &mut a,
            );
            let read = backend.lower(
                &atomir_ir::verify::verify(&parsed).unwrap(),
                &options,
                &mut b,
            );
            match (built, read) {
                (Ok(_), Ok(_)) => {
                    assert_eq!(a, b, "seed {seed} on {backend}");
                    compared += 1;
                }
                (Err(x), Err(y)) => assert_eq!(x.refusal, y.refusal),
                (x, y) => panic!("seed {seed}: {x:?} vs {y:?}"),
            }
        }
    }
    assert!(compared > 50, "{compared}");
}
