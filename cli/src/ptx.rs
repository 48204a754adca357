//! PTX input: the commands on a `.ptx` file. `read` lists its atomics as atomir's text form,
//! `lower` re-lowers each for a target (a whole retargeted module for PTX, one fragment per
//! atomic bound to the module's registers for vISA and LLVM); the porting report of `check`
//! is in [`crate::porting`].

use std::fmt::Write;

use atomir::ir::text::write_inst;
use atomir::{
    verify, Fragment, Node, PtxIsa, PtxTarget, ReadAtomic, ReadModule, SpliceNames, Target,
};

/// The kind of an input file, by its name: what every command dispatches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// atomir's text form (any name but the ones below, and standard input).
    Atom,
    /// A PTX module (`.ptx`).
    Ptx,
    /// LLVM IR text (`.ll`).
    LlvmIr,
}

impl InputKind {
    /// The kind of the file named `path`.
    pub fn of(path: &str) -> InputKind {
        match path.rsplit_once('.').map(|(_, extension)| extension) {
            Some("ptx") => InputKind::Ptx,
            Some("ll") => InputKind::LlvmIr,
            _ => InputKind::Atom,
        }
    }
}

/// The read atomic in atomir's canonical text form (one instruction).
pub fn canonical(read: &ReadAtomic) -> String {
    let kernel = read.kernel();
    let mut out = String::new();
    if let Some(inst) = kernel.insts.values().next() {
        write_inst(&mut out, &kernel, inst);
    }
    out
}

/// The PTX instruction as written (its source text up to the `;`), on one line.
pub fn instruction_text<'s>(source: &'s str, read: &ReadAtomic) -> &'s str {
    source.get(read.span.clone()).unwrap_or("").trim()
}

/// `atomir read`: each atomic as `file:line:col: <atomir text>` and, after `//`, the PTX it
/// was read from.
pub fn listing(name: &str, source: &str, module: &ReadModule, out: &mut String) {
    for read in &module.atomics {
        let _ = writeln!(
            out,
            "{name}:{}:{}: {}\t// {};",
            read.line,
            read.col,
            canonical(read),
            instruction_text(source, read)
        );
    }
}

/// The reader's errors rendered against `name`.
pub fn errors(name: &str, module: &ReadModule) -> Vec<String> {
    module
        .errors
        .iter()
        .map(|error| format!("{name}:{error}"))
        .collect()
}

/// One atomic spliced for a target: the code, the temporaries and the bindings it assumes.
pub struct Spliced {
    /// The code, one instruction a line.
    pub code: String,
    /// `(name, type)` of each temporary to declare.
    pub temps: Vec<(String, String)>,
    /// Moves or address arithmetic the client runs before the code (PTX text), with the
    /// temporaries they need listed in `temps`.
    pub before: String,
    /// The same after the code.
    pub after: String,
    /// The label the guard's branch jumps to, which the client puts after `after`.
    pub after_label: Option<String>,
}

