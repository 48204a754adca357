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

/// The opcodes of recent instructions by spelling: a program repeats a few opcodes many times,
/// and reading one (a dozen string comparisons per qualifier) costs more than the rest of its
/// line. Direct-mapped: a spelling that meets another in its slot is read again, never
/// mistaken for it. Only opcodes that parsed are kept, so a hit is what reading gives.
struct OpcodeMemo<'a> {
    slots: [Option<(&'a str, Opcode)>; OpcodeMemo::SLOTS],
}

impl<'a> OpcodeMemo<'a> {
    const SLOTS: usize = 64;

    fn new() -> Self {
        OpcodeMemo {
            slots: [None; Self::SLOTS],
        }
    }

    /// The slot of a spelling, from its length and its first and last eight bytes (an opcode is
    /// at least `atomic.` and a type).
    fn slot(text: &str) -> usize {
        let bytes = text.as_bytes();
        let word = |at: usize| {
            bytes
                .get(at..at + 8)
                .and_then(|eight| eight.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        let last = word(bytes.len().saturating_sub(8));
        let mixed = (word(0) ^ last.rotate_left(23) ^ bytes.len() as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (mixed >> 58) as usize
    }

    fn get(&self, text: &str) -> Option<Opcode> {
        match self.slots[Self::slot(text)] {
            Some((spelling, opcode)) if spelling == text => Some(opcode),
            _ => None,
        }
    }

    fn insert(&mut self, text: &'a str, opcode: Opcode) {
        self.slots[Self::slot(text)] = Some((text, opcode));
    }
}

/// The qualifiers of an `atomic.…` opcode.
#[derive(Clone, Copy)]
struct Opcode {
    op: AtomicOp,
    ty: ElemType,
    shape: VectorShape,
    order: MemoryOrder,
    scope: Scope,
    space: AddressSpace,
    hint: Option<CacheHint>,
    laxity: Option<FloatLaxity>,
}

impl Opcode {
    fn instruction(
        self,
        predicate: Option<Predicate>,
        addr: Value,
        operand: Option<Operand>,
        new_value: Option<Operand>,
    ) -> AtomicInst {
        AtomicInst {
            op: self.op,
            ty: self.ty,
            shape: self.shape,
            order: self.order,
            scope: self.scope,
            space: self.space,
            hint: self.hint,
            laxity: self.laxity,
            predicate,
            addr,
            operand,
            new_value,
            result: None,
        }
    }
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

/// A scalar operand of a plain line, its literal not yet in the kernel's pool.
#[derive(Clone, Copy)]
enum PlainScalar {
    Value(Value),
    Literal(u128),
}

/// A defined `%name` at `at`, and the offset past it.
fn plain_name(
    source: &str,
    at: usize,
    kernel: &Kernel,
    names: &NameIndex,
) -> Option<(Value, usize)> {
    let bytes = source.as_bytes();
    if bytes.get(at) != Some(&b'%') {
        return None;
    }
    let end = name_end(bytes, at + 1);
    let name = &source[at + 1..end];
    if name.is_empty() {
        return None;
    }
    Some((names.get(name.as_bytes(), &kernel.values)?, end))
}

/// `[%name]` at `at` (blanks allowed inside), and the offset past it.
fn plain_address(
    source: &str,
    at: usize,
    kernel: &Kernel,
    names: &NameIndex,
) -> Option<(Value, usize)> {
    let bytes = source.as_bytes();
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    let (value, end) = plain_name(source, blanks_end(bytes, at + 1), kernel, names)?;
    let end = blanks_end(bytes, end);
    (bytes.get(end) == Some(&b']')).then_some((value, end + 1))
}

/// A defined `%name` or a literal that fits `ty` at `at`, and the offset past it.
fn plain_scalar(
    source: &str,
    at: usize,
    kernel: &Kernel,
    names: &NameIndex,
    ty: ElemType,
) -> Option<(PlainScalar, usize)> {
    let bytes = source.as_bytes();
    if starts_number(bytes, at) {
        let end = number_end(bytes, at);
        let bits = literal_bits(&source[at..end], ty).ok()?;
        return Some((PlainScalar::Literal(bits), end));
    }
    plain_name(source, at, kernel, names).map(|(value, end)| (PlainScalar::Value(value), end))
}

/// The kinds of qualifier, in the order they must appear.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Order,
    Scope,
    Space,
    Shape,
    Type,
    Laxity,
    Hint,
}

impl Stage {
    const ALL: [Stage; 7] = [
        Stage::Order,
        Stage::Scope,
        Stage::Space,
        Stage::Shape,
        Stage::Type,
        Stage::Laxity,
        Stage::Hint,
    ];

    fn noun(self) -> &'static str {
        match self {
            Stage::Order => "memory order",
            Stage::Scope => "scope",
            Stage::Space => "address space",
            Stage::Shape => "vector shape",
            Stage::Type => "element type",
            Stage::Laxity => "float laxity",
            Stage::Hint => "cache hint",
        }
    }

    fn spellings(self) -> Vec<&'static str> {
        match self {
            Stage::Order => MemoryOrder::ALL.iter().map(|x| x.as_str()).collect(),
            Stage::Scope => Scope::ALL.iter().map(|x| x.as_str()).collect(),
            Stage::Space => AddressSpace::ALL.iter().map(|x| x.as_str()).collect(),
            Stage::Shape => VectorShape::ALL
                .iter()
                .filter(|s| s.is_vector())
                .map(|x| x.as_str())
                .collect(),
            Stage::Type => ElemType::ALL.iter().map(|x| x.as_str()).collect(),
            Stage::Laxity => FloatLaxity::ALL.iter().map(|x| x.as_str()).collect(),
            Stage::Hint => CacheHint::ALL.iter().map(|x| x.as_str()).collect(),
        }
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// "unknown memory order `acqrel`; expected one of relaxed, acquire, …" when the spelling is
/// close to one kind of qualifier, a general message otherwise.
fn unknown_qualifier(text: &str) -> String {
    if text.len() <= 24 {
        let closest = Stage::ALL
            .iter()
            .flat_map(|&stage| {
                stage.spellings().into_iter().map(move |name| {
                    // An abbreviation (`sys`, `glob`) is closer than any misspelling.
                    let abbreviates = text.len() >= 2 && name.starts_with(text);
                    let distance = if abbreviates {
                        0
                    } else {
                        edit_distance(text, name)
                    };
                    (distance, stage)
                })
            })
            .min_by_key(|&(distance, _)| distance);
        if let Some((distance, stage)) = closest {
            if distance <= (text.len() / 3).max(2) && distance < text.len() {
                return format!(
                    "unknown {} `{text}`; expected one of {}",
                    stage.noun(),
                    stage.spellings().join(", ")
                );
            }
        }
    }
    format!(
        "unknown qualifier `{text}`; expected a memory order, scope, address space, vector shape \
         (v2, v4, v8), element type, float laxity (ftz, ieee2008) or cache hint"
    )
}

pub(crate) fn parse_value_type(text: &str) -> Result<ValueType, String> {
    if text == "pred" {
        return Ok(ValueType::Pred);
    }
    if text == "ptr" {
        return Err(
            "a pointer type names its space: ptr.generic, ptr.global, ptr.shared or \
                    ptr.shared_cluster"
                .to_string(),
        );
    }
    if let Some(space) = text.strip_prefix("ptr.") {
        return AddressSpace::from_name(space)
            .map(ValueType::Ptr)
            .ok_or_else(|| {
                format!(
                    "unknown address space `{space}` in pointer type; expected one of {}",
                    Stage::Space.spellings().join(", ")
                )
            });
    }
    if let Some((shape, elem)) = text.split_once('.') {
        let shape = VectorShape::from_name(shape).filter(|s| s.is_vector());
        if let (Some(shape), Some(elem)) = (shape, ElemType::from_name(elem)) {
            return Ok(ValueType::Data(elem, shape));
        }
    } else if let Some(elem) = ElemType::from_name(text) {
        return Ok(ValueType::scalar(elem));
    }
    Err(format!(
        "unknown type `{text}`; expected pred, ptr.<space>, an element type (u32, f32, …) or a \
         vector type (v4.f32)"
    ))
}

/// The `.`-separated segments of a word with their byte offsets (a word is ASCII, so bytes are
/// columns). A byte search: `str::split` with a char pattern costs more on words this short.
fn dot_segments(word: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = Some(0);
    std::iter::from_fn(move || {
        let from = start?;
        let rest = &word.as_bytes()[from..];
        let end = match rest.iter().position(|&b| b == b'.') {
            Some(dot) => {
                start = Some(from + dot + 1);
                from + dot
            }
            None => {
                start = None;
                word.len()
            }
        };
        word.get(from..end).map(|segment| (from, segment))
    })
}

fn column_after(loc: SourceLoc, chars: usize) -> SourceLoc {
    SourceLoc::new(
        loc.line,
        loc.col.saturating_add(chars.min(u32::MAX as usize) as u32),
    )
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

    /// Reads the common instruction line straight from its bytes, without tokens:
    /// `[%r =] atomic.… [%a], x[, y]` where the opcode has been read before and each operand is
    /// a name or a number, ending with the line. Changes nothing unless it reads the whole line,
    /// and reads only lines that [`Parser::parse_instruction`] accepts, into the same
    /// instruction; anything else (a predicate, a fence, a brace list, a comment, a new
    /// opcode, a mistake) it leaves to that, answering `false`.
    fn plain_instruction(&mut self, kernel: &mut Kernel, names: &mut NameIndex) -> bool {
        let first = self.peek();
        let source = self.lexer.source();
        let bytes = source.as_bytes();
        let mut at = self.lexer.pos();
        let (result, opcode_text) = match first.kind {
            TokenKind::Local if !first.text.is_empty() => {
                at = blanks_end(bytes, at);
                if bytes.get(at) != Some(&b'=') {
                    return false;
                }
                let start = blanks_end(bytes, at + 1);
                if !bytes.get(start).is_some_and(|&b| starts_word(b)) {
                    return false;
                }
                at = word_end(bytes, start + 1);
                (Some(first), &source[start..at])
            }
            TokenKind::Word => (None, first.text),
            _ => return false,
        };
        let Some(opcode) = self.opcodes.get(opcode_text) else {
            return false;
        };
        let Some(addr) = plain_address(source, blanks_end(bytes, at), kernel, names) else {
            return false;
        };
        at = blanks_end(bytes, addr.1);
        let mut operands = [None; 2];
        if bytes.get(at) == Some(&b',') {
            for operand in &mut operands {
                let Some((scalar, end)) =
                    plain_scalar(source, blanks_end(bytes, at + 1), kernel, names, opcode.ty)
                else {
                    return false;
                };
                *operand = Some(scalar);
                at = blanks_end(bytes, end);
                if bytes.get(at) != Some(&b',') {
                    break;
                }
            }
        } else if opcode.op != AtomicOp::Load {
            return false;
        }
        if bytes.get(at) != Some(&b'\n') {
            return false;
        }
        // Each operand on its own: `operands.map(…)` was a call that handed the pair back
        // through memory, to be read again at once.
        let mut operand_of = |scalar: Option<PlainScalar>| {
            scalar.map(|scalar| match scalar {
                PlainScalar::Value(value) => Operand::Scalar(Scalar::Value(value)),
                PlainScalar::Literal(bits) => Operand::Scalar(Scalar::Const(kernel.constant(bits))),
            })
        };
        let operand = operand_of(operands[0]);
        let new_value = operand_of(operands[1]);
        let inst = opcode.instruction(None, addr.0, operand, new_value);
        add_atomic(kernel, names, inst, first.loc, result);
        #[cfg(test)]
        tests::PLAIN_READS.set(tests::PLAIN_READS.get() + 1);
        // On from the next line, as the token parser is after the line's newline.
        self.lexer.resume_at_line_start(at + 1);
        self.current = self.lexer.next_token();
        self.at_line_start = true;
        true
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

    /// `fence.<order>[.<scope>]`: the order is required (a fence without one would be relaxed,
    /// which orders nothing); an omitted scope is `device`, as for atomics.
    fn parse_fence(&mut self, token: Token<'a>) -> Parsed<Fence> {
        let mut segments = dot_segments(token.text)
            .map(|(offset, segment)| (segment, column_after(token.loc, offset)))
            .skip(1);
        let order_names = || {
            MemoryOrder::ALL
                .iter()
                .filter(|order| order.is_fence_order())
                .map(|order| order.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let order = match segments.next() {
            None | Some(("", _)) => {
                let loc = column_after(token.loc, "fence".len());
                return Err(self.error(
                    loc,
                    format!(
                        "expected a memory order after `fence.`: one of {}",
                        order_names()
                    ),
                ));
            }
            Some((name, loc)) => MemoryOrder::from_name(name).ok_or_else(|| {
                self.error(
                    loc,
                    format!(
                        "expected a memory order after `fence.`, found `{name}`; one of {}",
                        order_names()
                    ),
                )
            })?,
        };
        let mut fence = Fence {
            order,
            scope: Scope::Device,
        };
        if let Some((name, loc)) = segments.next() {
            if name.is_empty() {
                return Err(self.error(loc, "empty qualifier: `..` or a trailing `.`"));
            }
            fence.scope = Scope::from_name(name).ok_or_else(|| {
                self.error(
                    loc,
                    format!(
                        "a fence takes a memory order and a scope only; expected a scope ({}), \
                         found `{name}`",
                        Stage::Scope.spellings().join(", ")
                    ),
                )
            })?;
        }
        if let Some((name, loc)) = segments.next() {
            return Err(self.error(
                loc,
                format!(
                    "a fence takes a memory order and a scope only; `{name}` after the scope \
                     has no meaning for a fence"
                ),
            ));
        }
        Ok(fence)
    }

    fn parse_opcode(&mut self, token: Token<'a>) -> Parsed<Opcode> {
        if let Some(opcode) = self.opcodes.get(token.text) {
            return Ok(opcode);
        }
        let opcode = self.read_opcode(token)?;
        self.opcodes.insert(token.text, opcode);
        Ok(opcode)
    }

    fn read_opcode(&mut self, token: Token<'a>) -> Parsed<Opcode> {
        let mut segments = dot_segments(token.text)
            .map(|(offset, segment)| (segment, column_after(token.loc, offset)));
        if segments.next().map(|(first, _)| first) != Some("atomic") {
            return Err(self.error(
                token.loc,
                format!(
                    "expected an instruction (`atomic.<op>…` or `fence.<order>.<scope>`), found `{}`",
                    token.text
                ),
            ));
        }
        let op_names = || {
            AtomicOp::ALL
                .iter()
                .map(|op| op.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let op = match segments.next() {
            None | Some(("", _)) => {
                let loc = column_after(token.loc, "atomic.".len());
                return Err(self.error(
                    loc,
                    format!(
                        "expected an operation after `atomic.`; one of {}",
                        op_names()
                    ),
                ));
            }
            Some((name, loc)) => AtomicOp::from_name(name).ok_or_else(|| {
                self.error(
                    loc,
                    format!(
                        "unknown atomic operation `{name}`; expected one of {}",
                        op_names()
                    ),
                )
            })?,
        };
        let mut opcode = Opcode {
            op,
            ty: ElemType::U32,
            shape: VectorShape::Scalar,
            order: MemoryOrder::Relaxed,
            scope: Scope::Device,
            space: AddressSpace::Generic,
            hint: None,
            laxity: None,
        };
        let mut last: Option<(Stage, &str)> = None;
        let mut has_type = false;
        for (segment, loc) in segments {
            if segment.is_empty() {
                return Err(self.error(loc, "empty qualifier: `..` or a trailing `.`"));
            }
            let stage = if let Some(order) = MemoryOrder::from_name(segment) {
                opcode.order = order;
                Stage::Order
            } else if let Some(scope) = Scope::from_name(segment) {
                opcode.scope = scope;
                Stage::Scope
            } else if let Some(space) = AddressSpace::from_name(segment) {
                opcode.space = space;
                Stage::Space
            } else if let Some(shape) = VectorShape::from_name(segment) {
                opcode.shape = shape;
                Stage::Shape
            } else if let Some(ty) = ElemType::from_name(segment) {
                opcode.ty = ty;
                has_type = true;
                Stage::Type
            } else if let Some(laxity) = FloatLaxity::from_name(segment) {
                opcode.laxity = Some(laxity);
                Stage::Laxity
            } else if let Some(hint) = CacheHint::from_name(segment) {
                opcode.hint = Some(hint);
                Stage::Hint
            } else {
                return Err(self.error(loc, unknown_qualifier(segment)));
            };
            if let Some((previous, previous_text)) = last {
                if stage == previous {
                    return Err(self.error(
                        loc,
                        format!(
                            "second {} `{segment}`; the instruction already has `{previous_text}`",
                            stage.noun()
                        ),
                    ));
                }
                if stage < previous {
                    return Err(self.error(
                        loc,
                        format!(
                            "{} `{segment}` must come before {} `{previous_text}`; qualifiers go \
                             in the order op, memory order, scope, space, shape, type, laxity, hint",
                            stage.noun(),
                            previous.noun()
                        ),
                    ));
                }
            }
            last = Some((stage, segment));
        }
        if !has_type {
            let loc = column_after(token.loc, token.text.len());
            return Err(self.error(
                loc,
                format!(
                    "expected an element type at the end of `{}`, e.g. `{}.u32`",
                    token.text, token.text
                ),
            ));
        }
        Ok(opcode)
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
