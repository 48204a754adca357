//! One instruction statement taken apart: labels, guard, opcode with its qualifiers, operands
//! (each with its byte offset in the statement).

/// An instruction statement, its parts borrowed from the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Syntax<'s> {
    /// `@%p` or `@!%p`: the predicate register and whether it is negated.
    pub guard: Option<(&'s str, bool)>,
    /// Offset of the instruction (its guard, or its opcode) in the statement.
    pub start: usize,
    /// The opcode with every qualifier (`atom.global.add.u32`).
    pub opcode: &'s str,
    /// Offset of the opcode in the statement.
    pub opcode_at: usize,
    /// The operands, split at top-level commas, trimmed, with their offsets.
    pub operands: Vec<(&'s str, usize)>,
}

impl<'s> Syntax<'s> {
    /// The qualifiers after the opcode's first word, each with its offset in the statement.
    pub fn qualifiers(&self) -> impl Iterator<Item = (&'s str, usize)> + '_ {
        let mut offset = self.opcode_at;
        self.opcode
            .split('.')
            .enumerate()
            .filter_map(move |(index, part)| {
                let at = offset;
                offset += part.len() + 1;
                (index > 0).then_some((part, at))
            })
    }

    /// The opcode's first word (`atom`).
    pub fn head(&self) -> &'s str {
        self.opcode.split('.').next().unwrap_or("")
    }
}

/// Takes a statement apart; `None` for one that is not an instruction (a directive or empty).
pub(super) fn parse(text: &str) -> Option<Syntax<'_>> {
    let mut at = skip_space(text, 0);
    // Labels: `name:` (not `::`, which is part of a qualifier).
    loop {
        let rest = &text[at..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%')))
            .unwrap_or(rest.len());
        if end > 0 && rest[end..].starts_with(':') && !rest[end..].starts_with("::") {
            at = skip_space(text, at + end + 1);
        } else {
            break;
        }
    }
    if at >= text.len() || text[at..].starts_with('.') {
        return None;
    }
    let start = at;
    let mut guard = None;
    if let Some(rest) = text[at..].strip_prefix('@') {
        let negated = rest.starts_with('!');
        let name_from = at + 1 + usize::from(negated);
        let end = text[name_from..]
            .find(|c: char| c.is_ascii_whitespace())
            .map_or(text.len(), |offset| name_from + offset);
        guard = Some((&text[name_from..end], negated));
        at = skip_space(text, end);
    }
    let opcode_end = text[at..]
        .find(|c: char| c.is_ascii_whitespace())
        .map_or(text.len(), |offset| at + offset);
    let opcode = &text[at..opcode_end];
    let operands = split_operands(text, opcode_end);
    Some(Syntax {
        guard,
        start,
        opcode,
        opcode_at: at,
        operands,
    })
}

/// The offset of the first character at or after `from` that is neither white space nor in a
/// comment (a statement's text keeps the comments between its label and its opcode).
fn skip_space(text: &str, from: usize) -> usize {
    let mut at = from;
    loop {
        at = text[at..]
            .find(|c: char| !c.is_ascii_whitespace())
            .map_or(text.len(), |offset| at + offset);
        let rest = &text[at..];
        if rest.starts_with("//") {
            at = rest.find('\n').map_or(text.len(), |offset| at + offset);
        } else if rest.starts_with("/*") {
            at = rest.find("*/").map_or(text.len(), |offset| at + offset + 2);
        } else {
            return at;
        }
    }
}

fn split_operands(text: &str, from: usize) -> Vec<(&str, usize)> {
    let mut operands = Vec::new();
    let mut depth = 0i32;
    let mut begin = from;
    for (offset, c) in text[from..].char_indices() {
        let at = from + offset;
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                push_operand(&mut operands, text, begin, at);
                begin = at + 1;
            }
            _ => {}
        }
    }
    push_operand(&mut operands, text, begin, text.len());
    operands
}

fn push_operand<'s>(operands: &mut Vec<(&'s str, usize)>, text: &'s str, begin: usize, end: usize) {
    let piece = &text[begin..end];
    let trimmed = piece.trim();
    if trimmed.is_empty() {
        if !operands.is_empty() || !text[begin..].trim().is_empty() {
            operands.push(("", begin));
        }
        return;
    }
    let lead = piece.len() - piece.trim_start().len();
    operands.push((trimmed, begin + lead));
}

/// The elements of a `{a, b}` operand, or the operand itself; each with its offset.
pub(super) fn elements(operand: &str, at: usize) -> Vec<(&str, usize)> {
    match operand
        .strip_prefix('{')
        .and_then(|rest| rest.strip_suffix('}'))
    {
        Some(inner) => {
            let mut out = Vec::new();
            let mut offset = at + 1;
            for part in inner.split(',') {
                let lead = part.len() - part.trim_start().len();
                out.push((part.trim(), offset + lead));
                offset += part.len() + 1;
            }
            out
        }
        None => vec![(operand, at)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_guards_qualifiers_and_operands() {
        let text = "$L__BB0_2: @!%p1 atom.global.v2.f32.add {%f1, %f2}, [%rd1+8], {%f3, %f4}";
        let syntax = parse(text).unwrap();
        assert_eq!(syntax.guard, Some(("%p1", true)));
        assert_eq!(&text[syntax.start..syntax.start + 1], "@");
        assert_eq!(syntax.head(), "atom");
        let qualifiers: Vec<_> = syntax.qualifiers().map(|(q, _)| q).collect();
        assert_eq!(qualifiers, ["global", "v2", "f32", "add"]);
        let (add, at) = syntax.qualifiers().last().unwrap();
        assert_eq!(&text[at..at + add.len()], "add");
        let operands: Vec<_> = syntax.operands.iter().map(|(o, _)| *o).collect();
        assert_eq!(operands, ["{%f1, %f2}", "[%rd1+8]", "{%f3, %f4}"]);
        let (lanes, at) = syntax.operands[0];
        let parts = elements(lanes, at);
        assert_eq!(&text[parts[1].1..parts[1].1 + 3], "%f2");
        assert!(parse(".reg .b32 %r<3>").is_none());
        assert_eq!(parse("membar.gl").unwrap().operands, []);
        let labelled = parse("LBB0_3: // %.0.b3\n\tatom.shared.min.u32 %r1, [%rd1], %r2").unwrap();
        assert_eq!(labelled.opcode, "atom.shared.min.u32");
    }
}
