//! Opcodes and fences: the qualifiers of `atomic.<op>[.<order>]…` and `fence.<order>…`, their
//! order, the memo of opcodes read, and the diagnostics that name the closest qualifier.

use super::*;

/// The opcodes of recent instructions by spelling: a program repeats a few opcodes many times,
/// and reading one (a dozen string comparisons per qualifier) costs more than the rest of its
/// line. Direct-mapped: a spelling that meets another in its slot is read again, never
/// mistaken for it. Only opcodes that parsed are kept, so a hit is what reading gives.
pub(super) struct OpcodeMemo<'a> {
    slots: [Option<(&'a str, Opcode)>; OpcodeMemo::SLOTS],
}

impl<'a> OpcodeMemo<'a> {
    pub(super) const SLOTS: usize = 64;

    pub(super) fn new() -> Self {
        OpcodeMemo {
            slots: [None; Self::SLOTS],
        }
    }

    /// The slot of a spelling, from its length and its first and last eight bytes (an opcode is
    /// at least `atomic.` and a type).
    pub(super) fn slot(text: &str) -> usize {
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

    pub(super) fn get(&self, text: &str) -> Option<Opcode> {
        match self.slots[Self::slot(text)] {
            Some((spelling, opcode)) if spelling == text => Some(opcode),
            _ => None,
        }
    }

    pub(super) fn insert(&mut self, text: &'a str, opcode: Opcode) {
        self.slots[Self::slot(text)] = Some((text, opcode));
    }
}

/// The qualifiers of an `atomic.…` opcode.
#[derive(Clone, Copy)]
pub(super) struct Opcode {
    pub(super) op: AtomicOp,
    pub(super) ty: ElemType,
    pub(super) shape: VectorShape,
    pub(super) order: MemoryOrder,
    pub(super) scope: Scope,
    pub(super) space: AddressSpace,
    pub(super) hint: Option<CacheHint>,
    pub(super) laxity: Option<FloatLaxity>,
}

impl Opcode {
    pub(super) fn instruction(
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

/// The kinds of qualifier, in the order they must appear.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Stage {
    Order,
    Scope,
    Space,
    Shape,
    Type,
    Laxity,
    Hint,
}

impl Stage {
    pub(super) const ALL: [Stage; 7] = [
        Stage::Order,
        Stage::Scope,
        Stage::Space,
        Stage::Shape,
        Stage::Type,
        Stage::Laxity,
        Stage::Hint,
    ];

    pub(super) fn noun(self) -> &'static str {
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

    pub(super) fn spellings(self) -> Vec<&'static str> {
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

pub(super) fn edit_distance(a: &str, b: &str) -> usize {
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
pub(super) fn unknown_qualifier(text: &str) -> String {
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
pub(super) fn dot_segments(word: &str) -> impl Iterator<Item = (usize, &str)> {
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

pub(super) fn column_after(loc: SourceLoc, chars: usize) -> SourceLoc {
    SourceLoc::new(
        loc.line,
        loc.col.saturating_add(chars.min(u32::MAX as usize) as u32),
    )
}

impl<'a> Parser<'a> {
    /// `fence.<order>[.<scope>]`: the order is required (a fence without one would be relaxed,
    /// which orders nothing); an omitted scope is `device`, as for atomics.
    pub(super) fn parse_fence(&mut self, token: Token<'a>) -> Parsed<Fence> {
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

    pub(super) fn parse_opcode(&mut self, token: Token<'a>) -> Parsed<Opcode> {
        if let Some(opcode) = self.opcodes.get(token.text) {
            return Ok(opcode);
        }
        let opcode = self.read_opcode(token)?;
        self.opcodes.insert(token.text, opcode);
        Ok(opcode)
    }

    pub(super) fn read_opcode(&mut self, token: Token<'a>) -> Parsed<Opcode> {
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
}
