//! Runs of lines of the same shape in two crates: each line whitespace-trimmed (identifiers
//! kept), blank lines, comment lines and lines of brackets and punctuation alone left out.

use std::collections::{BTreeMap, BTreeSet};

/// The fewest consecutive lines of one shape that count as written twice.
pub const RUN: usize = 6;

/// A file's kept lines, normalised.
fn kept_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|line| {
            !line.is_empty()
                && !line.starts_with("//")
                && line.chars().any(|c| c.is_alphanumeric() || c == '_')
        })
        .collect()
}

/// Every run of [`RUN`] or more kept lines of one crate's file that also stands in another
/// crate's file, as `path ~ path: \`first line\`` (no line numbers, so that an entry outlives
/// edits above it), one entry per pair of runs (a longer run is reported once, at its start).
/// `files` are (crate, path, text).
pub fn repeated_runs(files: &[(String, String, String)]) -> BTreeSet<String> {
    let lines: Vec<Vec<&str>> = files.iter().map(|(_, _, t)| kept_lines(t)).collect();
    // Every window of RUN kept lines, by its text, with where it starts.
    let mut windows: BTreeMap<Vec<&str>, Vec<(usize, usize)>> = BTreeMap::new();
    for (file, kept) in lines.iter().enumerate() {
        for start in 0..kept.len().saturating_sub(RUN - 1) {
            let key: Vec<&str> = kept[start..start + RUN].to_vec();
            windows.entry(key).or_default().push((file, start));
        }
    }
    // Pairs of windows in two crates; a window that continues the previous pair's run (both
    // sides one kept line further) is part of that run.
    let mut pairs: BTreeSet<((usize, usize), (usize, usize))> = BTreeSet::new();
    for places in windows.values() {
        for (i, a) in places.iter().enumerate() {
            for b in &places[i + 1..] {
                if files[a.0].0 != files[b.0].0 {
                    let (a, b) = if a <= b { (*a, *b) } else { (*b, *a) };
                    pairs.insert((a, b));
                }
            }
        }
    }
    pairs
        .iter()
        .filter(|((fa, sa), (fb, sb))| {
            *sa == 0 || *sb == 0 || !pairs.contains(&((*fa, sa - 1), (*fb, sb - 1)))
        })
        .map(|(a, b)| {
            let first = lines[a.0][a.1];
            format!("{} ~ {}: `{first}`", files[a.0].1, files[b.0].1)
        })
        .collect()
}
