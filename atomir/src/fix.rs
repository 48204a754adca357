//! `fix`: an LLVM module with each atomic replaced by atomir's own lowering for one llc.
//!
//! Each atomic the reader reads ([`llvm::read`](atomir_llvm::read)) becomes a one-instruction
//! kernel, which [`Target::splice`] lowers as a fragment from the atomic's block to a new
//! continuation block: CAS loops become blocks of the function, the instruction's values are
//! the module's own (cast once to the type atomir gives them, where it differs, such as the
//! `i32` of a packed `<2 x half>` or LLVM 14's `i8*`), and its result keeps its name. Phis that
//! named the split block as a predecessor name the continuation. Everything else is copied byte
//! for byte. An atomic that cannot be read, or that the target refuses, is left as it was and
//! reported.
//!
//! ```
//! use atomir::fix::fix_module;
//!
//! let source = r#"target triple = "nvptx64-nvidia-cuda"
//! define ptx_kernel void @publish(ptr addrspace(1) %flag) {
//!   %old = atomicrmw xchg ptr addrspace(1) %flag, i32 1 syncscope("device") release, align 4
//!   ret void
//! }
//! "#;
//! let fixed = fix_module(source, &"llvm:nvptx64@22".parse()?, Default::default())?;
//! assert!(fixed.diagnostics.is_empty());
//! assert_eq!(fixed.replaced, 1);
//! // LLVM 22's NVPTX drops an atomicrmw's order, so atomir's lowering carries it by fences.
//! assert!(fixed.text.contains("fence syncscope(\"device\") release"));
//! assert!(fixed.text.contains("%old = "));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::Write;

use atomir_ir::lower::{Fragment, SpliceNames};
use atomir_ir::{Diagnostic, ValueType};
use atomir_llvm::read::{self, LlAtomic, LlKind, LlModule, ReadOptions, ReadParam};
use atomir_llvm::{value_type_spelling, LlvmTarget};

use crate::Target;

/// A module after [`fix_module`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fixed {
    /// The module's text, each replaced atomic's code in its place.
    pub text: String,
    /// How many atomics were replaced.
    pub replaced: usize,
    /// One per atomic left as it was: why (it could not be read, it is volatile or a whole
    /// vector, or the target refuses it).
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a module cannot be fixed at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixError(pub String);

impl std::fmt::Display for FixError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FixError {}

/// `source` with each atomic replaced by `target`'s lowering of it (an LLVM target, whose
/// triple is the module's). `options.triple` is read where the module has no `target triple`.
pub fn fix_module(source: &str, target: &Target, options: ReadOptions) -> Result<Fixed, FixError> {
    let Target::Llvm(llvm) = target else {
        return Err(FixError(format!(
            "`{target}` is not an LLVM target: fix rewrites LLVM IR for one llc (llvm:<triple>@<version>)"
        )));
    };
    let options = ReadOptions {
        triple: options.triple.or(Some(llvm.triple)),
    };
    let reading = read::read(source, &options);
    if let Some(triple) = reading.module.triple {
        if triple != llvm.triple {
            return Err(FixError(format!(
                "the module is for {}, the target `{target}` for {}",
                triple.name(),
                llvm.triple.name()
            )));
        }
    }
    let mut fixer = Fixer {
        source,
        module: &reading.module,
        target,
        llvm,
        prefix: free_prefix(source),
        out: Fixed {
            diagnostics: reading.diagnostics.clone(),
            ..Fixed::default()
        },
        fragment: Fragment::default(),
        declarations: Vec::new(),
    };
    fixer.run();
    let mut fixed = fixer.out;
    fixed.diagnostics.sort_by_key(|d| (d.loc.line, d.loc.col));
    Ok(fixed)
}

/// A prefix no name of `source` starts with.
fn free_prefix(source: &str) -> String {
    let mut prefix = String::from("atomir_fix");
    while source.contains(&prefix) {
        prefix.push('x');
    }
    prefix
}

/// The state of one fix.
struct Fixer<'a> {
    source: &'a str,
    module: &'a LlModule,
    target: &'a Target,
    llvm: &'a LlvmTarget,
    prefix: String,
    out: Fixed,
    fragment: Fragment,
    declarations: Vec<String>,
}

