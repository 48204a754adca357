//! The parser: tokens to a [`Module`], resolving names and typing literals.
//!
//! Structure only: every well-formed instruction becomes an [`AtomicInst`], even one whose types
//! disagree; [`crate::verify`] judges meaning. What cannot be represented (an undefined name, a
//! literal that does not fit, an unknown qualifier) is reported here. After an error the parser
//! skips to the next line, so one pass reports every broken line.

use crate::diag::{Diagnostic, Diagnostics};
use crate::kernel::{
    AtomicInst, Fence, Inst, Kernel, Module, Operand, Predicate, Scalar, SourceLoc, Value,
};
use crate::name_index::NameIndex;
use crate::types::{
    AddressSpace, AtomicOp, CacheHint, ElemType, FloatLaxity, MemoryOrder, Scope, ValueType,
    VectorShape,
};
use cranelift_entity::{EntityRef, SecondaryMap};

use super::lexer::{
    blanks_end, name_end, number_end, starts_number, starts_word, word_end, Lexer, Token, TokenKind,
};
use super::literal::literal_bits;

mod opcode;
mod plain;

pub(super) use opcode::parse_value_type;
use opcode::OpcodeMemo;

/// The error has been recorded; the caller recovers.
struct Reported;

type Parsed<T> = Result<T, Reported>;

pub(crate) struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The one token of lookahead.
    current: Token<'a>,
    /// Whether `current` starts a line (the token before it was a newline, or there was none).
    at_line_start: bool,
    errors: Diagnostics,
    /// Opcodes read so far, by their spelling.
    opcodes: OpcodeMemo<'a>,
    /// Whether the next kernel is the module's first.
    first_kernel: bool,
    /// Whether plain instruction lines are read without tokens ([`Parser::plain_instruction`]);
    /// off only to test that both readings agree.
    plain_lines: bool,
}

/// Appends an atomic read at `start`, defining its result (named by the token `result`).
fn add_atomic(
    kernel: &mut Kernel,
    names: &mut NameIndex,
    inst: AtomicInst,
    start: SourceLoc,
    result: Option<Token<'_>>,
) {
    let id = kernel.push(inst, result.map(|token| token.text));
    set_inst_loc(kernel, id, start);
    if let (Some(token), Some(value)) = (result, kernel.insts[id].result()) {
        kernel.values[value].loc = token.loc;
        names.insert(token.text.as_bytes(), value, &kernel.values);
    }
}

/// Records where instruction `id` is. The map grows by doubling (indexing one past its end
/// grows it by one entry, a call per instruction), and [`Parser::parse_kernel`] trims it to the
/// kernel's instructions at the end.
fn set_inst_loc(kernel: &mut Kernel, id: Inst, loc: SourceLoc) {
    if kernel.inst_locs.get(id).is_none() {
        kernel
            .inst_locs
            .resize((id.index() + 1).next_power_of_two().max(64));
    }
    kernel.inst_locs[id] = loc;
}

impl<'a> Parser<'a> {
    /// A parser of `source` that keeps the first `limit` diagnostics and counts the rest.
    pub(crate) fn new(source: &'a str, limit: usize) -> Self {
        let mut lexer = Lexer::new(source);
        let current = lexer.next_token();
        Parser {
            lexer,
            current,
            at_line_start: true,
            errors: Diagnostics::with_limit(limit),
            opcodes: OpcodeMemo::new(),
            first_kernel: true,
            plain_lines: true,
        }
    }

