//! Cuts a PTX module into statements: what ends at `;`, a block's `{` and `}`, and the
//! line-ended directives (`.version`, `.target`, …). Comments and strings are skipped; the
//! statements keep their byte offsets, so every later message points into the source.

/// One piece of a module, in source order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Piece {
    /// The text of a statement (without its `;`) starting at byte `start`; `ends_block_head`
    /// when a `{` ended it (a function's header) rather than a `;` or a line end.
    Statement {
        start: usize,
        end: usize,
        ends_block_head: bool,
    },
    /// `{` opening a block (a function body or a nested scope).
    Open(usize),
    /// `}` closing one.
    Close(usize),
}

/// Directives that end at the end of their line (they take no `;`).
const LINE_DIRECTIVES: [&str; 5] = [".version", ".target", ".address_size", ".file", ".loc"];

/// The pieces of `source`.
pub(super) fn pieces(source: &str) -> Vec<Piece> {
    let bytes = source.as_bytes();
    let mut pieces = Vec::new();
    let mut start: Option<usize> = None;
    // Braces inside a statement (vector operands) and parentheses (a header's parameters).
    let mut inner_braces = 0usize;
    let mut parens = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        match byte {
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                if ends_line_directive(source, start) {
                    push_statement(&mut pieces, &mut start, at, false);
                }
                at = line_end(bytes, at);
                continue;
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at = match source[at + 2..].find("*/") {
                    Some(offset) => at + 2 + offset + 2,
                    None => bytes.len(),
                };
                continue;
            }
            b'"' => {
                start.get_or_insert(at);
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' && bytes[at] != b'\n' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                at += 1;
                continue;
            }
            b'\n' if ends_line_directive(source, start) => {
                push_statement(&mut pieces, &mut start, at, false);
            }
            b';' if inner_braces == 0 && parens == 0 => {
                push_statement(&mut pieces, &mut start, at, false);
            }
            b'(' => {
                start.get_or_insert(at);
                parens += 1;
            }
            b')' => parens = parens.saturating_sub(1),
            b'{' if parens == 0 => match start {
                None => pieces.push(Piece::Open(at)),
                Some(from) if is_block_head(&source[from..at]) => {
                    push_statement(&mut pieces, &mut start, at, true);
                    pieces.push(Piece::Open(at));
                }
                Some(_) => inner_braces += 1,
            },
            b'}' if parens == 0 => {
                if inner_braces > 0 {
                    inner_braces -= 1;
                } else {
                    // A statement cut short by the block's end is still a statement.
                    push_statement(&mut pieces, &mut start, at, false);
                    pieces.push(Piece::Close(at));
                }
            }
            byte if byte.is_ascii_whitespace() => {}
            _ => {
                start.get_or_insert(at);
            }
        }
        at += 1;
    }
    push_statement(&mut pieces, &mut start, bytes.len(), false);
    pieces
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |offset| from + offset)
}

fn ends_line_directive(source: &str, start: Option<usize>) -> bool {
    start.is_some_and(|from| {
        let text = &source[from..];
        LINE_DIRECTIVES.iter().any(|directive| {
            text.strip_prefix(directive)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_whitespace()))
        })
    })
}

/// Whether a `{` after `text` opens a function's body (or another declaration's block)
/// rather than a vector operand.
fn is_block_head(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    first.starts_with('.') || text.trim_end().ends_with(')') || text.trim_end().ends_with(':')
}

fn push_statement(pieces: &mut Vec<Piece>, start: &mut Option<usize>, end: usize, head: bool) {
    if let Some(from) = start.take() {
        pieces.push(Piece::Statement {
            start: from,
            end,
            ends_block_head: head,
        });
    }
}

/// 1-based line and column of byte offsets, from the line starts of the source.
pub(super) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    pub(super) fn new(source: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(at, _)| at + 1));
        Lines { starts }
    }

    /// The line and column (both from 1, the column in characters) of `offset` in `source`.
    pub(super) fn locate(&self, source: &str, offset: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = self.starts[line - 1];
        let column = source
            .get(start..offset)
            .map_or(offset - start, |text| text.chars().count());
        (line as u32, column as u32 + 1)
    }

    /// The text of the line holding `offset`, without its line end.
    pub(super) fn line_text<'s>(&self, source: &'s str, offset: usize) -> &'s str {
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = self.starts[line - 1];
        let end = self.starts.get(line).map_or(source.len(), |next| next - 1);
        source.get(start..end).unwrap_or("").trim_end_matches('\r')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(source: &str) -> Vec<String> {
        pieces(source)
            .into_iter()
            .map(|piece| match piece {
                Piece::Statement { start, end, .. } => source[start..end].trim().to_string(),
                Piece::Open(_) => "{".into(),
                Piece::Close(_) => "}".into(),
            })
            .collect()
    }

    #[test]
    fn statements_blocks_and_line_directives() {
        let source = ".version 8.8 // c\n.target sm_90\n.entry k(.param .u64 p)\n{\n\
                      .reg .b32 %r<3>; /* x; */ atom.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4};\n\
                      $L1: ret;\n}\n";
        assert_eq!(
            texts(source),
            [
                ".version 8.8",
                ".target sm_90",
                ".entry k(.param .u64 p)",
                "{",
                ".reg .b32 %r<3>",
                "atom.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4}",
                "$L1: ret",
                "}"
            ]
        );
        let lines = Lines::new(source);
        let at = source.find("atom").unwrap();
        assert_eq!(lines.locate(source, at), (5, 27));
    }
}
