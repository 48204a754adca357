//! The module scan: lines, the target triple, function bodies and block labels; each line
//! that holds an atomic is handed to the instruction reader.

use atomir_ir::{Diagnostic, SourceLoc};

use super::inst::{self, Cursor};
use super::lex::{self, Kind, Token};
use super::{LlAtomic, LlFunction, LlModule, ReadOptions, Reading};
use crate::target::Triple;

/// The words whose presence on a line makes it worth splitting into tokens.
const ATOMIC_WORDS: [&str; 4] = ["atomicrmw", "cmpxchg", "fence", "atomic"];

fn loc(line: usize, col: usize) -> SourceLoc {
    SourceLoc {
        line: u32::try_from(line + 1).unwrap_or(u32::MAX),
        col: u32::try_from(col + 1).unwrap_or(u32::MAX),
    }
}

/// The module's `target triple = "…"` string, if this line is one.
fn triple_string(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("target")?.trim_start();
    let rest = rest
        .strip_prefix("triple")?
        .trim_start()
        .strip_prefix('=')?;
    let rest = rest.trim_start().strip_prefix('"')?;
    rest.split('"').next()
}

/// A block label that starts this line (`name:`, `"name":`, `7:`), as a branch names it.
fn label(line: &str) -> Option<&str> {
    if line.starts_with([' ', '\t']) || !line.contains(':') {
        return None;
    }
    // The common case without lexing: a plain name, then `:`.
    if let Some((name, _)) = line.split_once(':') {
        if !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'$'))
        {
            return Some(name);
        }
    }
    let tokens = lex::tokens(line).ok()?;
    match tokens.as_slice() {
        [name, colon, ..]
            if matches!(name.kind, Kind::Word | Kind::Str)
                && colon.kind == Kind::Punct(b':')
                && name.range.end == colon.range.start =>
        {
            Some(&line[name.range.clone()])
        }
        _ => None,
    }
}

/// A function being scanned.
struct Open {
    index: usize,
    body_started: bool,
    block: String,
    first_line: bool,
}

/// Reads every atomic of `source`; see the [module](super).
pub fn read(source: &str, options: &ReadOptions) -> Reading {
    let mut reading = Reading::default();
    let module_triple = source
        .lines()
        .find_map(triple_string)
        .and_then(Triple::from_triple_string);
    let triple = module_triple.or(options.triple);
    reading.module.triple = triple;
    let mut open: Option<Open> = None;
    let mut offset = 0;
    for (number, line) in source.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let text = line.trim_end_matches(['\n', '\r']);
        let trimmed = text.trim_start();
        if let Some(function) = open.as_mut() {
            if !function.body_started {
                if text.trim_end().ends_with('{') {
                    function.body_started = true;
                    reading.module.functions[function.index].body = offset..offset;
                }
                continue;
            }
            if trimmed.starts_with('}') {
                reading.module.functions[function.index].body.end = start;
                open = None;
                continue;
            }
            if let Some(name) = label(text) {
                function.block = name.to_string();
                if function.first_line {
                    reading.module.functions[function.index].entry_block = name.to_string();
                }
                function.first_line = false;
                continue;
            }
            if !trimmed.is_empty() && !trimmed.starts_with(';') {
                function.first_line = false;
            }
            if ATOMIC_WORDS.iter().any(|word| text.contains(word)) {
                scan_line(&mut reading, function, triple, text, start, number);
            }
            continue;
        }
        if trimmed.starts_with("define") {
            let function = define(text, number);
            let body_started = text.trim_end().ends_with('{');
            let block = function.entry_block.clone();
            reading.module.functions.push(LlFunction {
                body: offset..offset,
                ..function
            });
            open = Some(Open {
                index: reading.module.functions.len() - 1,
                body_started,
                block,
                first_line: true,
            });
        }
    }
    if let Some(function) = open {
        let body = &mut reading.module.functions[function.index].body;
        body.end = body.end.max(source.len());
    }
    mark_used_results(source, &mut reading.module);
    reading
}

