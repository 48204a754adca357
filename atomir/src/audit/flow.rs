//! A PTX function's atomics in the order its control flow runs them, whatever order llc laid
//! its blocks out in.
//!
//! llc `-O0` keeps the IR's block order; `-O2` places blocks anew: a CAS loop's body after the
//! code that follows the loop, the arms of a branch swapped, a cold path at the end. The
//! function is cut into basic blocks (at labels, after `bra`, `ret`, `exit` and `trap`), its
//! branches followed, and the blocks ordered in reverse post-order from the entry, the
//! fall-through successor before the branch target: on `-O0` output that is the text order,
//! and on reordered output it puts a loop's preheader, body and exit back in sequence. A
//! function with a branch this does not follow (`brx.idx`) keeps its text order.

/// A basic block: its first and last line (1-based, inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    first: u32,
    last: u32,
}

/// The IR block a PTX block was made from, as llc's comment at its label names it
/// (`$L__BB0_2: // %else`, `// %bb.5: // %join`).
fn ir_block_of(line: &str) -> Option<&str> {
    let (_, comment) = line.rsplit_once("//")?;
    let name = comment.trim().strip_prefix('%')?;
    let plain = !name.is_empty() && !name.ends_with(':') && !name.contains(char::is_whitespace);
    plain.then_some(name)
}

/// The blocks of one PTX function in flow order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Flow {
    /// The blocks, in flow order.
    blocks: Vec<Block>,
    /// Per block (in flow order): its index in text order, and the blocks (by text index, as
    /// bits) it reaches by forward edges.
    reach: Vec<(usize, Vec<u64>)>,
    /// Whether llc's comments named the IR blocks, so that the order of the IR's blocks (the
    /// arms of a branch included) is known.
    named: bool,
}

impl Flow {
    /// The flow of the function whose header is on line `header` (1-based) of `source`; an
    /// empty flow (text order) where its body cannot be followed.
    ///
    /// `ir_blocks` are the IR function's block names in text order: where llc's comments name
    /// the IR block a PTX block was made from, the blocks are put in the IR's order of those
    /// (the arms of a branch, whichever llc placed first), each block llc made itself (a CAS
    /// loop's) staying after the block it follows in flow order.
    pub(crate) fn of_function(source: &str, header: u32, ir_blocks: &[&str]) -> Flow {
        let lines: Vec<&str> = source.lines().collect();
        let Some((open, close)) = body(&lines, header as usize - 1) else {
            return Flow::default();
        };
        let Some(Cut {
            blocks,
            successors,
            names,
        }) = cut(&lines, open, close)
        else {
            return Flow::default();
        };
        let order = reverse_post_order(&successors);
        let reach = forward_reach(&successors, &order);
        let mut keyed = Vec::with_capacity(order.len());
        let mut inherited = 0;
        let mut named = false;
        for (position, &block) in order.iter().enumerate() {
            let known = names[block].and_then(|name| ir_blocks.iter().position(|&b| b == name));
            named |= known.is_some_and(|index| index > 0);
            let ir_index = known.unwrap_or(inherited);
            inherited = ir_index;
            keyed.push(((ir_index, position), block));
        }
        keyed.sort_by_key(|&(key, _)| key);
        Flow {
            blocks: keyed.iter().map(|&(_, block)| blocks[block]).collect(),
            reach: keyed
                .iter()
                .map(|&(_, block)| (block, reach[block].clone()))
                .collect(),
            named,
        }
    }

    /// The block (its index in flow order) that holds `line`.
    pub(crate) fn block_of(&self, line: u32) -> Option<usize> {
        self.blocks
            .iter()
            .position(|b| b.first <= line && line <= b.last)
    }

    /// Whether one of two blocks can run after the other without a loop's back edge, so that
    /// the flow order between them is the program's. False for the arms of a branch, which llc
    /// may lay out in either order; true where the flow is not followed or llc's comments named
    /// the IR's blocks.
    pub(crate) fn ordered(&self, a: Option<usize>, b: Option<usize>) -> bool {
        if self.named {
            return true;
        }
        let (Some(a), Some(b)) = (a, b) else {
            return true;
        };
        let (Some((a_text, a_reach)), Some((b_text, b_reach))) =
            (self.reach.get(a), self.reach.get(b))
        else {
            return true;
        };
        let reaches = |set: &[u64], block: usize| set[block / 64] & (1 << (block % 64)) != 0;
        reaches(a_reach, *b_text) || reaches(b_reach, *a_text)
    }

    /// The first line of the entry block, where the function's flow is known.
    pub(crate) fn start(&self) -> Option<u32> {
        self.blocks.first().map(|b| b.first)
    }

    /// The first line of the block that holds `line` (`line` itself where the flow is unknown).
    pub(crate) fn block_start(&self, line: u32) -> u32 {
        self.blocks
            .iter()
            .find(|b| b.first <= line && line <= b.last)
            .map_or(line, |b| b.first)
    }

