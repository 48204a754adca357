//! Many fragments in one unit: pseudo-random accepted cells of the matrix, one kernel of them
//! all, each instruction spliced on its own into one hand-written PTX kernel, LLVM function or
//! vISA kernel. Every name in the unit is declared or defined once, and the real tool takes it.

use std::collections::HashSet;
use std::fmt::Write;
use std::path::PathBuf;

use atomir::{
    verify, AddressSpace, Fragment, Kernel, Module, SpliceNames, Target, Value, ValueType,
};
use atomir_ir::matrix::{cells, Cell};
use atomir_tests::llvm::{check_file, Codegen, LlvmTools};
use atomir_tests::random::Rng;
use atomir_tests::tools::{require, Tool};

/// How many fragments go into one unit.
const FRAGMENTS: usize = 64;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("atomir-splice-many-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir.join(name)
}

/// One kernel of `FRAGMENTS` pseudo-random cells `target` accepts (in the given spaces), every
/// value named `<role><cell>[_<lane>]`: pointers `p`, operands `b`, new values `c`, results
/// `r`, and the predicates `q` of every third instruction.
fn many(target: Target, seed: u64, spaces: &[AddressSpace]) -> Kernel {
    many_of(target, seed, spaces, FRAGMENTS)
}

fn many_of(target: Target, seed: u64, spaces: &[AddressSpace], fragments: usize) -> Kernel {
    let accepted: Vec<Cell> = cells()
        .filter(|cell| spaces.contains(&cell.space) && target.legalize(&cell.node()).is_ok())
        .collect();
    assert!(accepted.len() > fragments, "{target} accepts too few cells");
    let mut rng = Rng::new(seed);
    let mut kernel = Kernel::new("many");
    for index in 0..fragments {
        let cell = rng.pick(&accepted);
        let alone = cell.kernel();
        let mut renamed: Vec<Value> = Vec::new();
        for param in &alone.params {
            let name = &alone.values[param.value].name;
            let (role, lane) = name.split_at(1);
            let lane = if lane.is_empty() {
                String::new()
            } else {
                format!("_{lane}")
            };
            let role = if role == "a" { "p" } else { role };
            renamed.push(kernel.add_param(&format!("{role}{index}{lane}"), param.ty));
        }
        let map = |value: Value| {
            let position = alone.params.iter().position(|p| p.value == value);
            renamed[position.expect("a cell reads only its parameters")]
        };
        let (_, atomic) = alone.atomics().next().expect("a cell is one atomic");
        let mut atomic = *atomic;
        atomic.addr = map(atomic.addr);
        let mut operand = |operand: atomir::Operand| match operand {
            atomir::Operand::Scalar(atomir::Scalar::Value(v)) => map(v).into(),
            atomir::Operand::Vector(list) => {
                let elements: Vec<atomir::Scalar> = alone
                    .vector_elements(list)
                    .iter()
                    .map(|s| match s {
                        atomir::Scalar::Value(v) => atomir::Scalar::Value(map(*v)),
                        other => *other,
                    })
                    .collect();
                kernel.vector(&elements)
            }
            other => other,
        };
        atomic.operand = atomic.operand.map(&mut operand);
        atomic.new_value = atomic.new_value.map(&mut operand);
        atomic.result = None;
        // Every third instruction runs where a predicate of the client's says.
        if index % 3 == 0 {
            let value = kernel.add_param(&format!("q{index}"), ValueType::Pred);
            atomic.predicate = Some(atomir::Predicate {
                value,
                negated: index % 2 == 0,
            });
        }
        let result = cell.result_used.then(|| format!("r{index}"));
        kernel.push(atomic, result.as_deref());
    }
    kernel
}