/// Splices `read` for `target` with its values bound to the module's registers (without
/// `%`), names it makes up starting with `atomir<number>_`. An address with an offset or a
/// variable is bound to a temporary `atomir_addr<number>` computed in `before` (PTX) or for
/// the client to compute (vISA, LLVM; `notes` says how).
pub fn splice(
    read: &ReadAtomic,
    target: &Target,
    number: u32,
    notes: &mut Vec<String>,
) -> Result<Spliced, String> {
    let (mut kernel, registers) = read.kernel_with_registers();
    // A skipped PTX instruction leaves its destination as it was, where atomir's guarded node
    // gives 0: the code runs unguarded behind a branch (PTX) or where the guard holds.
    let guard = read.values.guard.clone();
    if let Some(inst) = kernel
        .insts
        .values_mut()
        .next()
        .and_then(|data| data.as_atomic_mut())
    {
        inst.predicate = None;
    }
    let module = atomir::Module {
        kernels: vec![kernel],
    };
    let verified = verify::verify(&module).map_err(|diagnostics| {
        let first = diagnostics
            .first()
            .map(ToString::to_string)
            .unwrap_or_default();
        format!("the instruction does not make a valid atomir node: {first}")
    })?;
    let kernel = &module.kernels[0];
    let Some((inst_id, _)) = kernel.insts.iter().next() else {
        return Err("no instruction".into());
    };
    let mut names = SpliceNames::numbered("atomir", number).map_err(|e| e.to_string())?;
    let llvm = matches!(target, Target::Llvm(_));
    if llvm {
        names.set_blocks(
            &format!("atomir_from{number}"),
            &format!("atomir_to{number}"),
        );
    }
    let ptx = matches!(target, Target::Ptx(_));
    let mut spliced = Spliced {
        code: String::new(),
        temps: Vec::new(),
        before: String::new(),
        after: String::new(),
        after_label: None,
    };
    // The kernel's parameters are the registers, named after them without `%`.
    for (param, register) in kernel.params.iter().zip(&registers) {
        let value_name = register.trim_start_matches('%');
        let is_address = matches!(param.ty, atomir::ValueType::Ptr(_));
        let bound = match (&read.values.address, is_address) {
            (Some(address), true)
                if address.offset != 0 || address.variable || address.bits != 64 =>
            {
                bind_address(address, number, ptx, &mut spliced, notes)
            }
            _ if plain_identifier(value_name) => value_name.to_string(),
            _ => bind_copy(param.ty, register, number, ptx, &mut spliced, notes),
        };
        names.bind(param.value, &bound);
    }
    let atomic = kernel.atomic(inst_id).copied();
    if let Some(result) = atomic.and_then(|inst| inst.result) {
        bind_result(read, &registers, llvm, result, &mut names);
    }
    if let Some((register, negated)) = &guard {
        let skip = format!("atomir_skip{number}");
        if ptx {
            let branch_when = if *negated { "" } else { "!" };
            let _ = writeln!(spliced.before, "\t@{branch_when}{register} bra {skip};");
            spliced.after_label = Some(skip);
        } else {
            let holds = if *negated { "does not hold" } else { "holds" };
            notes.push(format!("runs only where `{register}` {holds}"));
        }
    }
    let mut fragment = Fragment::default();
    target
        .splice(&verified, 0, inst_id, &names, &mut fragment)
        .map_err(|error| {
            let text = error.to_string();
            // The one-instruction kernel has no source position of its own.
            text.strip_prefix("0:0: error: ")
                .map_or(text.clone(), str::to_string)
        })?;
    spliced.code = fragment.code.clone();
    spliced.temps.extend(
        fragment
            .temps
            .iter()
            .map(|temp| (temp.name.clone(), temp.ty.clone())),
    );
    // A result the fragment keeps in registers of its own (its register is also an input)
    // is moved to the module's registers after the code.
    for result in fragment.results.iter().filter(|result| !result.bound) {
        // PTX has no 8-bit registers: an 8-bit value is held in 16 bits.
        let bits = atomic.map_or(32, |inst| inst.ty.bits()).max(16);
        for (lane, made) in read.values.result.iter().zip(&result.names) {
            if lane != "_" && ptx {
                let _ = writeln!(spliced.after, "\tmov.b{bits} {lane}, %{made};");
            } else if lane != "_" {
                notes.push(format!("the old value is in `{made}`, for `{lane}`"));
            }
        }
    }
    Ok(spliced)
}

/// A 64-bit temporary holding `address` (PTX: computed in `before`; otherwise a note says
/// what the client puts in it).
fn bind_address(
    address: &atomir::PtxAddress,
    number: u32,
    ptx: bool,
    spliced: &mut Spliced,
    notes: &mut Vec<String>,
) -> String {
    let made = format!("atomir_addr{number}");
    if !ptx {
        notes.push(format!("`%{made}` is the address {address}"));
        return made;
    }
    spliced.temps.push((made.clone(), ".b64".into()));
    let base = if address.variable {
        let _ = writeln!(spliced.before, "\tmov.u64 %{made}, {};", address.base);
        format!("%{made}")
    } else if address.bits != 64 {
        let _ = writeln!(
            spliced.before,
            "\tcvt.u64.u{} %{made}, {};",
            address.bits, address.base
        );
        format!("%{made}")
    } else {
        address.base.clone()
    };
    if address.offset != 0 {
        let _ = writeln!(
            spliced.before,
            "\tadd.s64 %{made}, {base}, {};",
            address.offset
        );
    } else if base != format!("%{made}") {
        let _ = writeln!(spliced.before, "\tmov.b64 %{made}, {base};");
    }
    made
}