/// A function from its `define` line: its name and its unlabelled entry block's number.
fn define(line: &str, number: usize) -> LlFunction {
    let tokens = lex::tokens(line).unwrap_or_default();
    let name = tokens
        .iter()
        .find(|t| t.kind == Kind::Global)
        .map_or("", |t| &line[t.range.start + 1..t.range.end]);
    let numbered = tokens
        .iter()
        .filter(|t| {
            t.kind == Kind::Local
                && line[t.range.start + 1..t.range.end]
                    .bytes()
                    .all(|b| b.is_ascii_digit())
        })
        .count();
    LlFunction {
        name: name.to_string(),
        loc: loc(number, line.len() - line.trim_start().len()),
        body: 0..0,
        entry_block: numbered.to_string(),
    }
}

/// Reads the atomic on `text`, if it holds one, into `reading`.
fn scan_line(
    reading: &mut Reading,
    function: &Open,
    triple: Option<Triple>,
    text: &str,
    start: usize,
    number: usize,
) {
    let tokens = match lex::tokens(text) {
        Ok(tokens) => tokens,
        Err(error) => {
            if looks_atomic(text) {
                reading.diagnostics.push(Diagnostic::new(
                    loc(number, error.at),
                    format!("cannot read this atomic: {}", error.message),
                ));
            }
            return;
        }
    };
    let (result, first) = match tokens.as_slice() {
        [name, equals, ..] if name.kind == Kind::Local && equals.kind == Kind::Punct(b'=') => {
            (Some(name.range.clone()), 2)
        }
        _ => (None, 0),
    };
    let word = |i: usize| tokens.get(i).map(|t: &Token| &text[t.range.clone()]);
    let Some(keyword) = word(first) else { return };
    if !inst::is_atomic(keyword, word(first + 1)) {
        return;
    }
    let begin = tokens[0].range.start;
    let Some(triple) = triple else {
        reading.diagnostics.push(Diagnostic::new(
            loc(number, begin),
            "the module has no `target triple`, and sync scopes and address spaces are read per \
             triple (give one: nvptx64, amdgcn, spirv64, x86_64)",
        ));
        return;
    };
    let mut cursor = Cursor {
        line: text,
        tokens: &tokens,
        pos: first,
    };
    match inst::parse(&mut cursor, triple) {
        Ok(parsed) => {
            let shift = |range: std::ops::Range<usize>| start + range.start..start + range.end;
            let mut access = parsed.access;
            if let Some(access) = access.as_mut() {
                access.pointer = shift(access.pointer.clone());
                for operand in &mut access.operands {
                    *operand = shift(operand.clone());
                }
            }
            let end = tokens.last().map_or(begin, |t| t.range.end);
            reading.module.atomics.push(LlAtomic {
                function: function.index,
                block: function.block.clone(),
                loc: loc(number, begin),
                span: start + begin..start + end,
                result: result.map(shift),
                result_used: false,
                kind: parsed.kind,
                order: parsed.order,
                failure_order: parsed.failure_order,
                scope: parsed.scope,
                access,
            });
        }
        Err(error) => reading
            .diagnostics
            .push(Diagnostic::new(loc(number, error.at), error.message)),
    }
}

/// Whether a line that does not split into tokens still reads as an atomic instruction.
fn looks_atomic(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let first = match words.as_slice() {
        [_, "=", rest @ ..] => rest,
        rest => rest,
    };
    match first {
        [keyword, second, ..] => inst::is_atomic(keyword, Some(second)),
        [keyword] => inst::is_atomic(keyword, None),
        [] => false,
    }
}

/// Sets [`LlAtomic::result_used`]: whether the name appears in its function's body other than
/// where it is defined.
fn mark_used_results(source: &str, module: &mut LlModule) {
    for atomic in &mut module.atomics {
        let Some(result) = atomic.result.clone() else {
            continue;
        };
        let name = &source[result.clone()];
        let body = module.functions[atomic.function].body.clone();
        let text = &source[body.clone()];
        let mut from = 0;
        while let Some(found) = text[from..].find(name) {
            let at = body.start + from + found;
            let end = at + name.len();
            from += found + name.len();
            let continues = source[end..].bytes().next().is_some_and(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'$')
            });
            if at != result.start && (!continues || name.ends_with('"')) {
                atomic.result_used = true;
                break;
            }
        }
    }
}