    fn peek(&self) -> Token<'a> {
        self.current
    }

    fn at(&self, kind: TokenKind) -> bool {
        self.peek().kind == kind
    }

    fn at_keyword(&self, word: &str) -> bool {
        let token = self.peek();
        token.kind == TokenKind::Word && token.text == word
    }

    fn advance(&mut self) -> Token<'a> {
        let token = self.current;
        if token.kind != TokenKind::Eof {
            self.at_line_start = token.kind == TokenKind::Newline;
            self.current = self.lexer.next_token();
        }
        token
    }

    fn error(&mut self, loc: SourceLoc, message: impl Into<String>) -> Reported {
        if self.errors.keeps_next() {
            self.errors.push(Diagnostic::new(loc, message));
        } else {
            self.errors.count_omitted();
        }
        Reported
    }

    /// Reports "expected …, found …" at the next token.
    fn expected(&mut self, what: &str) -> Reported {
        let token = self.peek();
        let message = match token.kind {
            TokenKind::Unexpected => {
                format!("unexpected character {}; expected {what}", token.describe())
            }
            _ => format!("expected {what}, found {}", token.describe()),
        };
        self.error(token.loc, message)
    }

    fn expect(&mut self, kind: TokenKind, what: &str) -> Parsed<Token<'a>> {
        if self.at(kind) {
            Ok(self.advance())
        } else {
            Err(self.expected(what))
        }
    }

    fn skip_newlines(&mut self) {
        while self.at(TokenKind::Newline) {
            self.advance();
        }
    }

    /// Skips past the end of the current line.
    fn skip_line(&mut self) {
        while !matches!(self.peek().kind, TokenKind::Newline | TokenKind::Eof) {
            self.advance();
        }
        self.advance();
    }

    fn at_line_start(&self) -> bool {
        self.at_line_start
    }

    pub(crate) fn parse_module(mut self) -> Result<Module, Diagnostics> {
        let mut module = Module::default();
        loop {
            self.skip_newlines();
            if self.at(TokenKind::Eof) {
                break;
            }
            if self.at_keyword("kernel") {
                if let Some(kernel) = self.parse_kernel() {
                    module.kernels.push(kernel);
                }
            } else {
                self.expected("`kernel`");
                self.skip_line();
            }
        }
        if module.kernels.is_empty() && self.errors.is_empty() {
            let loc = self.peek().loc;
            self.error(
                loc,
                "expected `kernel`, found end of input; a module holds one or more kernels",
            );
        }
        if self.errors.is_empty() {
            Ok(module)
        } else {
            Err(self.errors)
        }
    }

    fn parse_kernel(&mut self) -> Option<Kernel> {
        let keyword = self.advance();
        let mut kernel = Kernel::new("");
        kernel.loc = keyword.loc;
        // The first kernel's names are indexed with room for every value the rest of the
        // source can define: a file is mostly one large kernel, whose index would otherwise be
        // rebuilt a dozen times as it grows (each time in fresh memory), or many small ones,
        // where the first one's unused room costs writing it once (11 bytes a line, less than
        // copying the source). Counted for the first kernel only, so the source is counted
        // once.
        // Its instructions, values and locations get the same room, for the same reason: a
        // vector that doubles as it grows writes each of its bytes about twice. What a first
        // kernel of many leaves unused is given back at its end.
        let room = std::mem::take(&mut self.first_kernel).then(|| self.lexer.value_lines_left());
        let mut names = match room {
            Some(lines) => {
                kernel.insts.reserve_exact(lines);
                kernel.values.reserve_exact(lines);
                kernel.inst_locs = SecondaryMap::with_capacity(lines);
                NameIndex::with_capacity(lines)
            }
            None => NameIndex::default(),
        };
        if self.parse_header(&mut kernel, &mut names).is_err() {
            // Resume at the body's `{`, unless the next kernel starts first.
            loop {
                match self.peek().kind {
                    TokenKind::LBrace => {
                        self.advance();
                        break;
                    }
                    TokenKind::Eof => return None,
                    TokenKind::Word if self.at_keyword("kernel") && self.at_line_start() => {
                        return None
                    }
                    _ => {
                        self.advance();
                    }
                }
            }
        }
        loop {
            self.skip_newlines();
            match self.peek().kind {
                TokenKind::RBrace => {
                    self.advance();
                    break;
                }
                TokenKind::Eof => {
                    self.expected(&format!(
                        "`}}` to close kernel `{}` (opened at {})",
                        kernel.name, keyword.loc
                    ));
                    break;
                }
                TokenKind::Word if self.at_keyword("kernel") => {
                    self.expected(&format!(
                        "`}}` to close kernel `{}` (opened at {})",
                        kernel.name, keyword.loc
                    ));
                    break;
                }
                _ => {
                    if !(self.plain_lines && self.plain_instruction(&mut kernel, &mut names))
                        && self.parse_instruction(&mut kernel, &mut names).is_err()
                    {
                        self.skip_line();
                    }
                }
            }
        }
        kernel.inst_locs.resize(kernel.insts.len());
        if room.is_some() {
            kernel.insts.shrink_to_fit();
            kernel.values.shrink_to_fit();
        }
        Some(kernel)
    }

    fn parse_header(&mut self, kernel: &mut Kernel, names: &mut NameIndex) -> Parsed<()> {
        let name = self.peek();
        if name.kind != TokenKind::Word || name.text.contains('.') {
            return Err(self.expected("a kernel name after `kernel`"));
        }
        self.advance();
        kernel.name = name.text.to_string();
        self.expect(TokenKind::LParen, "`(` after the kernel name")?;
        self.skip_newlines();
        if !self.at(TokenKind::RParen) {
            loop {
                self.skip_newlines();
                let param = self.expect(TokenKind::Local, "a parameter `%name`")?;
                if param.text.is_empty() {
                    return Err(self.error(param.loc, "expected a name after `%`"));
                }
                self.expect(TokenKind::Colon, "`:` after the parameter name")?;
                let ty_token = self.expect(TokenKind::Word, "a parameter type")?;
                let ty = parse_value_type(ty_token.text)
                    .map_err(|message| self.error(ty_token.loc, message))?;
                let value = kernel.add_param(param.text, ty);
                kernel.values[value].loc = param.loc;
                names.insert(param.text.as_bytes(), value, &kernel.values);
                self.skip_newlines();
                if self.at(TokenKind::RParen) {
                    break;
                }
                self.expect(TokenKind::Comma, "`,` or `)` after a parameter")?;
            }
        }
        self.advance();
        self.skip_newlines();
        self.expect(TokenKind::LBrace, "`{` to open the kernel body")?;
        Ok(())
    }

    fn resolve(&mut self, token: Token<'a>, names: &NameIndex, kernel: &Kernel) -> Parsed<Value> {
        if token.text.is_empty() {
            return Err(self.error(token.loc, "expected a name after `%`"));
        }
        names
            .get(token.text.as_bytes(), &kernel.values)
            .map(|value| kernel.id(value))
            .ok_or_else(|| self.error(token.loc, format!("undefined value `%{}`", token.text)))
    }

    fn parse_instruction(&mut self, kernel: &mut Kernel, names: &mut NameIndex) -> Parsed<()> {
        let start = self.peek().loc;
        let mut predicate = None;
        if self.at(TokenKind::At) {
            self.advance();
            let negated = self.at(TokenKind::Bang);
            if negated {
                self.advance();
            }
            let token = self.expect(TokenKind::Local, "a predicate `%name` after `@`")?;
            predicate = Some(Predicate {
                value: self.resolve(token, names, kernel)?,
                negated,
            });
        }
        let mut result = None;
        if self.at(TokenKind::Local) {
            let token = self.advance();
            if token.text.is_empty() {
                return Err(self.error(token.loc, "expected a name after `%`"));
            }
            if !self.at(TokenKind::Equals) {
                return Err(self.expected(&format!("`=` after the result `%{}`", token.text)));
            }
            self.advance();
            result = Some(token);
        }
        if !self.at(TokenKind::Word) {
            return Err(self.expected("an instruction: `atomic.<op>…` or `fence.<order>.<scope>`"));
        }
        let opcode_token = self.advance();
        if opcode_token.text == "fence" || opcode_token.text.starts_with("fence.") {
            if predicate.is_some() {
                return Err(self.error(
                    start,
                    "a fence takes no predicate; it has a memory order and a scope only",
                ));
            }
            if let Some(token) = result {
                return Err(self.error(
                    token.loc,
                    format!(
                        "a fence has no result; remove `%{} =` (a fence reads and writes nothing)",
                        token.text
                    ),
                ));
            }
            let fence = self.parse_fence(opcode_token)?;
            self.end_of_instruction()?;
            let id = kernel.push_fence(fence);
            set_inst_loc(kernel, id, start);
            return Ok(());
        }
        let opcode = self.parse_opcode(opcode_token)?;
        self.expect(TokenKind::LBracket, "`[` before the address")?;
        let addr_token = self.expect(TokenKind::Local, "an address `%name` inside `[…]`")?;
        let addr = self.resolve(addr_token, names, kernel)?;
        self.expect(TokenKind::RBracket, "`]` after address")?;
        // A load takes no operand; the verifier judges one that is written anyway. Every other
        // access needs its `,` here.
        let operand = if opcode.op == AtomicOp::Load && !self.at(TokenKind::Comma) {
            None
        } else {
            self.expect(TokenKind::Comma, "`,` after the address")?;
            Some(self.parse_operand(kernel, names, opcode.ty)?)
        };
        let new_value = if self.at(TokenKind::Comma) {
            self.advance();
            Some(self.parse_operand(kernel, names, opcode.ty)?)
        } else {
            None
        };
        self.end_of_instruction()?;
        let inst = opcode.instruction(predicate, addr, operand, new_value);
        add_atomic(kernel, names, inst, start, result);
        Ok(())
    }

    /// The end of an instruction's line (or the kernel's `}` / the end of input after it).
    fn end_of_instruction(&mut self) -> Parsed<()> {
        match self.peek().kind {
            TokenKind::Newline => {
                self.advance();
                Ok(())
            }
            TokenKind::RBrace | TokenKind::Eof => Ok(()),
            TokenKind::Comma => Err(self.expected(
                "end of line: an atomic takes at most two operands (cas: expected, then new)",
            )),
            _ => Err(self.expected("end of line after the instruction")),
        }
    }

    fn parse_operand(
        &mut self,
        kernel: &mut Kernel,
        names: &NameIndex,
        ty: ElemType,
    ) -> Parsed<Operand> {
        if !self.at(TokenKind::LBrace) {
            return Ok(Operand::Scalar(self.parse_scalar(kernel, names, ty)?));
        }
        self.advance();
        if self.at(TokenKind::RBrace) {
            return Err(self.expected("a vector element"));
        }
        let mut elements = Vec::new();
        loop {
            elements.push(self.parse_scalar(kernel, names, ty)?);
            if self.at(TokenKind::RBrace) {
                self.advance();
                break;
            }
            self.expect(TokenKind::Comma, "`,` or `}` in a vector operand")?;
        }
        Ok(kernel.vector(&elements))
    }

    fn parse_scalar(
        &mut self,
        kernel: &mut Kernel,
        names: &NameIndex,
        ty: ElemType,
    ) -> Parsed<Scalar> {
        let token = self.peek();
        match token.kind {
            TokenKind::Local => {
                self.advance();
                Ok(Scalar::Value(self.resolve(token, names, kernel)?))
            }
            TokenKind::Number | TokenKind::Word
                if token.kind == TokenKind::Number || matches!(token.text, "inf" | "nan") =>
            {
                self.advance();
                let bits = literal_bits(token.text, ty).map_err(|m| self.error(token.loc, m))?;
                Ok(Scalar::Const(kernel.constant(bits)))
            }
            TokenKind::LBrace => Err(self.error(
                token.loc,
                "nested `{`: a vector operand is a flat list of scalars",
            )),
            _ => Err(self.expected("an operand (`%name`, a literal or `{…}`)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::all_cells;

    thread_local! {
        /// Lines this thread's parsers have read plainly.
        pub(super) static PLAIN_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    fn parse_both_ways(source: &str) -> [String; 2] {
        [true, false].map(|plain_lines| {
            let mut parser = Parser::new(source, usize::MAX);
            parser.plain_lines = plain_lines;
            match parser.parse_module() {
                Ok(module) => format!("{module:?}"),
                Err(errors) => format!("{:?}", errors.into_vec()),
            }
        })
    }

    /// Reading plain lines without tokens gives the module, or the diagnostics, that the token
    /// parser gives: on kernels of the lowering matrix's cells, each instruction line followed
    /// by a copy (whose opcode has been read, so that it is a candidate for a plain reading)
    /// changed at one place, in every way a plain line can be broken.
    #[test]
    fn plain_lines_read_as_the_token_parser_reads_them() {
        let literals = "kernel lits(%a: ptr.generic, %h: f16x2, %x: u32) {\n  \
            %r = atomic.cas.f64 [%a], -0.0, 1e-300\n  atomic.exch.s8 [%a], -128\n  \
            atomic.exch.b16 [ %a ] , 0xFFFF\n  %s = atomic.add.u32 [%a],%x\n  \
            %t = atomic.load.u32 [%a]\n  %u = atomic.add.u32 [%a], %s, %t\n  \
            atomic.exch.s8 [%a], 127\n  atomic.exch.f32 [%a], nan\n  %r = atomic.add.u32 [%a], 1\n}\n";
        let mut kernels: Vec<String> = all_cells()
            .step_by(5)
            .map(|cell| {
                crate::text::print(&Module {
                    kernels: vec![cell.kernel()],
                })
            })
            .collect();
        kernels.push(literals.to_string());
        let pieces = [
            "",
            " ",
            "\t",
            "\r",
            "\n",
            "#",
            "# é\n",
            "é",
            ",",
            "[",
            "]",
            "{",
            "}",
            "=",
            "%",
            "%x",
            "%r",
            "%a",
            "@%p ",
            "-",
            "-1",
            "1e-5",
            "0x1f",
            "inf",
            "atomic.add.u32",
            "fence.acquire",
            ".",
            "u32",
            "%p",
            "}\n",
            "kernel k() {\n",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound.max(1) as u64) as usize
        };
        let mut plain_reads = 0;
        for round in 0..4 {
            for kernel in &kernels {
                let lines: Vec<&str> = kernel.lines().collect();
                let mut source = String::new();
                for (index, line) in lines.iter().enumerate() {
                    source.push_str(line);
                    source.push('\n');
                    if index == 0 || index + 1 == lines.len() {
                        continue;
                    }
                    let mut copy = line.to_string();
                    if round > 0 {
                        let mut at = next(copy.len() + 1);
                        while !copy.is_char_boundary(at) {
                            at -= 1;
                        }
                        let end = (at + next(4)).min(copy.len());
                        copy.replace_range(at..end, pieces[next(pieces.len())]);
                    }
                    source.push_str(&copy);
                    source.push('\n');
                }
                let before = PLAIN_READS.get();
                let [plain, tokens] = parse_both_ways(&source);
                assert_eq!(plain, tokens, "{source}");
                plain_reads += PLAIN_READS.get() - before;
            }
        }
        // Every unchanged copy of a scalar atomic, and some changed ones, are read plainly.
        let scalar_atomics = kernels
            .iter()
            .flat_map(|kernel| kernel.lines())
            .filter(|line| line.contains("atomic.") && !line.contains('{'))
            .count();
        assert!(
            plain_reads > scalar_atomics,
            "{plain_reads} lines read plainly, {scalar_atomics} scalar atomics"
        );
    }
}
