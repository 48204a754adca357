//! Tokens of the text form. Newlines are tokens: an instruction ends at the end of its line.

use crate::kernel::SourceLoc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// Letters, digits, `_`, `$` and `.`, not starting with a digit: `kernel`, `atomic.add.u32`,
    /// `ptr.global`, `inf`.
    Word,
    /// `%name`; the token's text excludes the `%`.
    Local,
    /// A literal: starts with a digit, or `-` then a digit or letter (`-1`, `0x1f`, `-inf`).
    Number,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Colon,
    Equals,
    At,
    Bang,
    Newline,
    /// A character that starts no token.
    Unexpected,
    Eof,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'a> {
    pub kind: TokenKind,
    pub text: &'a str,
    pub loc: SourceLoc,
}

impl Token<'_> {
    /// How the token reads in a message: "`,`", "end of line", "`%x`".
    pub fn describe(&self) -> String {
        match self.kind {
            TokenKind::Newline => "end of line".to_string(),
            TokenKind::Eof => "end of input".to_string(),
            TokenKind::Local => format!("`%{}`", self.text),
            _ => format!("`{}`", self.text.escape_debug()),
        }
    }
}

/// Tokens of a source text, produced one at a time: the parser holds one token of lookahead,
/// never a vector of the whole file. Never fails: a character that starts no token becomes an
/// `Unexpected` token for the parser to report. After the last token it yields `Eof` forever.
pub(crate) struct Lexer<'a> {
    source: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    line: u32,
    /// Column of the next character, counting characters (not bytes) from 1.
    col: u32,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(source: &'a str) -> Self {
        Lexer {
            source,
            pos: 0,
            line: 1,
            col: 1,
        }
    }

    /// Advances past the ASCII bytes from the current position that satisfy `keep`.
    fn skip_while(&mut self, keep: impl Fn(u8) -> bool) {
        let rest = &self.source.as_bytes()[self.pos..];
        let count = rest.iter().take_while(|&&b| keep(b)).count();
        self.pos += count;
        self.col = self.col.saturating_add(count.min(u32::MAX as usize) as u32);
    }

    fn token(&self, kind: TokenKind, start: usize, loc: SourceLoc) -> Token<'a> {
        Token {
            kind,
            text: &self.source[start..self.pos],
            loc,
        }
    }

    pub(crate) fn next_token(&mut self) -> Token<'a> {
        let bytes = self.source.as_bytes();
        loop {
            let start = self.pos;
            let loc = SourceLoc::new(self.line, self.col);
            let Some(&byte) = bytes.get(start) else {
                return Token {
                    kind: TokenKind::Eof,
                    text: "",
                    loc,
                };
            };
            self.pos += 1;
            self.col = self.col.saturating_add(1);
            let kind = match byte {
                b'\n' => {
                    self.line = self.line.saturating_add(1);
                    self.col = 1;
                    TokenKind::Newline
                }
                b' ' | b'\t' | b'\r' => continue,
                b'#' => {
                    // A comment runs to the end of the line; its column count is in characters.
                    let rest = &bytes[self.pos..];
                    let length = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                    let chars = rest[..length]
                        .iter()
                        .filter(|&&b| !is_utf8_continuation(b))
                        .count();
                    self.pos += length;
                    self.col = self.col.saturating_add(chars.min(u32::MAX as usize) as u32);
                    continue;
                }
                b'(' => TokenKind::LParen,
                b')' => TokenKind::RParen,
                b'{' => TokenKind::LBrace,
                b'}' => TokenKind::RBrace,
                b'[' => TokenKind::LBracket,
                b']' => TokenKind::RBracket,
                b',' => TokenKind::Comma,
                b':' => TokenKind::Colon,
                b'=' => TokenKind::Equals,
                b'@' => TokenKind::At,
                b'!' => TokenKind::Bang,
                b'%' => {
                    self.skip_while(is_name_byte);
                    return Token {
                        kind: TokenKind::Local,
                        text: &self.source[start + 1..self.pos],
                        loc,
                    };
                }
                b if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
                    self.skip_while(|b| is_name_byte(b) || b == b'.');
                    TokenKind::Word
                }
                b if b.is_ascii_digit()
                    || (b == b'-'
                        && bytes.get(self.pos).is_some_and(u8::is_ascii_alphanumeric)) =>
                {
                    self.lex_number(start);
                    TokenKind::Number
                }
                b if b.is_ascii() => TokenKind::Unexpected,
                _ => {
                    // A non-ASCII character starts no token; the token is the whole character.
                    let width = self.source[start..]
                        .chars()
                        .next()
                        .map_or(1, char::len_utf8);
                    self.pos = start + width;
                    TokenKind::Unexpected
                }
            };
            return self.token(kind, start, loc);
        }
    }

    /// The rest of a literal: name characters and `.`, and a sign right after the exponent
    /// letter of a decimal (`1e-5`, not `0x1e-5`).
    fn lex_number(&mut self, start: usize) {
        let bytes = self.source.as_bytes();
        let digits = &bytes[start..];
        let digits = digits.strip_prefix(b"-").unwrap_or(digits);
        let hex = digits.starts_with(b"0x") || digits.starts_with(b"0X");
        let mut previous = bytes[self.pos - 1];
        while let Some(&next) = bytes.get(self.pos) {
            let exponent_sign =
                matches!(next, b'+' | b'-') && matches!(previous, b'e' | b'E') && !hex;
            if !(is_name_byte(next) || next == b'.' || exponent_sign) {
                break;
            }
            previous = next;
            self.pos += 1;
            self.col = self.col.saturating_add(1);
        }
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

fn is_utf8_continuation(b: u8) -> bool {
    b & 0xc0 == 0x80
}