impl Fixer<'_> {
    fn run(&mut self) {
        let mut copied = 0;
        let atomics = &self.module.atomics;
        let mut index = 0;
        while index < atomics.len() {
            let function = atomics[index].function;
            let end = atomics[index..]
                .iter()
                .position(|a| a.function != function)
                .map_or(atomics.len(), |n| index + n);
            self.fix_function(function, index..end, &mut copied);
            index = end;
        }
        self.out.text.push_str(&self.source[copied..]);
        for line in std::mem::take(&mut self.declarations) {
            if !self.source.contains(&line) && !self.out.text.contains(&line) {
                self.out.text.push_str(&line);
                self.out.text.push('\n');
            }
        }
    }

    /// Replaces the atomics `range` of one function, then copies its body with the split blocks
    /// renamed in its phis.
    fn fix_function(&mut self, function: usize, range: std::ops::Range<usize>, copied: &mut usize) {
        let mut replaced: Vec<(std::ops::Range<usize>, String)> = Vec::new();
        let mut renames: Vec<(String, String)> = Vec::new();
        let mut block_now: Option<(String, String)> = None;
        for index in range {
            let atomic = &self.module.atomics[index];
            let Some((code, continuation)) = self.replacement(index, atomic) else {
                continue;
            };
            replaced.push((atomic.span.clone(), code));
            self.out.replaced += 1;
            let original = match &block_now {
                Some((original, _)) if *original == atomic.block => original.clone(),
                _ => atomic.block.clone(),
            };
            renames.retain(|(from, _)| *from != original);
            renames.push((original.clone(), continuation.clone()));
            block_now = Some((original, continuation));
        }
        let body = self.module.functions[function].body.clone();
        self.out
            .text
            .push_str(&self.source[*copied..body.start.max(*copied)]);
        let mut at = body.start.max(*copied);
        for (span, code) in replaced {
            self.copy_renamed(at..span.start, &renames);
            self.out.text.push_str(&code);
            at = span.end;
        }
        self.copy_renamed(at..body.end.max(at), &renames);
        *copied = body.end.max(at);
    }

    /// Copies `range` of the source, renaming the split blocks in its phis.
    fn copy_renamed(&mut self, range: std::ops::Range<usize>, renames: &[(String, String)]) {
        let text = &self.source[range];
        if renames.is_empty() {
            self.out.text.push_str(text);
            return;
        }
        for line in text.split_inclusive('\n') {
            if line.contains(" phi ") {
                self.out.text.push_str(&rename_blocks(line, renames));
            } else {
                self.out.text.push_str(line);
            }
        }
    }

    fn refuse(&mut self, atomic: &LlAtomic, message: String) {
        self.out.diagnostics.push(Diagnostic::new(
            atomic.loc,
            format!("{message}; left as it was"),
        ));
    }

    /// The code that replaces atomic `index` and its continuation block, or `None` (with a
    /// diagnostic) where it stays.
    fn replacement(&mut self, index: usize, atomic: &LlAtomic) -> Option<(String, String)> {
        if let Some(access) = &atomic.access {
            if access.volatile {
                self.refuse(atomic, "a volatile atomic keeps its volatile access".into());
                return None;
            }
            if access.whole_vector {
                self.refuse(
                    atomic,
                    "a vector atomicrmw without `elementwise` is one atomic access of the whole \
                     vector, and atomir's vector nodes are atomic per element"
                        .into(),
                );
                return None;
            }
        }
        let (module, inst, params) = read::atomic_module(self.source, self.module, index)?;
        let verified = match atomir_ir::verify::verify(&module) {
            Ok(verified) => verified,
            Err(errors) => {
                let message = errors.first().map_or(String::new(), |d| d.message.clone());
                self.refuse(atomic, format!("not an atomir node: {message}"));
                return None;
            }
        };
        // The fragment starts in a block of its own: the module's block names need not be
        // plain identifiers (`for.body`, `7`), which a fragment's phis name.
        let prefix = format!("{}{index}_", self.prefix);
        let predecessor = format!("{prefix}Pre");
        let continuation = format!("{prefix}Cont");
        let mut names = match SpliceNames::new(&prefix) {
            Ok(names) => names.with_blocks(&predecessor, &continuation),
            Err(error) => {
                self.refuse(atomic, error.0);
                return None;
            }
        };
        let mut code = String::new();
        let mut aliases = Vec::new();
        for (n, param) in params.iter().enumerate() {
            let alias = format!("{prefix}P{n}");
            self.cast_in(&mut code, atomic, param, &alias);
            names.bind(param.value, &alias);
            aliases.push((param.source.clone(), alias));
        }
        let kernel = &module.kernels[0];
        let result = kernel.atomic(inst).and_then(|a| a.result);
        let result_name = format!("{prefix}R");
        if let Some(result) = result {
            names.bind(result, &result_name);
        }
        if let Err(error) = self
            .target
            .splice(&verified, 0, inst, &names, &mut self.fragment)
        {
            self.refuse(
                atomic,
                format!("{} refuses it: {}", self.target, error.refusal),
            );
            return None;
        }
        let _ = writeln!(code, "  br label %{predecessor}\n{predecessor}:");
        code.push_str(&self.fragment.code);
        self.declarations
            .extend(self.fragment.declarations.iter().cloned());
        let _ = writeln!(code, "{continuation}:");
        if let Some(result) = result {
            self.define_result(
                &mut code,
                atomic,
                kernel.values[result].ty,
                &result_name,
                &aliases,
                &prefix,
            );
        }
        // The replaced line's own indentation precedes the first line of the code.
        let code = code.trim_start().to_string();
        let code = code.strip_suffix('\n').unwrap_or(&code).to_string();
        Some((code, continuation))
    }

    /// `%alias = bitcast <module type> <value> to <atomir type>`.
    fn cast_in(&self, code: &mut String, atomic: &LlAtomic, param: &ReadParam, alias: &str) {
        let Some(access) = &atomic.access else { return };
        let from = if matches!(param.ty, ValueType::Ptr(_)) {
            access.pointer_type.to_string()
        } else {
            access.value_type.to_string()
        };
        let to = value_type_spelling(self.llvm, param.ty);
        let value = &self.source[param.source.clone()];
        let _ = writeln!(code, "  %{alias} = bitcast {from} {value} to {to}");
    }

    /// Defines the module's result name from the fragment's result: a cast back to the module's
    /// type, or (cmpxchg) the `{ old, success }` pair.
    fn define_result(
        &self,
        code: &mut String,
        atomic: &LlAtomic,
        ty: ValueType,
        result_name: &str,
        aliases: &[(std::ops::Range<usize>, String)],
        prefix: &str,
    ) {
        let (Some(access), Some(name)) = (&atomic.access, &atomic.result) else {
            return;
        };
        let name = &self.source[name.clone()];
        let atomir_ty = value_type_spelling(self.llvm, ty);
        let module_ty = access.value_type.to_string();
        if atomic.kind != LlKind::Cmpxchg {
            let _ = writeln!(
                code,
                "  {name} = bitcast {atomir_ty} %{result_name} to {module_ty}"
            );
            return;
        }
        let expected = access.operands.first().cloned().unwrap_or_default();
        let expected = aliases
            .iter()
            .find(|(range, _)| *range == expected)
            .map_or_else(
                || self.source[expected].to_string(),
                |(_, a)| format!("%{a}"),
            );
        let pair = format!("{{ {atomir_ty}, i1 }}");
        let _ = writeln!(
            code,
            "  %{prefix}Ok = icmp eq {atomir_ty} %{result_name}, {expected}"
        );
        let _ = writeln!(
            code,
            "  %{prefix}Pair = insertvalue {pair} undef, {atomir_ty} %{result_name}, 0"
        );
        let _ = writeln!(
            code,
            "  {name} = insertvalue {pair} %{prefix}Pair, i1 %{prefix}Ok, 1"
        );
    }
}

/// `line` (a phi) with each `%<from>` naming a split block replaced by `%<to>`.
fn rename_blocks(line: &str, renames: &[(String, String)]) -> String {
    let mut out = String::with_capacity(line.len());
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let start = i + 1;
            let mut end = start;
            if bytes.get(start) == Some(&b'"') {
                end = line[start + 1..]
                    .find('"')
                    .map_or(line.len(), |q| start + q + 2);
            } else {
                while end < bytes.len()
                    && (bytes[end].is_ascii_alphanumeric() || b"_.-$".contains(&bytes[end]))
                {
                    end += 1;
                }
            }
            let name = &line[start..end];
            match renames.iter().find(|(from, _)| from == name) {
                Some((_, to)) => {
                    out.push('%');
                    out.push_str(to);
                }
                None => out.push_str(&line[i..end]),
            }
            i = end;
            continue;
        }
        let next = line[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&line[i..i + next]);
        i += next;
    }
    out
}
