//! The tokens of one line of LLVM assembly, each with its byte range in the line.

use std::ops::Range;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A keyword, type, number or other bare word (`atomicrmw`, `i32`, `-1`, `0xH3C00`).
    Word,
    /// `%name`, `%"name"`, `%7`.
    Local,
    /// `@name`, `@"name"`.
    Global,
    /// `!name`, `!7`, or the `!` of `!{`.
    Metadata,
    /// `"…"`, the quotes included.
    Str,
    /// One punctuation character: `, ( ) < > [ ] { } = * :`.
    Punct(u8),
}

/// One token: its kind and where it is in the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Kind,
    pub range: Range<usize>,
}

/// Why a line cannot be split into tokens, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LexError {
    pub at: usize,
    pub message: &'static str,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'+' | b'$')
}

/// The end of a quoted string starting at `start` (a `"`), one past the closing quote.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    bytes[start + 1..]
        .iter()
        .position(|&b| b == b'"')
        .map(|offset| start + offset + 2)
}

/// The tokens of `line` up to its comment (`;` outside a string). LLVM escapes a quote inside a
/// string as `\22`, so a string ends at the next `"`.
pub(crate) fn tokens(line: &str) -> Result<Vec<Token>, LexError> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        let kind = match b {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b';' => break,
            b'"' => {
                i = string_end(bytes, i).ok_or(LexError {
                    at: i,
                    message: "a string without its closing quote",
                })?;
                Kind::Str
            }
            b'%' | b'@' | b'!' => {
                i += 1;
                if i < bytes.len() && bytes[i] == b'"' {
                    i = string_end(bytes, i).ok_or(LexError {
                        at: i,
                        message: "a quoted name without its closing quote",
                    })?;
                } else {
                    while i < bytes.len() && is_word_byte(bytes[i]) {
                        i += 1;
                    }
                }
                match b {
                    b'%' => Kind::Local,
                    b'@' => Kind::Global,
                    _ => Kind::Metadata,
                }
            }
            b',' | b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'=' | b'*' | b':'
            | b'#' | b'^' | b'|' => {
                i += 1;
                Kind::Punct(b)
            }
            _ if is_word_byte(b) => {
                while i < bytes.len() && is_word_byte(bytes[i]) {
                    i += 1;
                }
                Kind::Word
            }
            _ => {
                return Err(LexError {
                    at: i,
                    message: "a character LLVM assembly does not use here",
                })
            }
        };
        if (kind == Kind::Local || kind == Kind::Global) && i == start + 1 {
            return Err(LexError {
                at: start,
                message: "a sigil without a name",
            });
        }
        out.push(Token {
            kind,
            range: start..i,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<&str> {
        tokens(line)
            .unwrap()
            .into_iter()
            .map(|t| &line[t.range])
            .collect()
    }

    #[test]
    fn splits_an_instruction() {
        assert_eq!(
            texts(
                r#"  %"a b" = atomicrmw fadd ptr addrspace(1) %p, float 1.0e+00 syncscope("agent-one-as") monotonic, align 4, !amdgpu.no.fine.grained.memory !0 ; c"#
            ),
            [
                "%\"a b\"",
                "=",
                "atomicrmw",
                "fadd",
                "ptr",
                "addrspace",
                "(",
                "1",
                ")",
                "%p",
                ",",
                "float",
                "1.0e+00",
                "syncscope",
                "(",
                "\"agent-one-as\"",
                ")",
                "monotonic",
                ",",
                "align",
                "4",
                ",",
                "!amdgpu.no.fine.grained.memory",
                "!0"
            ]
        );
        assert_eq!(
            texts("i32 addrspace(3)* %0"),
            ["i32", "addrspace", "(", "3", ")", "*", "%0"]
        );
        assert!(tokens("%\"open").is_err());
        assert!(tokens("% x").is_err());
    }
}