/// Binds the values of one instruction (`types`, what the target states for it): every
/// parameter to its own name, and every other result (lane by lane where the target keeps lanes
/// in registers) to the client's, the rest left to the fragment.
fn bind(kernel: &Kernel, names: &mut SpliceNames, lanes: bool, types: &atomir::BindingTypes) {
    names.clear();
    for (value, data) in kernel.values.iter() {
        if types.get(value).is_none() {
            continue;
        }
        match (data.def, data.ty) {
            (atomir::ValueDef::Param(_), _) => {
                names.bind(value, &data.name);
            }
            (atomir::ValueDef::Result(inst), _) if inst.as_u32() % 2 == 1 => {}
            (_, ValueType::Data(_, shape)) if lanes && shape.is_vector() => {
                let lane_names: Vec<String> = (0..shape.len())
                    .map(|lane| format!("{}_{lane}", data.name))
                    .collect();
                names.bind_lanes(value, lane_names.iter().map(String::as_str));
            }
            _ => {
                names.bind(value, &data.name);
            }
        }
    }
}

/// Splices every instruction of the one kernel of `module`: the fragments, in order.
fn splice_all(target: Target, module: &Module, lanes: bool) -> Vec<Fragment> {
    let verified = verify::verify(module).expect("the kernel verifies");
    let kernel = &module.kernels[0];
    let mut names = SpliceNames::default();
    let mut fragments = Vec::new();
    for (index, inst) in kernel.insts.keys().enumerate() {
        let types = target.binding_types(&verified, 0, inst).unwrap();
        bind(kernel, &mut names, lanes, &types);
        names.set_numbered("f", index as u32).unwrap();
        names.set_blocks(
            &if index == 0 {
                "entry".to_owned()
            } else {
                format!("after{}", index - 1)
            },
            &format!("after{index}"),
        );
        let mut fragment = Fragment::default();
        if let Err(error) = target.splice(&verified, 0, inst, &names, &mut fragment) {
            panic!("{target}: {error}");
        }
        fragments.push(fragment);
    }
    fragments
}

/// Every name declared or defined in the unit, once: the client's, the fragments'
/// temporaries, and the labels the code defines (`label:` lines).
fn assert_unique_names(target: Target, client: &[String], fragments: &[Fragment]) {
    let mut seen: HashSet<&str> = HashSet::new();
    let temps = fragments
        .iter()
        .flat_map(|f| f.temps.iter().map(|t| t.name.as_str()));
    let labels = fragments.iter().flat_map(|f| {
        f.code
            .lines()
            .filter_map(|line| line.strip_suffix(':'))
            .map(|label| label.trim_start_matches('$'))
    });
    for name in client.iter().map(String::as_str).chain(temps).chain(labels) {
        assert!(seen.insert(name), "{target}: `{name}` is declared twice");
    }
    assert!(
        seen.len() > fragments.len(),
        "{target}: too few names to mean anything"
    );
}

fn ptx_class(ty: ValueType) -> &'static str {
    match ty {
        ValueType::Ptr(_) => ".b64",
        ValueType::Pred => ".pred",
        ValueType::Data(elem, _) => match elem.bits() {
            8 | 16 => ".b16",
            32 => ".b32",
            64 => ".b64",
            _ => ".b128",
        },
    }
}

