//! Loops read from printed code: a label and a later branch back to it, in PTX, AMDGPU
//! assembly, vISA or LLVM IR. The one reader of loops for the checks that ask where a fence or
//! a compare-and-swap stands (inside a retry loop or around it) and for the SASS table's
//! explanation of a longer loop.

/// The language of a listing: how it comments and how it branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// PTX: `//` comments, `bra` (predicated or not).
    Ptx,
    /// AMDGPU assembly: `;` comments, `s_branch` and `s_cbranch_*`.
    Amdgcn,
    /// vISA assembly: `//` comments, `goto` (predicated or not).
    Visa,
    /// LLVM IR: `;` comments, `br`.
    LlvmIr,
}

/// A loop: the line (counted from 0) of its label and of the last branch back to it below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The label's line.
    pub label: usize,
    /// The last line that branches back to the label.
    pub back: usize,
}

impl Listing {
    /// `line` without its comment, trimmed.
    pub fn code(self, line: &str) -> &str {
        let comment = match self {
            Listing::Ptx | Listing::Visa => "//",
            Listing::Amdgcn | Listing::LlvmIr => ";",
        };
        line.split(comment).next().unwrap_or_default().trim()
    }

    /// The lines of `text` without their comments, trimmed: [`Loop`]'s lines index them.
    pub fn code_lines(self, text: &str) -> Vec<&str> {
        text.lines().map(|line| self.code(line)).collect()
    }

    /// Whether `code` (a line without its comment) is a branch.
    pub fn is_branch(self, code: &str) -> bool {
        let mut words = code.split_whitespace();
        match self {
            // A predicate may come first.
            Listing::Ptx => words
                .take(2)
                .any(|word| word == "bra" || word.starts_with("bra.")),
            Listing::Visa => words.take(2).any(|word| word == "goto"),
            Listing::Amdgcn => words
                .next()
                .is_some_and(|word| word.starts_with("s_cbranch") || word == "s_branch"),
            Listing::LlvmIr => words.next() == Some("br"),
        }
    }

    /// Every loop of `text`, in the order of their labels.
    pub fn loops(self, text: &str) -> Vec<Loop> {
        let lines = self.code_lines(text);
        let mut found = Vec::new();
        for (at, line) in lines.iter().enumerate() {
            let Some(label) = label_of(line) else {
                continue;
            };
            let back = (at + 1..lines.len())
                .rev()
                .find(|&later| self.is_branch(lines[later]) && names(lines[later], label));
            if let Some(back) = back {
                found.push(Loop { label: at, back });
            }
        }
        found
    }
}

/// The label `code` defines (without its sigil), if it is a label's line.
fn label_of(code: &str) -> Option<&str> {
    let label = code.strip_suffix(':')?.trim_start_matches('$');
    (!label.is_empty() && !label.contains(char::is_whitespace)).then_some(label)
}

/// Whether the branch `code` names `label` (a label or variable sigil aside).
fn names(code: &str, label: &str) -> bool {
    code.split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .any(|word| word.trim_start_matches(['%', '$']) == label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_loops_of_every_listing() {
        let ptx = "$L__BB0_1:                // %.0.b1\n\tfence.sc.sys;\n\t@%p1 bra \
                   $L__BB0_1;\n\tbra.uni $L__BB0_1;\n";
        assert_eq!(Listing::Ptx.loops(ptx), [Loop { label: 0, back: 3 }]);
        let amdgcn = ".LBB0_1:                                ; %atomicrmw.start\n\
                      \ts_cbranch_execnz .LBB0_1\n; %bb.2:\n\ts_endpgm\n";
        assert_eq!(Listing::Amdgcn.loops(amdgcn), [Loop { label: 0, back: 1 }]);
        let visa = "L0_1:\n    (t8) goto (M1, 8) L0_3\nL0_2:\n    (!t8) goto (M1, 8) L0_1\nL0_3:\n";
        assert_eq!(Listing::Visa.loops(visa), [Loop { label: 0, back: 3 }]);
        let llvm = "retry:                ; preds = %retry, %0\n  br i1 %ok, label %done, \
                    label %retry\ndone:\n";
        assert_eq!(Listing::LlvmIr.loops(llvm), [Loop { label: 0, back: 1 }]);
    }

    #[test]
    fn forward_branches_and_comments_are_no_loops() {
        assert!(Listing::Ptx
            .loops("\t@%p1 bra $L1;\n\tfence.sc.sys;\n$L1:\n")
            .is_empty());
        // A label named only in a comment, or by an instruction that is no branch.
        assert!(Listing::Ptx
            .loops("$L1:\n\tmov.u32 %r1, 0; // bra $L1\n")
            .is_empty());
        assert!(Listing::Amdgcn
            .loops(".LBB0_1:\n\ts_mov_b32 s0, .LBB0_1\n")
            .is_empty());
    }
}
