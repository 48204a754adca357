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

pub(crate) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Splits the whole source into tokens, ending with `Eof`. Never fails: characters that start no
/// token become `Unexpected` tokens for the parser to report.
pub(crate) fn tokenize(source: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut chars = source.char_indices().peekable();
    let (mut line, mut col) = (1u32, 1u32);
    while let Some(&(start, c)) = chars.peek() {
        let loc = SourceLoc::new(line, col);
        let mut end = start + c.len_utf8();
        chars.next();
        col = col.saturating_add(1);
        let kind = match c {
            '\n' => {
                line = line.saturating_add(1);
                col = 1;
                TokenKind::Newline
            }
            ' ' | '\t' | '\r' => continue,
            '#' => {
                while let Some(&(_, next)) = chars.peek() {
                    if next == '\n' {
                        break;
                    }
                    chars.next();
                    col = col.saturating_add(1);
                }
                continue;
            }
            '(' => TokenKind::LParen,
            ')' => TokenKind::RParen,
            '{' => TokenKind::LBrace,
            '}' => TokenKind::RBrace,
            '[' => TokenKind::LBracket,
            ']' => TokenKind::RBracket,
            ',' => TokenKind::Comma,
            ':' => TokenKind::Colon,
            '=' => TokenKind::Equals,
            '@' => TokenKind::At,
            '!' => TokenKind::Bang,
            '%' => {
                let name_start = end;
                while let Some(&(i, next)) = chars.peek() {
                    if !is_name_char(next) {
                        break;
                    }
                    end = i + next.len_utf8();
                    chars.next();
                    col = col.saturating_add(1);
                }
                tokens.push(Token {
                    kind: TokenKind::Local,
                    text: &source[name_start..end],
                    loc,
                });
                continue;
            }
            c if c.is_ascii_alphabetic() || c == '_' || c == '$' => {
                while let Some(&(i, next)) = chars.peek() {
                    if !(is_name_char(next) || next == '.') {
                        break;
                    }
                    end = i + next.len_utf8();
                    chars.next();
                    col = col.saturating_add(1);
                }
                TokenKind::Word
            }
            c if c.is_ascii_digit()
                || (c == '-'
                    && chars
                        .peek()
                        .is_some_and(|&(_, next)| next.is_ascii_alphanumeric())) =>
            {
                let mut previous = c;
                while let Some(&(i, next)) = chars.peek() {
                    let digits = source[start..end].trim_start_matches('-');
                    let hex = digits.starts_with("0x") || digits.starts_with("0X");
                    let exponent_sign =
                        matches!(next, '+' | '-') && matches!(previous, 'e' | 'E') && !hex;
                    if !(is_name_char(next) || next == '.' || exponent_sign) {
                        break;
                    }
                    end = i + next.len_utf8();
                    previous = next;
                    chars.next();
                    col = col.saturating_add(1);
                }
                TokenKind::Number
            }
            _ => TokenKind::Unexpected,
        };
        tokens.push(Token {
            kind,
            text: &source[start..end],
            loc,
        });
    }
    tokens.push(Token {
        kind: TokenKind::Eof,
        text: "",
        loc: SourceLoc::new(line, col),
    });
    tokens
}
