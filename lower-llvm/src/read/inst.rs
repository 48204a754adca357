//! One atomic instruction read from its tokens: `atomicrmw`, `cmpxchg`, `load atomic`,
//! `store atomic` and `fence`, with their types, orders, sync scope, alignment and metadata.

use std::ops::Range;

use atomir_ir::{AtomicOp, ElemType, MemoryOrder, VectorShape};

use super::lex::{Kind, Token};
use super::{AmdgpuMetadata, LlAccess, LlKind, LlType};
use crate::spelling::{self, RmwClass, SyncScope};
use crate::target::Triple;

/// An instruction as read, before the reader adds where it is.
pub(crate) struct Parsed {
    pub kind: LlKind,
    pub order: MemoryOrder,
    pub failure_order: Option<MemoryOrder>,
    pub scope: SyncScope,
    pub access: Option<LlAccess>,
}

/// Why an atomic instruction cannot be read: the byte offset in its line and what was expected.
pub(crate) struct ParseError {
    pub at: usize,
    pub message: String,
}

/// The tokens of one instruction and a position in them.
pub(crate) struct Cursor<'a> {
    pub line: &'a str,
    pub tokens: &'a [Token],
    pub pos: usize,
}

type Parse<T> = Result<T, ParseError>;

impl<'a> Cursor<'a> {
    fn text(&self, index: usize) -> &'a str {
        &self.line[self.tokens[index].range.clone()]
    }

    fn peek(&self) -> Option<&'a str> {
        (self.pos < self.tokens.len()).then(|| self.text(self.pos))
    }

    fn at(&self) -> usize {
        self.tokens
            .get(self.pos)
            .map_or(self.line.trim_end().len(), |t| t.range.start)
    }

    fn error<T>(&self, message: impl Into<String>) -> Parse<T> {
        Err(ParseError {
            at: self.at(),
            message: message.into(),
        })
    }

    fn expected<T>(&self, what: &str) -> Parse<T> {
        match self.peek() {
            Some(found) => self.error(format!("expected {what}, found `{found}`")),
            None => self.error(format!("expected {what} at the end of the instruction")),
        }
    }

    fn eat(&mut self, word: &str) -> bool {
        if self.peek() == Some(word) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, word: &str) -> Parse<()> {
        if self.eat(word) {
            Ok(())
        } else {
            self.expected(&format!("`{word}`"))
        }
    }

    fn number(&mut self, what: &str) -> Parse<u32> {
        match self.peek().and_then(|text| text.parse().ok()) {
            Some(number) => {
                self.pos += 1;
                Ok(number)
            }
            None => self.expected(what),
        }
    }

    /// `addrspace(N)`, if present.
    fn address_space(&mut self) -> Parse<u32> {
        if !self.eat("addrspace") {
            return Ok(0);
        }
        self.expect("(")?;
        let number = self.number("an address space number")?;
        self.expect(")")?;
        Ok(number)
    }

    /// A first-class type: `iN`, `half`, `bfloat`, `float`, `double`, `<N x T>`, `ptr
    /// [addrspace(N)]`, or a typed pointer `T [addrspace(N)]*`.
    pub(crate) fn ty(&mut self) -> Parse<LlType> {
        let Some(word) = self.peek() else {
            return self.expected("a type");
        };
        let mut ty = match word {
            "half" => LlType::Half,
            "bfloat" => LlType::BFloat,
            "float" => LlType::Float,
            "double" => LlType::Double,
            "ptr" => {
                self.pos += 1;
                let space = self.address_space()?;
                return Ok(LlType::Ptr {
                    space,
                    pointee: None,
                });
            }
            "<" => {
                self.pos += 1;
                let len = self.number("a vector length")?;
                self.expect("x")?;
                let element = self.ty()?;
                if matches!(element, LlType::Vector(..)) {
                    return self.error("a vector of vectors is not an LLVM type");
                }
                self.expect(">")?;
                return self.pointer_suffix(LlType::Vector(len, Box::new(element)));
            }
            _ => match word.strip_prefix('i').and_then(|bits| bits.parse().ok()) {
                Some(bits) => LlType::Int(bits),
                None => {
                    return self.error(format!(
                        "`{word}` is not a type atomir reads (iN, half, bfloat, float, double, \
                         <N x T>, ptr)"
                    ))
                }
            },
        };
        if !matches!(ty, LlType::Vector(..) | LlType::Ptr { .. }) {
            self.pos += 1;
            ty = self.pointer_suffix(ty)?;
        }
        Ok(ty)
    }

    /// LLVM 14's typed pointer after its pointee: `[addrspace(N)] *`, possibly repeated.
    fn pointer_suffix(&mut self, mut ty: LlType) -> Parse<LlType> {
        loop {
            let save = self.pos;
            let space = self.address_space()?;
            if self.eat("*") {
                ty = LlType::Ptr {
                    space,
                    pointee: Some(Box::new(ty)),
                };
            } else {
                self.pos = save;
                return Ok(ty);
            }
        }
    }

    /// A value: every token up to a `,` outside brackets or a sync scope or ordering keyword;
    /// returns its byte range in the line.
    fn value(&mut self) -> Parse<Range<usize>> {
        let start = self.pos;
        let mut depth = 0i32;
        while let Some(text) = self.peek() {
            let kind = self.tokens[self.pos].kind;
            match kind {
                Kind::Punct(b'(' | b'<' | b'[' | b'{') => depth += 1,
                Kind::Punct(b')' | b'>' | b']' | b'}') => depth -= 1,
                Kind::Punct(b',') if depth == 0 => break,
                Kind::Word if depth == 0 && is_order_or_scope(text) => break,
                _ => {}
            }
            if depth < 0 {
                return self.error("a closing bracket without its opening one");
            }
            self.pos += 1;
        }
        if self.pos == start || depth != 0 {
            return self.expected("a value");
        }
        Ok(self.tokens[start].range.start..self.tokens[self.pos - 1].range.end)
    }

    fn typed_value(&mut self) -> Parse<(LlType, Range<usize>)> {
        let ty = self.ty()?;
        let value = self.value()?;
        Ok((ty, value))
    }

    /// `[syncscope("name")]` read on `triple`.
    fn syncscope(&mut self, triple: Triple) -> Parse<SyncScope> {
        let name = if self.eat("syncscope") {
            self.expect("(")?;
            let Some(quoted) = self.peek().filter(|t| t.starts_with('"')) else {
                return self.expected("a quoted sync scope name");
            };
            let name = &quoted[1..quoted.len() - 1];
            let at = self.at();
            self.pos += 1;
            self.expect(")")?;
            Some((name, at))
        } else {
            None
        };
        let (name, at) = name.unwrap_or(("", self.at()));
        spelling::syncscope_from_name(triple, name).ok_or_else(|| {
            let known: Vec<String> = spelling::syncscope_names(triple)
                .map(|n| format!("\"{n}\""))
                .collect();
            ParseError {
                at,
                message: format!(
                    "sync scope \"{name}\" has no atomir scope on {} (atomir reads {}{})",
                    triple.name(),
                    known.join(", "),
                    if triple == Triple::Amdgcn {
                        ", and each with -one-as"
                    } else {
                        ""
                    }
                ),
            }
        })
    }

    fn ordering(&mut self) -> Parse<MemoryOrder> {
        match self.peek().map(|t| (t, spelling::ordering_from_name(t))) {
            Some((_, Some(order))) => {
                self.pos += 1;
                Ok(order)
            }
            Some(("unordered", None)) => {
                self.error("`unordered` is weaker than every atomir order (monotonic is relaxed)")
            }
            _ => self.expected("an ordering (monotonic, acquire, release, acq_rel, seq_cst)"),
        }
    }

    /// The trailing `, align N` and `, !name !N` attachments.
    fn trailer(&mut self, access: Option<&mut LlAccess>) -> Parse<()> {
        let mut align = None;
        let mut metadata = AmdgpuMetadata::default();
        while self.eat(",") {
            if self.eat("align") {
                align = Some(self.number("an alignment")?);
                continue;
            }
            let Some(name) = self
                .peek()
                .filter(|_| self.tokens[self.pos].kind == Kind::Metadata)
            else {
                return self.expected("`align` or a metadata attachment");
            };
            match name {
                "!amdgpu.no.fine.grained.memory" => metadata.no_fine_grained_memory = true,
                "!amdgpu.no.remote.memory" => metadata.no_remote_memory = true,
                "!amdgpu.ignore.denormal.mode" => metadata.ignore_denormal_mode = true,
                _ => {}
            }
            self.pos += 1;
            let Some(Kind::Metadata) = self.tokens.get(self.pos).map(|t| t.kind) else {
                return self.expected("a metadata node");
            };
            self.pos += 1;
            if self.peek() == Some("{") {
                self.skip_braces()?;
            }
        }
        if self.pos != self.tokens.len() {
            return self.expected("the end of the instruction");
        }
        if let Some(access) = access {
            access.align = align;
            access.metadata = metadata;
        }
        Ok(())
    }

    fn skip_braces(&mut self) -> Parse<()> {
        let mut depth = 0;
        while let Some(text) = self.peek() {
            self.pos += 1;
            match text {
                "{" => depth += 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
        self.expected("`}`")
    }
}

fn is_order_or_scope(word: &str) -> bool {
    word == "syncscope" || word == "unordered" || spelling::ordering_from_name(word).is_some()
}

/// The element type, shape and whole-vector atomicity of an access of `ty` whose integers read
/// as `class`, or why it has none in atomir.
fn element(
    ty: &LlType,
    class: RmwClass,
    elementwise: bool,
) -> Result<(ElemType, VectorShape, bool), String> {
    let scalar = |ty: &LlType| -> Result<ElemType, String> {
        Ok(match (ty, class) {
            (LlType::Half, _) => ElemType::F16,
            (LlType::BFloat, _) => ElemType::Bf16,
            (LlType::Float, _) => ElemType::F32,
            (LlType::Double, _) => ElemType::F64,
            (LlType::Int(bits), class) => {
                let signed = [ElemType::S8, ElemType::S16, ElemType::S32, ElemType::S64];
                let unsigned = [ElemType::U8, ElemType::U16, ElemType::U32, ElemType::U64];
                let raw = [ElemType::B8, ElemType::B16, ElemType::B32, ElemType::B64];
                let index = match bits {
                    8 => 0,
                    16 => 1,
                    32 => 2,
                    64 => 3,
                    128 if class == RmwClass::Any => return Ok(ElemType::B128),
                    _ => return Err(format!("i{bits} has no atomir element type")),
                };
                match class {
                    RmwClass::Signed => signed[index],
                    RmwClass::Any => raw[index],
                    _ => unsigned[index],
                }
            }
            (LlType::Ptr { .. }, _) => {
                return Err("a pointer-valued atomic has no atomir element type".into())
            }
            (LlType::Vector(..), _) => unreachable!("vectors are taken apart first"),
        })
    };
    match ty {
        LlType::Vector(2, lane)
            if !elementwise && matches!(**lane, LlType::Half | LlType::BFloat) =>
        {
            let packed = if **lane == LlType::Half {
                ElemType::F16x2
            } else {
                ElemType::Bf16x2
            };
            Ok((packed, VectorShape::Scalar, false))
        }
        LlType::Vector(len, lane) => {
            let shape = match len {
                2 => VectorShape::V2,
                4 => VectorShape::V4,
                8 => VectorShape::V8,
                _ => {
                    return Err(format!(
                        "a vector of {len} elements has no atomir shape (2, 4 or 8)"
                    ))
                }
            };
            Ok((scalar(lane)?, shape, !elementwise))
        }
        _ => Ok((scalar(ty)?, VectorShape::Scalar, false)),
    }
}

fn access(
    cursor: &Cursor<'_>,
    triple: Triple,
    pointer: (LlType, Range<usize>),
    value_type: LlType,
    class: RmwClass,
    elementwise: bool,
) -> Parse<LlAccess> {
    let LlType::Ptr { space, .. } = pointer.0 else {
        return Err(ParseError {
            at: pointer.1.start,
            message: "expected a pointer operand".into(),
        });
    };
    let Some(address_space) = spelling::address_space_from_number(triple, space) else {
        let known: Vec<String> = spelling::address_space_numbers(triple)
            .map(|(n, s)| format!("{n} ({s})"))
            .collect();
        return Err(ParseError {
            at: pointer.1.start,
            message: format!(
                "address space {space} has no atomir space on {} (atomir reads {})",
                triple.name(),
                known.join(", ")
            ),
        });
    };
    let (ty, shape, whole_vector) =
        element(&value_type, class, elementwise).map_err(|message| ParseError {
            at: cursor.at(),
            message,
        })?;
    Ok(LlAccess {
        ty,
        shape,
        space: address_space,
        address_space: space,
        value_type,
        pointer_type: pointer.0,
        pointer: pointer.1,
        operands: Vec::new(),
        align: None,
        volatile: false,
        weak: false,
        whole_vector,
        laxity: None,
        metadata: AmdgpuMetadata::default(),
    })
}

/// Reads the atomic instruction whose keyword is the cursor's token, on `triple`.
pub(crate) fn parse(cursor: &mut Cursor<'_>, triple: Triple) -> Parse<Parsed> {
    match cursor.peek() {
        Some("atomicrmw") => {
            cursor.pos += 1;
            rmw(cursor, triple)
        }
        Some("cmpxchg") => {
            cursor.pos += 1;
            cmpxchg(cursor, triple)
        }
        Some("load") => {
            cursor.pos += 1;
            load(cursor, triple)
        }
        Some("store") => {
            cursor.pos += 1;
            store(cursor, triple)
        }
        Some("fence") => {
            cursor.pos += 1;
            let scope = cursor.syncscope(triple)?;
            let order = cursor.ordering()?;
            if order == MemoryOrder::Relaxed {
                return cursor.error("a monotonic fence is not valid LLVM IR");
            }
            cursor.trailer(None)?;
            Ok(Parsed {
                kind: LlKind::Fence,
                order,
                failure_order: None,
                scope,
                access: None,
            })
        }
        _ => cursor.expected("an atomic instruction"),
    }
}

fn rmw(cursor: &mut Cursor<'_>, triple: Triple) -> Parse<Parsed> {
    let volatile = cursor.eat("volatile");
    let elementwise = cursor.eat("elementwise");
    let Some(spelled) = cursor.peek().and_then(spelling::rmw_from_keyword) else {
        return cursor.expected("an atomicrmw operation");
    };
    cursor.pos += 1;
    let pointer = cursor.typed_value()?;
    cursor.expect(",")?;
    let (value_type, value) = cursor.typed_value()?;
    let mut access = access(
        cursor,
        triple,
        pointer,
        value_type,
        spelled.class,
        elementwise,
    )?;
    let float = access.ty.is_float();
    if (spelled.class == RmwClass::Float) != float && spelled.class != RmwClass::Any {
        return cursor.error(format!(
            "atomicrmw {} takes {}",
            spelled.keyword,
            if spelled.class == RmwClass::Float {
                "floats"
            } else {
                "integers"
            }
        ));
    }
    access.operands.push(value);
    access.volatile = volatile;
    access.laxity = spelled.laxity;
    let scope = cursor.syncscope(triple)?;
    let order = cursor.ordering()?;
    cursor.trailer(Some(&mut access))?;
    Ok(Parsed {
        kind: LlKind::Rmw(spelled.op),
        order,
        failure_order: None,
        scope,
        access: Some(access),
    })
}

fn cmpxchg(cursor: &mut Cursor<'_>, triple: Triple) -> Parse<Parsed> {
    let weak = cursor.eat("weak");
    let volatile = cursor.eat("volatile");
    let pointer = cursor.typed_value()?;
    cursor.expect(",")?;
    let (value_type, expected) = cursor.typed_value()?;
    cursor.expect(",")?;
    let new_type_at = cursor.at();
    let (new_type, new) = cursor.typed_value()?;
    if new_type != value_type {
        return Err(ParseError {
            at: new_type_at,
            message: "cmpxchg's new value must have the expected value's type".into(),
        });
    }
    let mut access = access(cursor, triple, pointer, value_type, RmwClass::Any, true)?;
    access.operands.extend([expected, new]);
    access.volatile = volatile;
    access.weak = weak;
    let scope = cursor.syncscope(triple)?;
    let order = cursor.ordering()?;
    let failure = cursor.ordering()?;
    cursor.trailer(Some(&mut access))?;
    Ok(Parsed {
        kind: LlKind::Cmpxchg,
        order,
        failure_order: Some(failure),
        scope,
        access: Some(access),
    })
}

fn load(cursor: &mut Cursor<'_>, triple: Triple) -> Parse<Parsed> {
    cursor.expect("atomic")?;
    let volatile = cursor.eat("volatile");
    let value_type = cursor.ty()?;
    cursor.expect(",")?;
    let pointer = cursor.typed_value()?;
    let mut access = access(cursor, triple, pointer, value_type, RmwClass::Any, false)?;
    access.volatile = volatile;
    let scope = cursor.syncscope(triple)?;
    let order = cursor.ordering()?;
    cursor.trailer(Some(&mut access))?;
    Ok(Parsed {
        kind: LlKind::Load,
        order,
        failure_order: None,
        scope,
        access: Some(access),
    })
}

fn store(cursor: &mut Cursor<'_>, triple: Triple) -> Parse<Parsed> {
    cursor.expect("atomic")?;
    let volatile = cursor.eat("volatile");
    let (value_type, value) = cursor.typed_value()?;
    cursor.expect(",")?;
    let pointer = cursor.typed_value()?;
    let mut access = access(cursor, triple, pointer, value_type, RmwClass::Any, false)?;
    access.operands.push(value);
    access.volatile = volatile;
    let scope = cursor.syncscope(triple)?;
    let order = cursor.ordering()?;
    cursor.trailer(Some(&mut access))?;
    Ok(Parsed {
        kind: LlKind::Store,
        order,
        failure_order: None,
        scope,
        access: Some(access),
    })
}

/// Whether the words after a line's result name begin an atomic instruction: `atomicrmw`,
/// `cmpxchg`, `fence`, `load atomic`, `store atomic`.
pub(crate) fn is_atomic(first: &str, second: Option<&str>) -> bool {
    matches!(first, "atomicrmw" | "cmpxchg" | "fence")
        || (matches!(first, "load" | "store") && second == Some("atomic"))
}

/// The atomir op of each kind of access.
pub(crate) const fn op_of(kind: LlKind) -> AtomicOp {
    match kind {
        LlKind::Rmw(op) => op,
        LlKind::Cmpxchg => AtomicOp::Cas,
        LlKind::Load => AtomicOp::Load,
        LlKind::Store => AtomicOp::Store,
        LlKind::Fence => AtomicOp::Load,
    }
}
