//! Plain instruction lines read straight from their bytes, without tokens: the common line
//! `[%r =] atomic.… [%a], x[, y]` whose opcode has been read before.

use super::*;

/// A scalar operand of a plain line, its literal not yet in the kernel's pool.
#[derive(Clone, Copy)]
pub(super) enum PlainScalar {
    Value(Value),
    Literal(u128),
}

/// A defined `%name` at `at`, and the offset past it.
pub(super) fn plain_name(
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
pub(super) fn plain_address(
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
pub(super) fn plain_scalar(
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

impl<'a> Parser<'a> {
    /// Reads the common instruction line straight from its bytes, without tokens:
    /// `[%r =] atomic.… [%a], x[, y]` where the opcode has been read before and each operand is
    /// a name or a number, ending with the line. Changes nothing unless it reads the whole line,
    /// and reads only lines that [`Parser::parse_instruction`] accepts, into the same
    /// instruction; anything else (a predicate, a fence, a brace list, a comment, a new
    /// opcode, a mistake) it leaves to that, answering `false`.
    pub(super) fn plain_instruction(&mut self, kernel: &mut Kernel, names: &mut NameIndex) -> bool {
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
}