    /// The flow position of line `line`: the index of its block in flow order and the line;
    /// lines outside every block keep their text position after all blocks.
    pub(crate) fn position(&self, line: u32) -> (usize, u32) {
        let block = self
            .blocks
            .iter()
            .position(|b| b.first <= line && line <= b.last)
            .unwrap_or(self.blocks.len());
        (block, line)
    }

    /// The line ranges run from flow position `from` up to and including line `to`, in flow
    /// order (one range in text order where the function's flow is unknown).
    pub(crate) fn ranges(&self, from: u32, to: u32) -> Vec<(u32, u32)> {
        let (start, _) = self.position(from);
        let (end, _) = self.position(to);
        if self.blocks.is_empty() || start >= self.blocks.len() || end >= self.blocks.len() {
            return if from <= to {
                vec![(from, to)]
            } else {
                Vec::new()
            };
        }
        if start > end {
            return Vec::new();
        }
        (start..=end)
            .map(|index| {
                let block = self.blocks[index];
                let first = if index == start { from } else { block.first };
                let last = if index == end { to } else { block.last };
                (first, last)
            })
            .filter(|(first, last)| first <= last)
            .collect()
    }
}

/// The lines (0-based) of the braces that open and close the body of the function whose
/// header is at line `header`.
fn body(lines: &[&str], header: usize) -> Option<(usize, usize)> {
    let open = (header..lines.len()).find(|&i| lines[i].trim_start().starts_with('{'))?;
    let mut depth = 0i32;
    for (index, line) in lines.iter().enumerate().skip(open) {
        let code = line.split("//").next().unwrap_or("");
        depth += code.matches('{').count() as i32;
        depth -= code.matches('}').count() as i32;
        if depth == 0 {
            return Some((open, index));
        }
    }
    None
}

/// How an instruction line ends its block.
enum Exit<'a> {
    /// Not at all.
    None,
    /// A branch to a label; `conditional` where it is predicated.
    Branch { label: &'a str, conditional: bool },
    /// `ret`, `exit` or `trap`: no successor.
    Return,
    /// A branch this module does not follow.
    Unknown,
}

fn exit_of(code: &str) -> Exit<'_> {
    let mut words = code.split_whitespace();
    let Some(mut opcode) = words.next() else {
        return Exit::None;
    };
    let conditional = opcode.starts_with('@');
    if conditional {
        let Some(next) = words.next() else {
            return Exit::None;
        };
        opcode = next;
    }
    let base = opcode
        .trim_end_matches(';')
        .split('.')
        .next()
        .unwrap_or(opcode);
    match base {
        "bra" => match words.next() {
            Some(label) => Exit::Branch {
                label: label.trim_end_matches(';'),
                conditional,
            },
            None => Exit::Unknown,
        },
        "ret" | "exit" | "trap" if !conditional => Exit::Return,
        "brx" => Exit::Unknown,
        _ => Exit::None,
    }
}

/// The label a line defines (`$L__BB0_3:`), if any.
fn label_of(code: &str) -> Option<&str> {
    let code = code.trim();
    let name = code.strip_suffix(':')?;
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%'));
    valid.then_some(name)
}

/// A function body cut into blocks: per block (in text order) its lines, its successors
/// (fall-through first) and the IR block llc's comment names.
struct Cut<'a> {
    blocks: Vec<Block>,
    successors: Vec<Vec<usize>>,
    names: Vec<Option<&'a str>>,
}

/// The blocks between the body's braces (exclusive); `None` where a branch cannot be followed.
fn cut<'a>(lines: &[&'a str], open: usize, close: usize) -> Option<Cut<'a>> {
    let mut blocks: Vec<Block> = Vec::new();
    // Per block: the IR block llc's comment names; the name a comment line gave the next one.
    let mut names: Vec<Option<&str>> = Vec::new();
    let mut pending: Option<&str> = None;
    let mut name: Option<&str> = None;
    let mut labels: Vec<(&str, usize)> = Vec::new();
    // Per block: its branch target and whether control falls through to the next block.
    let mut ends: Vec<(Option<&str>, bool)> = Vec::new();
    let mut start = open + 1;
    let mut open_block = false;
    for (index, line) in lines.iter().enumerate().take(close).skip(open + 1) {
        let code = line.split("//").next().unwrap_or("");
        if let Some(label) = label_of(code) {
            if open_block {
                blocks.push(Block {
                    first: start as u32 + 1,
                    last: index as u32,
                });
                ends.push((None, true));
                names.push(name.take());
            }
            labels.push((label, blocks.len()));
            start = index;
            open_block = true;
            name = ir_block_of(line).or(pending.take());
            continue;
        }
        if code.trim().is_empty() {
            if !open_block {
                pending = ir_block_of(line).or(pending);
            }
            continue;
        }
        if !open_block {
            start = index;
            open_block = true;
            name = pending.take();
        }
        let (target, falls) = match exit_of(code) {
            Exit::None => continue,
            Exit::Branch { label, conditional } => (Some(label), conditional),
            Exit::Return => (None, false),
            Exit::Unknown => return None,
        };
        blocks.push(Block {
            first: start as u32 + 1,
            last: index as u32 + 1,
        });
        ends.push((target, falls));
        names.push(name.take());
        open_block = false;
    }
    if open_block {
        blocks.push(Block {
            first: start as u32 + 1,
            last: close as u32,
        });
        ends.push((None, false));
        names.push(name.take());
    }
    let mut successors = Vec::with_capacity(blocks.len());
    for (index, (target, falls)) in ends.iter().enumerate() {
        let mut next = Vec::new();
        if *falls && index + 1 < blocks.len() {
            next.push(index + 1);
        }
        if let Some(target) = target {
            let block = labels.iter().find(|(name, _)| name == target)?.1;
            if block < blocks.len() && !next.contains(&block) {
                next.push(block);
            }
        }
        successors.push(next);
    }
    Some(Cut {
        blocks,
        successors,
        names,
    })
}

