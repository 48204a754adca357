//! A small Rust lexer for the structural checks of `architecture.rs`: identifiers and
//! punctuation with their lines, comments and literals skipped.

use std::collections::BTreeSet;

pub mod shapes;

/// One token that matters to the checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier, keyword or number.
    Ident(String),
    /// One punctuation character.
    Punct(char),
}

/// Lexes Rust source into identifiers and punctuation, each with its 1-based line. Comments
/// (nested block comments too), string, byte-string and raw-string literals and char literals
/// produce nothing; a lifetime produces its name.
pub fn lex(src: &str) -> Vec<(Tok, usize)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Advances past `n` characters, counting newlines.
    let skip = |i: &mut usize, line: &mut usize, n: usize| {
        for _ in 0..n {
            if chars.get(*i) == Some(&'\n') {
                *line += 1;
            }
            *i += 1;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            loop {
                match (chars.get(i), chars.get(i + 1)) {
                    (Some('/'), Some('*')) => {
                        depth += 1;
                        skip(&mut i, &mut line, 2);
                    }
                    (Some('*'), Some('/')) => {
                        depth -= 1;
                        skip(&mut i, &mut line, 2);
                        if depth == 0 {
                            break;
                        }
                    }
                    (Some(_), _) => skip(&mut i, &mut line, 1),
                    (None, _) => break,
                }
            }
        } else if c == '"' {
            skip_string(&chars, &mut i, &mut line);
        } else if c == '\'' {
            skip_quote(&chars, &mut i, &mut line, &mut out);
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let prefix = matches!(word.as_str(), "r" | "br" | "cr" | "b" | "c");
            match chars.get(i) {
                Some('"') if prefix => skip_string(&chars, &mut i, &mut line),
                Some('#') if prefix && word.ends_with('r') && raw_string_at(&chars, i) => {
                    skip_raw_string(&chars, &mut i, &mut line)
                }
                Some('\'') if word == "b" => skip_quote(&chars, &mut i, &mut line, &mut out),
                _ => out.push((Tok::Ident(word), line)),
            }
        } else {
            if !c.is_whitespace() {
                out.push((Tok::Punct(c), line));
            }
            skip(&mut i, &mut line, 1);
        }
    }
    out
}

/// Skips a `"…"` literal starting at `i` (escapes honoured).
fn skip_string(chars: &[char], i: &mut usize, line: &mut usize) {
    *i += 1;
    while *i < chars.len() {
        match chars[*i] {
            '\\' => *i += 2,
            '"' => {
                *i += 1;
                return;
            }
            '\n' => {
                *line += 1;
                *i += 1;
            }
            _ => *i += 1,
        }
    }
}

/// Whether `#…#"` follows at `i` (a raw string, not a raw identifier `r#name`).
fn raw_string_at(chars: &[char], mut i: usize) -> bool {
    while chars.get(i) == Some(&'#') {
        i += 1;
    }
    chars.get(i) == Some(&'"')
}

/// Skips the `#…#"…"#…#` of a raw string whose prefix was read, or `"…"` when no `#`.
fn skip_raw_string(chars: &[char], i: &mut usize, line: &mut usize) {
    let mut hashes = 0;
    while chars.get(*i) == Some(&'#') {
        hashes += 1;
        *i += 1;
    }
    *i += 1; // the opening quote
    while *i < chars.len() {
        if chars[*i] == '"' && (1..=hashes).all(|k| chars.get(*i + k) == Some(&'#')) {
            *i += 1 + hashes;
            return;
        }
        if chars[*i] == '\n' {
            *line += 1;
        }
        *i += 1;
    }
}

/// Skips a char literal at `i` (`'x'`, `'\n'`, `'\u{…}'`), or lexes a lifetime `'a` as an
/// identifier.
fn skip_quote(chars: &[char], i: &mut usize, line: &mut usize, out: &mut Vec<(Tok, usize)>) {
    let next = chars.get(*i + 1).copied();
    if next == Some('\\') {
        *i += 2;
        while *i < chars.len() && chars[*i] != '\'' {
            *i += 1;
        }
        *i += 1;
    } else if chars.get(*i + 2) == Some(&'\'') {
        *i += 3;
    } else {
        *i += 1;
        let start = *i;
        while *i < chars.len() && (chars[*i].is_alphanumeric() || chars[*i] == '_') {
            *i += 1;
        }
        let name: String = chars[start..*i].iter().collect();
        out.push((Tok::Ident(name), *line));
    }
}

