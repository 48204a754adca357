//! The workspace's structural invariants (ARCHITECTURE.md, "Invariants"), checked on the source:
//!
//! - no `.rs` file over 800 lines;
//! - no function over 150 lines (from its `fn` line to its closing brace);
//! - no import circle between sibling modules of any crate's `src/` (at every level of the
//!   module tree: two files of one directory, or two directories of one parent);
//! - no backend crate (`lower-*`) depends on or names another backend crate;
//! - every printer (`lower-*/src/emit/`) appends its text through `spell!`: no `write!(` or
//!   `writeln!(` there, and no `std::fmt::Write` in scope;
//! - no run of six or more lines of one shape (whitespace-trimmed, identifiers kept; blank,
//!   comment and punctuation-only lines left out) in the `src/` of two backend crates: code two
//!   backends share lives once in `atomir_ir`.
//!
//! The scan is a small lexer (comments, strings, raw strings, char literals and lifetimes are
//! told apart, so a brace or a path inside them counts for nothing), not a parser: it is exact
//! for this code base, which uses no `#[path]` inside a library's `src/`.
//!
//! Each `ALLOWED_*` list names the violations known today, each with the reason it is still
//! there. An entry that no longer violates fails the test, so the lists only shrink.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

mod architecture_support;

use architecture_support::shapes::{repeated_runs, RUN};
use architecture_support::{functions, lex, module_edges, Edge, Tok};

const MAX_FILE_LINES: usize = 800;
const MAX_FN_LINES: usize = 150;

/// Files over [`MAX_FILE_LINES`], by path from the workspace root.
const ALLOWED_LONG_FILES: &[&str] = &[];

/// Functions over [`MAX_FN_LINES`], as `path::name`.
const ALLOWED_LONG_FNS: &[&str] = &[];

/// Circles between sibling modules, as `crate-dir: parent::{a, b}`.
const ALLOWED_CIRCLES: &[&str] = &[];

/// Runs of [`RUN`] or more lines of one shape in two backends, as
/// `path ~ path: \`first line\``.
const ALLOWED_REPEATED_RUNS: &[&str] = &[
    // The signatures of the `Printer` hooks each printer implements (`splice_begin`, and
    // `module_end` before it): the trait's shape, written once per implementation.
    "lower-llvm/src/emit/printer.rs ~ lower-ptx/src/emit/mod.rs: `fn splice_begin(`",
    "lower-llvm/src/emit/printer.rs ~ lower-visa/src/emit/mod.rs: `fn splice_begin(`",
    "lower-ptx/src/emit/mod.rs ~ lower-visa/src/emit/mod.rs: `fn module_end(&mut self, _out: &mut String) {}`",
    // The fields of `Prim::Cas` and `Prim::Rmw` bound by name, one per line as rustfmt lays
    // them out; what follows, the printing, differs.
    "lower-llvm/src/emit/expansion.rs ~ lower-ptx/src/emit/prim.rs: `Prim::Cas {`",
    "lower-llvm/src/emit/expansion.rs ~ lower-ptx/src/emit/prim.rs: `Prim::Rmw {`",
    // Every warp primitive named, so that a new one is a compile error in each printer that
    // refuses them, rather than a wildcard that lets it through.
    "lower-llvm/src/emit/expansion.rs ~ lower-visa/src/emit/prim.rs: `Prim::WarpActive { .. }`",
    // The same for the ops neither PTX nor vISA has a native form of: each table matches
    // `AtomicOp` exhaustively, so a new op is a compile error there, never a silent CAS loop.
    "lower-ptx/src/legal/rmw.rs ~ lower-visa/src/legal/rmw.rs: `AtomicOp::Nand`",
];

/// The backend crates: none may depend on another.
const BACKENDS: &[(&str, &str)] = &[
    ("lower-ptx", "atomir-ptx"),
    ("lower-visa", "atomir-visa"),
    ("lower-llvm", "atomir-llvm"),
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lies in the workspace")
        .to_path_buf()
}

/// Every `.rs` file of the workspace outside build output, as (path from the root, text).
fn rust_files(root: &Path) -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                let skipped = name.starts_with('.') || name == "target" || name == "node_modules";
                if !skipped {
                    walk(root, &path, out);
                }
            } else if name.ends_with(".rs") {
                let text =
                    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let rel = path.strip_prefix(root).expect("under the root");
                out.push((rel.to_string_lossy().replace('\\', "/"), text));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    assert!(
        out.len() > 10,
        "the scan found only {} .rs files",
        out.len()
    );
    out
}

/// Compares what violates with what is allowed: a new violation, or an allowed entry that no
/// longer violates, is a failure.
fn check_against(what: &str, found: &BTreeSet<String>, allowed: &[&str]) -> Vec<String> {
    let allowed: BTreeSet<String> = allowed.iter().map(|s| s.to_string()).collect();
    let mut failures = Vec::new();
    for f in found.difference(&allowed) {
        failures.push(format!("{what}: {f}"));
    }
    for a in allowed.difference(found) {
        failures.push(format!(
            "{what}: `{a}` is allowed but no longer violates; remove it from the list"
        ));
    }
    failures
}

