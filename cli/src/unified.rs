//! A unified line diff (the `diff -u` form) of two short texts.

use std::fmt::Write;

/// One line of an edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    Same(usize, usize),
    Delete(usize),
    Insert(usize),
}

/// A shortest edit script by longest common subsequence. Emitted code per instruction is at most
/// a few hundred lines, so the quadratic table is small.
fn edits(old: &[&str], new: &[&str]) -> Vec<Edit> {
    let (n, m) = (old.len(), new.len());
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if old[i] == new[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut script = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            script.push(Edit::Same(i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
            script.push(Edit::Delete(i));
            i += 1;
        } else {
            script.push(Edit::Insert(j));
            j += 1;
        }
    }
    script
}

/// Appends the hunks (`@@ -a,b +c,d @@` and their lines) that turn `old` into `new`, with
/// `context` unchanged lines around each change. Appends nothing when the texts are equal.
pub fn hunks(old: &str, new: &str, context: usize, out: &mut String) {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let script = edits(&old, &new);
    let changed: Vec<usize> = script
        .iter()
        .enumerate()
        .filter(|(_, e)| !matches!(e, Edit::Same(..)))
        .map(|(k, _)| k)
        .collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(context);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * context + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + context + 1).min(script.len());
        let hunk = &script[start..end];
        let (old_start, new_start) = first_lines(&script[start..], old.len(), new.len());
        let old_len = hunk
            .iter()
            .filter(|e| !matches!(e, Edit::Insert(_)))
            .count();
        let new_len = hunk
            .iter()
            .filter(|e| !matches!(e, Edit::Delete(_)))
            .count();
        let _ = writeln!(
            out,
            "@@ -{} +{} @@",
            range(old_start, old_len),
            range(new_start, new_len)
        );
        for edit in hunk {
            let _ = match *edit {
                Edit::Same(i, _) => writeln!(out, " {}", old[i]),
                Edit::Delete(i) => writeln!(out, "-{}", old[i]),
                Edit::Insert(j) => writeln!(out, "+{}", new[j]),
            };
        }
    }
}

/// The 0-based old and new line where a stretch of the script begins.
fn first_lines(script: &[Edit], old_len: usize, new_len: usize) -> (usize, usize) {
    let old = script.iter().find_map(|e| match *e {
        Edit::Same(i, _) | Edit::Delete(i) => Some(i),
        Edit::Insert(_) => None,
    });
    let new = script.iter().find_map(|e| match *e {
        Edit::Same(_, j) | Edit::Insert(j) => Some(j),
        Edit::Delete(_) => None,
    });
    (old.unwrap_or(old_len), new.unwrap_or(new_len))
}

/// `start,len` in 1-based lines; an empty range names the line before it, as `diff -u` does.
fn range(start: usize, len: usize) -> String {
    if len == 0 {
        format!("{start},0")
    } else {
        format!("{},{len}", start + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn one_changed_line_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let mut out = String::new();
        hunks(old, new, 2, &mut out);
        assert_eq!(out, "@@ -3,5 +3,5 @@\n c\n d\n-e\n+E\n f\n g\n");
    }

    #[test]
    fn equal_texts_have_no_hunks() {
        let mut out = String::new();
        hunks("x\ny\n", "x\ny\n", 3, &mut out);
        assert_eq!(out, "");
    }

    #[test]
    fn everything_replaced_and_far_apart_changes() {
        let mut out = String::new();
        hunks("", "p\nq\n", 3, &mut out);
        assert_eq!(out, "@@ -0,0 +1,2 @@\n+p\n+q\n");
        let old: String = (0..20).map(|i| format!("{i}\n")).collect();
        let new: String = (0..20)
            .map(|i| match i {
                2 => "two\n".to_string(),
                17 => "seventeen\n".to_string(),
                _ => format!("{i}\n"),
            })
            .collect();
        let mut out = String::new();
        hunks(&old, &new, 1, &mut out);
        assert_eq!(out.matches("@@ -").count(), 2, "{out}");
    }
}