/// A temporary holding `register`, a PTX name a splice cannot take (`%r$0`).
fn bind_copy(
    ty: atomir::ValueType,
    register: &str,
    number: u32,
    ptx: bool,
    spliced: &mut Spliced,
    notes: &mut Vec<String>,
) -> String {
    let made = format!("atomir_in{number}_{}", spliced.temps.len());
    match ty {
        atomir::ValueType::Data(ty, _) if ptx => {
            let bits = ty.bits().max(16);
            spliced.temps.push((made.clone(), format!(".b{bits}")));
            let _ = writeln!(spliced.before, "\tmov.b{bits} %{made}, {register};");
        }
        atomir::ValueType::Pred if ptx => {
            spliced.temps.push((made.clone(), ".pred".into()));
            let _ = writeln!(spliced.before, "\tmov.pred %{made}, {register};");
        }
        _ => notes.push(format!("`%{made}` is `{register}`")),
    }
    made
}

/// Binds the result to the destination registers where the fragment may write them directly:
/// not where one is also an input (a loop reads its inputs after writing), a bit bucket, a
/// name a splice cannot take, or (LLVM) lanes of a vector, which LLVM keeps whole.
fn bind_result(
    read: &ReadAtomic,
    registers: &[String],
    llvm: bool,
    result: atomir::Value,
    names: &mut SpliceNames,
) {
    let lanes: Vec<&str> = read
        .values
        .result
        .iter()
        .map(|lane| lane.trim_start_matches('%'))
        .collect();
    let inputs: Vec<&str> = registers
        .iter()
        .map(|r| r.trim_start_matches('%'))
        .collect();
    let whole_vector = llvm && lanes.len() > 1;
    let clashes = whole_vector
        || lanes
            .iter()
            .any(|lane| *lane == "_" || inputs.contains(lane) || !plain_identifier(lane));
    if clashes {
        return;
    }
    if lanes.len() > 1 {
        names.bind_lanes(result, lanes.iter().copied());
    } else if let Some(lane) = lanes.first() {
        names.bind(result, lane);
    }
}

/// How a retargeted module's header changes: the target to lower for and the new
/// `.version`/`.target` lines.
pub struct Header {
    /// The target each atomic is lowered for.
    pub target: PtxTarget,
    /// The `.version` to print, where it changes.
    pub version: Option<PtxIsa>,
}

/// The target to lower a module of `.version` `module_isa` for: `asked` as given where its
/// name fixes the ISA (`@X.Y`); otherwise at the module's own version where the architecture
/// takes it, so `.version` stays, else at the target's default version.
pub fn header(asked: PtxTarget, isa_given: bool, module_isa: Option<PtxIsa>) -> Header {
    if isa_given {
        let version = (module_isa != Some(asked.isa)).then_some(asked.isa);
        return Header {
            target: asked,
            version,
        };
    }
    if let Some(isa) = module_isa {
        let name = format!("{}@{isa}", asked.sm.name());
        let knobs = asked.to_string();
        let knobs = knobs.find('+').map_or("", |at| &knobs[at..]);
        if let Ok(target) = PtxTarget::parse(&format!("{name}{knobs}")) {
            return Header {
                target,
                version: None,
            };
        }
    }
    Header {
        target: asked,
        version: Some(asked.isa),
    }
}