/// The client's registers: every parameter and every bound result (lane by lane).
fn ptx_registers(kernel: &Kernel, fragments: &[Fragment]) -> Vec<(String, &'static str)> {
    let mut registers: Vec<(String, &'static str)> = kernel
        .params
        .iter()
        .map(|p| (kernel.values[p.value].name.to_string(), ptx_class(p.ty)))
        .collect();
    for result in fragments
        .iter()
        .flat_map(|f| &f.results)
        .filter(|r| r.bound)
    {
        let class = ptx_class(match kernel.values[result.value].ty {
            ValueType::Data(elem, _) => ValueType::scalar(elem),
            other => other,
        });
        registers.extend(result.names.iter().map(|name| (name.clone(), class)));
    }
    registers
}

#[test]
fn many_fragments_assemble_in_one_ptx_kernel() {
    for (name, tool, seed) in [
        ("ptx:sm_90", Tool::Ptxas13, 1),
        ("ptx:sm_70", Tool::Ptxas12, 2),
    ] {
        let target: Target = name.parse().unwrap();
        let spaces = [
            AddressSpace::Global,
            AddressSpace::Shared,
            AddressSpace::Generic,
        ];
        let module = Module {
            kernels: vec![many(target, seed, &spaces)],
        };
        let fragments = splice_all(target, &module, true);
        let kernel = &module.kernels[0];
        let registers = ptx_registers(kernel, &fragments);
        let client: Vec<String> = registers.iter().map(|(name, _)| name.clone()).collect();
        assert_unique_names(target, &client, &fragments);
        let Some(ptxas) = require(tool) else {
            continue;
        };
        let Target::Ptx(ptx) = target else {
            unreachable!()
        };
        let mut text = format!(
            ".version {}\n.target {}\n.address_size 64\n\n.visible .entry many()\n{{\n",
            ptx.isa,
            ptx.sm.name()
        );
        for (name, class) in &registers {
            let _ = writeln!(text, "\t.reg {class} %{name};");
        }
        for temp in fragments.iter().flat_map(|f| &f.temps) {
            let _ = writeln!(text, "\t.reg {} %{};", temp.ty, temp.name);
        }
        for fragment in &fragments {
            text.push_str(&fragment.code);
        }
        text.push_str("\tret;\n}\n");
        let file = scratch(&format!("{}.ptx", ptx.sm.name()));
        if let Err(diagnostics) = atomir_tests::ptx::assemble(&ptxas, ptx, &text, &file) {
            panic!("{target}: ptxas rejects {FRAGMENTS} fragments:\n{diagnostics}");
        }
    }
}

/// The LLVM type of each parameter, as the backend spells it in the signature of a module it
/// lowers (so the client spells its values as the fragments read them).
fn llvm_param_types(target: Target, kernel: &Kernel) -> Vec<String> {
    let module = Module {
        kernels: vec![kernel.slice(|_| false)],
    };
    let verified = verify::verify(&module).expect("the parameters verify");
    let mut text = String::new();
    target
        .lower(&verified, &atomir::LowerOptions::module(), &mut text)
        .expect("the signature lowers");
    let signature = text
        .lines()
        .find(|line| line.starts_with("define "))
        .expect("a define");
    let params = &signature[signature.find('(').unwrap() + 1..signature.rfind(')').unwrap()];
    params
        .split(", ")
        .map(|param| {
            param
                .rsplit_once(' ')
                .expect("`<type> %<name>`")
                .0
                .to_owned()
        })
        .collect()
}

#[test]
fn many_fragments_pass_the_llvm_tools_in_one_function() {
    for (name, seed) in [("llvm:nvptx64", 3), ("llvm:x86_64", 4)] {
        let target: Target = name.parse().unwrap();
        let spaces = [AddressSpace::Global, AddressSpace::Generic];
        let module = Module {
            kernels: vec![many(target, seed, &spaces)],
        };
        let fragments = splice_all(target, &module, false);
        let kernel = &module.kernels[0];
        let mut client: Vec<String> = kernel
            .params
            .iter()
            .map(|p| kernel.values[p.value].name.to_string())
            .collect();
        client.extend(["entry".to_owned()]);
        client.extend((0..FRAGMENTS).map(|index| format!("after{index}")));
        client.extend(
            fragments
                .iter()
                .flat_map(|f| &f.results)
                .flat_map(|r| r.names.clone()),
        );
        // Labels here are blocks: the client's `after<i>:` are its own, listed above.
        let code_only: Vec<Fragment> = fragments
            .iter()
            .map(|f| {
                let mut only = Fragment::default();
                only.code.push_str(&f.code);
                only
            })
            .collect();
        assert_unique_names(target, &client, &code_only);
        let Target::Llvm(llvm) = target else {
            unreachable!()
        };
        let Some(tools) = LlvmTools::require(llvm.major) else {
            continue;
        };
        let types = llvm_param_types(target, kernel);
        let mut text = format!(
            "target triple = \"{}\"\n\ndefine void @many(",
            llvm.triple.triple_string()
        );
        for (position, (param, ty)) in kernel.params.iter().zip(&types).enumerate() {
            let separator = if position == 0 { "" } else { ", " };
            let _ = write!(text, "{separator}{ty} %{}", kernel.values[param.value].name);
        }
        text.push_str(") {\nentry:\n");
        for (index, fragment) in fragments.iter().enumerate() {
            text.push_str(&fragment.code);
            let _ = writeln!(text, "after{index}:");
        }
        text.push_str("  ret void\n}\n");
        let file = scratch(&format!("{}.ll", llvm.triple.name()));
        std::fs::write(&file, &text).unwrap();
        let compiled = file.with_extension("s");
        if let Err(diagnostics) = check_file(&tools, &llvm, &file, &compiled, Codegen::Fast) {
            panic!("{target}: the tools reject {FRAGMENTS} fragments:\n{diagnostics}");
        }
    }
}

#[test]
fn many_fragments_assemble_in_one_visa_kernel() {
    let targets = [("visa:TGLLP", 6), ("visa:DG2", 7), ("visa:PVC", 5)];
    for (name, seed) in targets {
        let target: Target = name.parse().unwrap();
        let module = Module {
            kernels: vec![many_of(target, seed, &[AddressSpace::Global], FRAGMENTS)],
        };
        let fragments = splice_all(target, &module, true);
        let kernel = &module.kernels[0];
        let Target::Visa(visa) = target else {
            unreachable!()
        };
        let simd = visa.simd();
        // As the crate docs tell a client: a qword variable a message may write or address is
        // declared for the channels GenX_IR gives the message (SIMD32 on PVC).
        let wide = visa.message_channels();
        let storage = |ty: ValueType| match ty {
            ValueType::Pred => format!("v_type=P num_elts={simd}"),
            ValueType::Data(elem, _) if elem.bits() == 64 => {
                format!("v_type=G type=uq num_elts={wide} align=GRF")
            }
            ValueType::Ptr(AddressSpace::Global | AddressSpace::Generic) => {
                format!("v_type=G type=uq num_elts={wide} align=GRF")
            }
            _ => format!("v_type=G type=ud num_elts={simd} align=GRF"),
        };
        let mut client: Vec<(String, String)> = kernel
            .params
            .iter()
            .map(|p| (kernel.values[p.value].name.to_string(), storage(p.ty)))
            .collect();
        for result in fragments
            .iter()
            .flat_map(|f| &f.results)
            .filter(|r| r.bound)
        {
            let ty = match kernel.values[result.value].ty {
                ValueType::Data(elem, _) => ValueType::scalar(elem),
                other => other,
            };
            client.extend(result.names.iter().map(|name| (name.clone(), storage(ty))));
        }
        let names: Vec<String> = client.iter().map(|(name, _)| name.clone()).collect();
        assert_unique_names(target, &names, &fragments);
        let Some(genx) = require(Tool::GenxIr) else {
            continue;
        };
        let mut text = String::from(".version 4.1\n.kernel \"many\"\n");
        for (name, ty) in &client {
            let _ = writeln!(text, ".decl {name} {ty}");
        }
        // Roots before the aliases of them.
        let (aliases, roots): (Vec<_>, Vec<_>) = fragments
            .iter()
            .flat_map(|f| &f.temps)
            .partition(|temp| temp.ty.contains("alias="));
        for temp in roots.into_iter().chain(aliases) {
            let _ = writeln!(text, ".decl {} {}", temp.name, temp.ty);
        }
        text.push_str(".kernel_attr Target=\"cm\"\n.function \"many_BB_0\"\n\nmany_BB_0:\n");
        for fragment in &fragments {
            text.push_str(&fragment.code);
        }
        text.push_str("    ret (M1, 1)\n");
        let dir = scratch(&format!("visa-{}", visa.platform.as_str()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("many.visaasm"), &text).unwrap();
        let (ok, log) = atomir_tests::tools::run(
            std::process::Command::new(genx)
                .current_dir(&dir)
                .arg("many.visaasm")
                .args(["-platform", visa.platform.as_str(), "-output"]),
        );
        let errors = std::fs::read_to_string(dir.join("many.errors.txt")).unwrap_or_default();
        assert!(
            ok,
            "{target}: GenX_IR rejects {FRAGMENTS} fragments:\n{log}{errors}"
        );
    }
}
