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

/// What each byte may do, as bit flags of one table lookup (the lexer's inner loops are one
/// load and one test per byte).
const NAME: u8 = 1;
const WORD: u8 = 2;
const SPACE: u8 = 4;

const fn byte_classes() -> [u8; 256] {
    let mut classes = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' {
            classes[b] = NAME | WORD;
        }
        if byte == b'.' {
            classes[b] = WORD;
        }
        if matches!(byte, b' ' | b'\t' | b'\r') {
            classes[b] = SPACE;
        }
        b += 1;
    }
    classes
}

static CLASSES: [u8; 256] = byte_classes();

fn is(byte: u8, class: u8) -> bool {
    CLASSES[byte as usize] & class != 0
}

/// The offset of the first byte of `bytes` at or after `from` that is not of `class`.
fn skip_class(bytes: &[u8], from: usize, class: u8) -> usize {
    let rest = bytes.get(from..).unwrap_or_default();
    from + rest
        .iter()
        .position(|&b| !is(b, class))
        .unwrap_or(rest.len())
}

// The rules of the token shapes, for the lexer and for the parser's reading of plain lines.

/// Past the blanks (spaces, tabs, carriage returns) at `from`.
pub(crate) fn blanks_end(bytes: &[u8], from: usize) -> usize {
    skip_class(bytes, from, SPACE)
}

/// Past the name characters at `from`: the end of `%name` whose name starts there.
pub(crate) fn name_end(bytes: &[u8], from: usize) -> usize {
    skip_class(bytes, from, NAME)
}

/// Whether a word (`Word` token) starts with `byte`.
pub(crate) fn starts_word(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_' || byte == b'$'
}

/// Past the rest of a word whose first byte is before `from`. Words run long (an opcode is
/// some forty bytes), so eight bytes are tested at once while all eight are word bytes.
pub(crate) fn word_end(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(eight) = bytes.get(at..at + 8) {
        let all = eight.iter().fold(WORD, |all, &b| all & CLASSES[b as usize]);
        if all == 0 {
            break;
        }
        at += 8;
    }
    skip_class(bytes, at, WORD)
}

/// Whether a literal (`Number` token) starts at `at`: a digit, or `-` then a digit or letter.
pub(crate) fn starts_number(bytes: &[u8], at: usize) -> bool {
    match bytes.get(at) {
        Some(b) if b.is_ascii_digit() => true,
        Some(b'-') => bytes.get(at + 1).is_some_and(u8::is_ascii_alphanumeric),
        _ => false,
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
    /// Byte offset where the current line starts.
    line_start: usize,
    /// UTF-8 continuation bytes passed on the current line. Only comments and unexpected
    /// characters hold non-ASCII text, so a column (counted in characters) is the byte offset in
    /// the line less these, and is computed only for the tokens that need one.
    line_continuations: usize,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(source: &'a str) -> Self {
        Lexer {
            source,
            pos: 0,
            line: 1,
            line_start: 0,
            line_continuations: 0,
        }
    }

    /// The source text.
    pub(crate) fn source(&self) -> &'a str {
        self.source
    }

    /// The byte offset of the next character.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Goes on from byte offset `pos`, the start of a line after the current one (a line the
    /// parser has read by itself, its newline included).
    pub(crate) fn resume_at_line_start(&mut self, pos: usize) {
        self.pos = pos;
        self.line = self.line.saturating_add(1);
        self.line_start = pos;
        self.line_continuations = 0;
    }

    /// How many values the rest of the source can define, as a capacity hint: an instruction
    /// defines at most one, one per line and per 20 bytes (`%r=atomic.load.u8[%a]` and its
    /// newline are 22), so a source of empty lines asks for no more room than its own size.
    pub(crate) fn value_lines_left(&self) -> usize {
        let rest = &self.source.as_bytes()[self.pos..];
        // Sums of at most 255 bytes in a byte each, which the compiler computes sixteen or more
        // bytes per instruction.
        let lines: usize = rest
            .chunks(255)
            .map(|chunk| {
                let newlines = chunk
                    .iter()
                    .fold(0u8, |count, &b| count + u8::from(b == b'\n'));
                usize::from(newlines)
            })
            .sum();
        lines.min(rest.len() / 20)
    }

    /// The position of byte offset `pos` on the current line: columns count characters from 1.
    fn loc_at(&self, pos: usize) -> SourceLoc {
        let chars = pos - self.line_start - self.line_continuations;
        let col = (chars.min(u32::MAX as usize) as u32).saturating_add(1);
        SourceLoc::new(self.line, col)
    }

    // Inlined into its callers, always: returned through memory, the token was copied out
    // right after being written, and perf put a tenth of the parser's samples on that copy.
    // A plain `#[inline]` left the call in the parser's hottest loop.
    #[inline(always)]
    pub(crate) fn next_token(&mut self) -> Token<'a> {
        let bytes = self.source.as_bytes();
        let mut start = self.pos;
        loop {
            start = blanks_end(bytes, start);
            if bytes.get(start) != Some(&b'#') {
                break;
            }
            // A comment runs to the end of the line; its column count is in characters.
            let rest = &bytes[start..];
            let length = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            self.line_continuations += rest[..length]
                .iter()
                .filter(|&&b| is_utf8_continuation(b))
                .count();
            start += length;
        }
        let loc = self.loc_at(start);
        let Some(&byte) = bytes.get(start) else {
            self.pos = start;
            return Token {
                kind: TokenKind::Eof,
                text: "",
                loc,
            };
        };
        let mut end = start + 1;
        let kind = match byte {
            b'\n' => {
                self.line = self.line.saturating_add(1);
                self.line_start = end;
                self.line_continuations = 0;
                TokenKind::Newline
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
                self.pos = name_end(bytes, end);
                return Token {
                    kind: TokenKind::Local,
                    text: &self.source[end..self.pos],
                    loc,
                };
            }
            b if starts_word(b) => {
                end = word_end(bytes, end);
                TokenKind::Word
            }
            _ if starts_number(bytes, start) => {
                end = number_end(bytes, start);
                TokenKind::Number
            }
            b if b.is_ascii() => TokenKind::Unexpected,
            _ => {
                // A non-ASCII character starts no token; the token is the whole character.
                let width = self.source[start..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
                end = start + width;
                self.line_continuations += width - 1;
                TokenKind::Unexpected
            }
        };
        self.pos = end;
        Token {
            kind,
            text: &self.source[start..end],
            loc,
        }
    }
}

/// Where the literal starting at `start` (see [`starts_number`]) ends: name characters and `.`, and a sign right after
/// the exponent letter of a decimal (`1e-5`, not `0x1e-5`).
pub(crate) fn number_end(bytes: &[u8], start: usize) -> usize {
    let digits = &bytes[start..];
    let digits = digits.strip_prefix(b"-").unwrap_or(digits);
    let hex = digits.starts_with(b"0x") || digits.starts_with(b"0X");
    let mut previous = bytes[start];
    let mut end = start + 1;
    while let Some(&next) = bytes.get(end) {
        let exponent_sign = matches!(next, b'+' | b'-') && matches!(previous, b'e' | b'E') && !hex;
        if !(is(next, WORD) || exponent_sign) {
            break;
        }
        previous = next;
        end += 1;
    }
    end
}

fn is_utf8_continuation(b: u8) -> bool {
    b & 0xc0 == 0x80
}