/// `atomir lower app.ptx --target ptx:…`: the module with each atomic replaced by its code for
/// `target` (in a block of its own that declares its temporaries), `.version` and `.target`
/// as [`header`] says, everything else byte for byte.
pub fn retarget(
    name: &str,
    source: &str,
    module: &ReadModule,
    header: &Header,
) -> Result<String, Vec<String>> {
    let target = Target::Ptx(header.target);
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    if let (Some(span), Some(isa)) = (&module.version_span, header.version) {
        edits.push((span.clone(), format!(".version {isa}")));
    }
    if let Some(span) = &module.target_span {
        let old = &source[span.clone()];
        let rest = old
            .split_once(',')
            .map_or(String::new(), |(_, rest)| format!(",{rest}"));
        edits.push((
            span.clone(),
            format!(".target {}{rest}", header.target.sm.name()),
        ));
    }
    let mut failures = Vec::new();
    for (number, read) in module.atomics.iter().enumerate() {
        let mut notes = Vec::new();
        match splice(read, &target, number as u32, &mut notes) {
            Ok(spliced) => {
                let mut text = String::from("{\n");
                for (temp, ty) in &spliced.temps {
                    let _ = writeln!(text, "\t.reg {ty} %{temp};");
                }
                text.push_str(&spliced.before);
                text.push_str(&spliced.code);
                text.push_str(&spliced.after);
                if let Some(label) = &spliced.after_label {
                    let _ = writeln!(text, "{label}:");
                }
                text.push('\t');
                text.push('}');
                let end = statement_end(source, read.span.end);
                edits.push((read.span.start..end, text));
            }
            Err(message) => failures.push(format!(
                "{name}:{}:{}: error: {message}",
                read.line, read.col
            )),
        }
    }
    if !failures.is_empty() {
        return Err(failures);
    }
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(source.len() * 2);
    let mut at = 0;
    for (range, text) in edits {
        out.push_str(&source[at..range.start]);
        out.push_str(&text);
        at = range.end;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

/// The offset just after the `;` ending a statement whose text ends at `end`.
fn statement_end(source: &str, end: usize) -> usize {
    let rest = &source[end..];
    match rest.find(|c: char| !c.is_whitespace()) {
        Some(offset) if rest[offset..].starts_with(';') => end + offset + 1,
        _ => end,
    }
}

/// `atomir lower app.ptx --target visa:…|llvm:…`: per atomic, its PTX line, the temporaries
/// to declare and the code bound to the module's register names.
pub fn fragments(
    name: &str,
    source: &str,
    module: &ReadModule,
    target: &Target,
) -> Result<String, Vec<String>> {
    let mut out = String::new();
    let mut failures = Vec::new();
    let comment = if matches!(target, Target::Llvm(_)) {
        ";"
    } else {
        "//"
    };
    for (number, read) in module.atomics.iter().enumerate() {
        let mut notes = Vec::new();
        match splice(read, target, number as u32, &mut notes) {
            Ok(spliced) => {
                let _ = writeln!(
                    out,
                    "{comment} {name}:{}:{}: {};",
                    read.line,
                    read.col,
                    instruction_text(source, read)
                );
                let _ = writeln!(out, "{comment} atomir: {}", canonical(read));
                for note in &notes {
                    let _ = writeln!(out, "{comment} {note}");
                }
                if !spliced.temps.is_empty() {
                    let temps: Vec<String> = spliced
                        .temps
                        .iter()
                        .map(|(n, t)| format!("{n} {t}"))
                        .collect();
                    let _ = writeln!(out, "{comment} temporaries: {}", temps.join(", "));
                }
                out.push_str(&spliced.code);
                out.push('\n');
            }
            Err(message) => failures.push(format!(
                "{name}:{}:{}: error: {message}",
                read.line, read.col
            )),
        }
    }
    if failures.is_empty() {
        Ok(out)
    } else {
        Err(failures)
    }
}

/// Whether a splice takes `name` as it stands: `[A-Za-z_][A-Za-z0-9_]*`.
fn plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `node` is a fence.
pub fn is_fence(read: &ReadAtomic) -> bool {
    matches!(read.node, Node::Fence(_))
}