#[test]
fn no_file_over_800_lines() {
    let root = workspace_root();
    let found: BTreeSet<String> = rust_files(&root)
        .into_iter()
        .filter(|(_, text)| text.lines().count() > MAX_FILE_LINES)
        .map(|(path, _)| path)
        .collect();
    let failures = check_against("file over 800 lines", &found, ALLOWED_LONG_FILES);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_function_over_150_lines() {
    let root = workspace_root();
    let mut found = BTreeSet::new();
    let mut counted = 0;
    for (path, text) in rust_files(&root) {
        for f in functions(&text) {
            counted += 1;
            if f.lines > MAX_FN_LINES {
                found.insert(format!("{path}::{}", f.name));
                eprintln!("{path}:{}: fn {} has {} lines", f.line, f.name, f.lines);
            }
        }
    }
    assert!(counted > 1000, "the scan found only {counted} functions");
    let failures = check_against("function over 150 lines", &found, ALLOWED_LONG_FNS);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The library (and binary) source directories of the workspace's members.
fn member_sources(root: &Path) -> Vec<(String, PathBuf)> {
    let manifest = fs::read_to_string(root.join("Cargo.toml")).expect("the workspace manifest");
    let members = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .expect("a members list");
    let members: Vec<String> = members
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    assert!(members.len() >= 8, "members: {members:?}");
    members
        .into_iter()
        .map(|m| (m.clone(), root.join(&m).join("src")))
        .filter(|(_, src)| src.is_dir())
        .collect()
}

/// The module path of a file under `src/` (`emit/mod.rs` is `emit`, `emit/regs.rs` is
/// `emit::regs`, `lib.rs` and `main.rs` are the root); `None` for a binary under `src/bin/`,
/// which is a crate of its own.
fn module_of(rel: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.first().map(String::as_str) == Some("bin") {
        return None;
    }
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_string());
    }
    Some(parts)
}

/// The groups of sibling modules that import each other in a circle, named
/// `crate: parent::{a, b}`.
fn circles(member: &str, edges: &BTreeSet<Edge>) -> Vec<String> {
    // Siblings under one parent: an edge from `p::a::…` to `p::b::…` is `a -> b` under `p`.
    let mut by_parent: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, to) in edges {
        let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
        if common == from.len() || common == to.len() {
            continue; // a module and its ancestor: not a circle between siblings
        }
        by_parent
            .entry(from[..common].to_vec())
            .or_default()
            .entry(from[common].clone())
            .or_default()
            .insert(to[common].clone());
    }
    let mut out = Vec::new();
    for (parent, graph) in by_parent {
        let reach = |start: &String| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![start.clone()];
            while let Some(n) = stack.pop() {
                for next in graph.get(&n).into_iter().flatten() {
                    if seen.insert(next.clone()) {
                        stack.push(next.clone());
                    }
                }
            }
            seen
        };
        let reaches: BTreeMap<&String, BTreeSet<String>> =
            graph.keys().map(|n| (n, reach(n))).collect();
        let mut grouped = BTreeSet::new();
        for (n, r) in &reaches {
            if grouped.contains(*n) || !r.contains(*n) {
                continue;
            }
            let group: BTreeSet<String> = reaches
                .iter()
                .filter(|(m, rm)| rm.contains(*n) && r.contains(**m))
                .map(|(m, _)| (*m).clone())
                .collect();
            grouped.extend(group.iter().cloned());
            let prefix: String = parent.iter().map(|p| format!("{p}::")).collect();
            let names: Vec<String> = group.into_iter().collect();
            out.push(format!("{member}: {prefix}{{{}}}", names.join(", ")));
        }
    }
    out
}