/// The identifiers of a source text (outside comments and literals).
pub fn idents(src: &str) -> impl Iterator<Item = String> {
    lex(src).into_iter().filter_map(|(t, _)| match t {
        Tok::Ident(s) => Some(s),
        Tok::Punct(_) => None,
    })
}

/// A function with a body: its name, first line and length in lines.
pub struct Function {
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

fn is_ident(t: Option<&(Tok, usize)>) -> Option<&str> {
    match t {
        Some((Tok::Ident(s), _)) => Some(s),
        _ => None,
    }
}

/// Every function with a body (free, associated or nested), measured from its `fn` line to the
/// line of its closing brace. `fn(…)` pointer types and bodiless declarations are not functions.
pub fn functions(src: &str) -> Vec<Function> {
    let toks = lex(src);
    let mut out = Vec::new();
    for (k, (tok, line)) in toks.iter().enumerate() {
        if *tok != Tok::Ident("fn".into()) {
            continue;
        }
        let Some(name) = is_ident(toks.get(k + 1)) else {
            continue;
        };
        // The body is the first `{` outside parentheses and brackets; a `;` there first means
        // a declaration without a body.
        let mut nesting = 0i32;
        let mut body = None;
        for (j, (t, _)) in toks.iter().enumerate().skip(k + 2) {
            match t {
                Tok::Punct('(' | '[') => nesting += 1,
                Tok::Punct(')' | ']') => nesting -= 1,
                Tok::Punct(';') if nesting == 0 => break,
                Tok::Punct('{') if nesting == 0 => {
                    body = Some(j);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = body else { continue };
        let mut depth = 0;
        for (t, end_line) in &toks[open..] {
            match t {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        out.push(Function {
                            name: name.to_string(),
                            line: *line,
                            lines: end_line - line + 1,
                        });
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// A lexed file.
type Tokens = Vec<(Tok, usize)>;

/// An import edge between two modules of one crate, as absolute module paths.
pub type Edge = (Vec<String>, Vec<String>);

/// The paths that start at `crate`, `$crate`, `super` or `self::` at token `k`, each expanded
/// through `{…}` groups: every segment list it names.
fn paths_at(toks: &[(Tok, usize)], k: usize) -> Vec<Vec<String>> {
    fn path(toks: &[(Tok, usize)], mut k: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut segs = prefix;
        loop {
            match is_ident(toks.get(k)) {
                Some(s) => segs.push(s.to_string()),
                None if toks.get(k).map(|t| &t.0) == Some(&Tok::Punct('{')) => {
                    group(toks, k + 1, &segs, out);
                    return;
                }
                None => break,
            }
            let colons = toks.get(k + 1).map(|t| &t.0) == Some(&Tok::Punct(':'))
                && toks.get(k + 2).map(|t| &t.0) == Some(&Tok::Punct(':'));
            if !colons {
                break;
            }
            k += 3;
        }
        out.push(segs);
    }
    // The items of a `{a, b::c, d::{e}}` group starting after its `{`.
    fn group(toks: &[(Tok, usize)], mut k: usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut item_start = true;
        let mut depth = 0;
        while let Some((t, _)) = toks.get(k) {
            match t {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') if depth == 0 => return,
                Tok::Punct('}') => depth -= 1,
                Tok::Punct(',') if depth == 0 => item_start = true,
                Tok::Ident(_) if item_start && depth == 0 => {
                    path(toks, k, prefix.to_vec(), out);
                    item_start = false;
                }
                _ => item_start = false,
            }
            k += 1;
        }
    }
    let mut out = Vec::new();
    path(toks, k, Vec::new(), &mut out);
    out
}

/// The module-to-module edges of one crate, given its files as (module path, text): every
/// `crate::…`, `$crate::…`, `super::…` and `self::…` path (in `use` declarations and in code),
/// resolved to the longest known module it names. Inline modules (`mod tests { … }`) are
/// modules of their own. A `#[cfg(test)]` module is not part of the crate's build, and may use
/// any layer as integration tests do: its edges are left out.
pub fn module_edges(files: &[(Vec<String>, String)]) -> BTreeSet<Edge> {
    let lexed: Vec<(&Vec<String>, Tokens)> = files.iter().map(|(m, text)| (m, lex(text))).collect();
    let mut modules: BTreeSet<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut uses = Vec::new();
    let mut tests_only: Vec<Vec<String>> = Vec::new();
    for (module, toks) in &lexed {
        // The inline modules open at each brace depth.
        let mut stack: Vec<(String, i32)> = Vec::new();
        let mut depth = 0;
        for k in 0..toks.len() {
            let current = |stack: &[(String, i32)]| {
                let mut m = (*module).clone();
                m.extend(stack.iter().map(|(n, _)| n.clone()));
                m
            };
            match &toks[k].0 {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    if stack.last().is_some_and(|(_, d)| *d == depth) {
                        stack.pop();
                    }
                    depth -= 1;
                }
                Tok::Ident(w) if w == "mod" => {
                    let Some(name) = is_ident(toks.get(k + 1)) else {
                        continue;
                    };
                    let mut child = current(&stack);
                    child.push(name.to_string());
                    if test_only(toks, k) {
                        tests_only.push(child.clone());
                    }
                    if toks.get(k + 2).map(|t| &t.0) == Some(&Tok::Punct('{')) {
                        stack.push((name.to_string(), depth + 1));
                        modules.insert(child);
                    }
                }
                Tok::Ident(w) if matches!(w.as_str(), "crate" | "super" | "self") => {
                    let preceded_by_colons = k >= 1 && toks[k - 1].0 == Tok::Punct(':');
                    let followed_by_colons =
                        toks.get(k + 1).map(|t| &t.0) == Some(&Tok::Punct(':'));
                    if preceded_by_colons || !followed_by_colons {
                        continue;
                    }
                    let from = current(&stack);
                    for p in paths_at(toks, k) {
                        if let Some(abs) = absolute(&from, &p) {
                            uses.push((from.clone(), abs));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut edges = BTreeSet::new();
    for (from, path) in uses {
        if tests_only.iter().any(|t| from.starts_with(t)) {
            continue;
        }
        let to = (0..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| modules.contains(p))
            .unwrap_or_default();
        if to != from {
            edges.insert((from, to));
        }
    }
    edges
}

/// Whether the `mod` at token `k` is declared `#[cfg(test)]` (a visibility between them
/// allowed).
fn test_only(toks: &[(Tok, usize)], mut k: usize) -> bool {
    if k >= 1 && toks[k - 1].0 == Tok::Punct(')') {
        // `pub(crate)`, `pub(super)`
        k = k.saturating_sub(4);
    }
    if k >= 1 && toks[k - 1].0 == Tok::Ident("pub".into()) {
        k -= 1;
    }
    let want = ["#", "[", "cfg", "(", "test", ")", "]"];
    k >= want.len()
        && toks[k - want.len()..k]
            .iter()
            .zip(want)
            .all(|((t, _), w)| match t {
                Tok::Ident(s) => s == w,
                Tok::Punct(c) => w.len() == 1 && w.starts_with(*c),
            })
}

/// A path's segments made absolute from module `from` (`crate`, `super`, `self` resolved).
fn absolute(from: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = from.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {}
        _ => return None,
    }
    while rest.first().map(String::as_str) == Some("super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexer_skips_literals_and_comments() {
        let src = "fn a() {\n let s = \"}\"; let c = '}'; let r = r#\"}\"#; // }\n /* { */ }\nfn b<'a>(x: &'a [u8; 2]);";
        let f = functions(src);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].name.as_str(), f[0].lines), ("a", 3));
    }
}