/// Per block, the set of blocks (by text index, as bits) it reaches by forward edges, those
/// to a later block of the reverse post-order `order` (a loop's back edge left out).
fn forward_reach(successors: &[Vec<usize>], order: &[usize]) -> Vec<Vec<u64>> {
    let count = successors.len();
    let words = count.div_ceil(64);
    let mut position = vec![usize::MAX; count];
    for (index, &block) in order.iter().enumerate() {
        position[block] = index;
    }
    let mut reach = vec![vec![0u64; words]; count];
    for &block in order.iter().rev() {
        let mut set = vec![0u64; words];
        set[block / 64] |= 1 << (block % 64);
        for &next in &successors[block] {
            if position[next] > position[block] && position[next] != usize::MAX {
                for (word, bits) in set.iter_mut().zip(&reach[next]) {
                    *word |= bits;
                }
            }
        }
        reach[block] = set;
    }
    reach
}

/// The blocks in reverse post-order from block 0 (a block's fall-through successor before its
/// branch target), then the unreachable ones in text order.
fn reverse_post_order(successors: &[Vec<usize>]) -> Vec<usize> {
    let count = successors.len();
    let mut visited = vec![false; count];
    let mut post = Vec::with_capacity(count);
    if count > 0 {
        // Successors are pushed last-first so that the fall-through is finished last and so
        // comes first in reverse post-order.
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        visited[0] = true;
        while let Some(&mut (block, ref mut next)) = stack.last_mut() {
            let order: Vec<usize> = successors[block].iter().rev().copied().collect();
            if let Some(&successor) = order.get(*next) {
                *next += 1;
                if !visited[successor] {
                    visited[successor] = true;
                    stack.push((successor, 0));
                }
            } else {
                post.push(block);
                stack.pop();
            }
        }
    }
    post.reverse();
    post.extend((0..count).filter(|&b| !visited[b]));
    post
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOOP_AT_THE_END: &str = "\
.visible .entry k(
)
{
\tfence.release.gpu;
\tld.relaxed.gpu.b32 %r1, [%rd1];
\tbra.uni $L__BB0_2;
$L__BB0_1:
\tfence.acquire.gpu;
\tret;
$L__BB0_2:
\tatom.relaxed.gpu.cas.b32 %r2, [%rd1], %r1, %r3;
\tsetp.ne.s32 %p1, %r2, %r1;
\t@%p1 bra $L__BB0_2;
\tbra.uni $L__BB0_1;
}
";

    #[test]
    fn a_loop_laid_out_after_its_exit_is_followed() {
        let flow = Flow::of_function(LOOP_AT_THE_END, 1, &[]);
        let mut lines = [5u32, 8, 11];
        lines.sort_by_key(|&line| flow.position(line));
        // The load, the CAS, then the exit's fence.
        assert_eq!(lines, [5, 11, 8]);
        assert_eq!(flow.ranges(5, 8), [(5, 6), (10, 13), (14, 14), (7, 8)]);
    }

    #[test]
    fn the_arms_of_a_branch_are_not_ordered() {
        let text = "\
.entry k()
{
\t@%p1 bra $L__BB0_2;
\tatom.global.exch.b32 %r1, [%rd1], 1;
\tbra.uni $L__BB0_3;
$L__BB0_2:
\tatom.global.exch.b32 %r2, [%rd1], 2;
$L__BB0_3:
\tld.acquire.gpu.b32 %r3, [%rd1];
\tret;
}
";
        let flow = Flow::of_function(text, 1, &[]);
        let (first_arm, second_arm, join) = (flow.block_of(4), flow.block_of(7), flow.block_of(9));
        assert!(!flow.ordered(first_arm, second_arm));
        assert!(flow.ordered(first_arm, join) && flow.ordered(second_arm, join));
        assert!(flow.ordered(flow.block_of(3), first_arm));
    }

    #[test]
    fn text_order_where_the_flow_is_unknown() {
        let text = ".entry k()\n{\nbrx.idx %r1, $T;\n}\n";
        let flow = Flow::of_function(text, 1, &[]);
        assert_eq!(flow.position(3), (0, 3));
        assert_eq!(flow.ranges(2, 3), [(2, 3)]);
    }
}