#[test]
fn no_import_circle_inside_a_crate() {
    let root = workspace_root();
    let mut found = BTreeSet::new();
    let mut total_edges = 0;
    for (member, src) in member_sources(&root) {
        let mut files = Vec::new();
        for (path, text) in rust_files(&root) {
            let full = root.join(&path);
            let Ok(rel) = full.strip_prefix(&src) else {
                continue;
            };
            if let Some(module) = module_of(rel) {
                files.push((module, text));
            }
        }
        let edges = module_edges(&files);
        if std::env::var_os("ATOMIR_SHOW_EDGES").is_some() {
            for (from, to) in &edges {
                eprintln!("{member}: {} -> {}", from.join("::"), to.join("::"));
            }
        }
        total_edges += edges.len();
        found.extend(circles(&member, &edges));
    }
    assert!(total_edges > 200, "the scan found only {total_edges} edges");
    let failures = check_against("import circle", &found, ALLOWED_CIRCLES);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_backend_imports_another() {
    let root = workspace_root();
    let mut failures = Vec::new();
    for (dir, package) in BACKENDS {
        let manifest = fs::read_to_string(root.join(dir).join("Cargo.toml")).expect("manifest");
        assert!(
            manifest.contains(&format!("name = \"{package}\"")),
            "{dir} is {package}"
        );
        for (other_dir, other) in BACKENDS.iter().filter(|(d, _)| d != dir) {
            if manifest.contains(other) {
                failures.push(format!("{dir}/Cargo.toml names {other}"));
            }
            let ident = other.replace('-', "_");
            for (path, text) in rust_files(&root.join(dir)) {
                let named = architecture_support::idents(&text).any(|i| i == ident);
                if named {
                    failures.push(format!("{dir}/{path} names {ident} ({other_dir})"));
                }
            }
        }
        // The facade depends on every backend: a backend naming it imports them all.
        if manifest
            .lines()
            .any(|l| l.trim_start().starts_with("atomir."))
        {
            failures.push(format!("{dir}/Cargo.toml depends on the facade `atomir`"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The `write!`-family macros and the `fmt::Write` import each use of `tokens` makes, as
/// `line: what` (comments and string literals hold none: the lexer skips them).
fn fmt_writes(tokens: &[(Tok, usize)]) -> Vec<String> {
    let mut found = Vec::new();
    for (k, (token, line)) in tokens.iter().enumerate() {
        let Tok::Ident(name) = token else { continue };
        let next = |n: usize| tokens.get(k + n).map(|(t, _)| t);
        let is_macro = matches!(name.as_str(), "write" | "writeln")
            && next(1) == Some(&Tok::Punct('!'))
            && next(2) == Some(&Tok::Punct('('));
        if is_macro {
            found.push(format!("{line}: `{name}!(`"));
        }
        let after_fmt = k >= 3
            && tokens[k - 3].0 == Tok::Ident("fmt".into())
            && tokens[k - 2].0 == Tok::Punct(':')
            && tokens[k - 1].0 == Tok::Punct(':');
        if name == "Write" && after_fmt {
            found.push(format!("{line}: `fmt::Write`"));
        }
    }
    found
}

#[test]
fn printers_append_through_spell() {
    let files: Vec<(String, String)> = rust_files(&workspace_root())
        .into_iter()
        .filter(|(path, _)| {
            path.starts_with("lower-")
                && path
                    .split_once('/')
                    .map(|(_, rest)| rest)
                    .is_some_and(|rest| rest.starts_with("src/emit/"))
        })
        .collect();
    let backends = BACKENDS.iter().filter(|(dir, _)| {
        files
            .iter()
            .any(|(path, _)| path.starts_with(&format!("{dir}/src/emit/")))
    });
    assert_eq!(
        backends.count(),
        BACKENDS.len(),
        "every backend has an `emit/`"
    );
    let mut failures = Vec::new();
    for (path, text) in &files {
        for found in fmt_writes(&lex(text)) {
            failures.push(format!(
                "{path}:{found}: a printer appends through `spell!`"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_write_macro_and_the_fmt_write_import_are_found() {
    let source = "use std::fmt::Write;\n// write!(out, \"no\")\nlet s = \"writeln!(x)\";\n\
                  let _ = write!(out, \"{x}\");\nwriteln!(out);\nwrite(out);\n";
    let found = fmt_writes(&lex(source));
    assert_eq!(
        found,
        ["1: `fmt::Write`", "4: `write!(`", "5: `writeln!(`"],
        "comments, strings and plain calls are not uses"
    );
    assert!(fmt_writes(&lex("spell!(out, \"write!(\", 1u32);")).is_empty());
}

/// The backend crates' library sources, as (crate directory, path from the root, text).
fn backend_sources(root: &Path) -> Vec<(String, String, String)> {
    rust_files(root)
        .into_iter()
        .filter_map(|(path, text)| {
            let (dir, rest) = path.split_once('/')?;
            let backend = BACKENDS.iter().any(|(d, _)| *d == dir) && rest.starts_with("src/");
            backend.then(|| (dir.to_owned(), path.clone(), text))
        })
        .collect()
}

#[test]
fn no_run_of_six_lines_of_one_shape_in_two_backends() {
    let files = backend_sources(&workspace_root());
    assert!(
        files.len() > 30,
        "the scan found only {} files",
        files.len()
    );
    let found = repeated_runs(&files);
    let what = format!("{RUN} or more lines of one shape in two backends");
    let failures = check_against(&what, &found, ALLOWED_REPEATED_RUNS);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_run_of_six_lines_in_two_crates_is_found_and_reported_once() {
    let shared = "fn f() {\n    let a = 1;\n    // a comment between\n\n    let b = 2;\n    \
                  let c = 3;\n    }\n    let d = 4;\n    let e = 5;\n    let g = 6;\n";
    let file = |krate: &str, text: String| (krate.to_owned(), format!("{krate}/src/x.rs"), text);
    let files = [
        file("one", format!("use a;\n{shared}")),
        file("two", format!("{shared}let h = 7;\n")),
        // The same lines within one crate are not a repeat across backends.
        file("one", shared.replace("let a", "let z")),
    ];
    let found = repeated_runs(&files);
    let expected = BTreeSet::from(["one/src/x.rs ~ two/src/x.rs: `fn f() {`".to_owned()]);
    assert_eq!(found, expected);
    // A line that differs in the middle leaves no six in common.
    let short = [
        file("one", shared.replace("let d = 4;", "let d = 0;")),
        file("two", shared.to_owned()),
    ];
    assert!(repeated_runs(&short).is_empty());
}
