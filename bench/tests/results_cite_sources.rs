//! Every table of figures in `bench/RESULTS.md` and `bench/history/*.md` names, in its section
//! (or a section above it), the command that produced it and the result file that holds that
//! command's output, and every result file cited exists. A figure whose source is gone fails
//! here, as does a citation of a file that is not in the repository.

use std::path::{Path, PathBuf};

/// How a command is spelled in the documents: a backticked span or a line of a fenced block
/// starting with one of these.
const COMMAND_STARTS: &[&str] = &[
    "cargo ",
    "scripts/",
    "target/release/",
    "python3 ",
    "bench/gpu/",
    "git show ",
    "ATOMIR_",
];

/// Where result files live.
const RESULT_PREFIXES: &[&str] = &[
    "bench/results/",
    "bench/gpu/results/",
    "bench/sass-sm_90.md",
    "bench/gpu-contention-",
];

fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The backticked spans of a text, and the lines of its fenced blocks.
fn code_spans(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            spans.push(line.trim().to_string());
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            spans.push(inside.to_string());
        }
        // A span broken over two lines: take its first line's part.
        if line.matches('`').count() % 2 == 1 {
            if let Some(open) = line.rsplit('`').next() {
                spans.push(open.to_string());
            }
        }
    }
    spans
}

/// The result-file paths a span cites (a `git show COMMIT:PATH` cites PATH at COMMIT, which the
/// repository's history holds, so it is not looked for in the tree).
fn cited_results(span: &str) -> Vec<(String, bool)> {
    let in_history = span.starts_with("git show ");
    span.split_whitespace()
        .map(|word| word.rsplit(':').next().unwrap_or(word))
        .map(|word| word.trim_matches(|c: char| ",;()".contains(c)).to_string())
        .filter(|word| RESULT_PREFIXES.iter().any(|p| word.starts_with(p)))
        // A file, not the folder that holds them.
        .filter(|word| {
            word.rsplit('/')
                .next()
                .is_some_and(|last| last.contains('.'))
        })
        .map(|word| (word, in_history))
        .collect()
}

/// Whether a cited path is a pattern of paths rather than one file.
fn is_pattern(path: &str) -> bool {
    path.contains(['<', '*', '$'])
}

/// A Markdown table, with the line it starts on.
struct Table {
    line: usize,
    rows: Vec<String>,
}

/// A heading's section: its level, its own text (up to the next heading), and its tables.
struct Section {
    level: usize,
    heading: String,
    text: String,
    tables: Vec<Table>,
}

fn sections(document: &str) -> Vec<Section> {
    let mut found = vec![Section {
        level: 0,
        heading: "(top)".into(),
        text: String::new(),
        tables: Vec::new(),
    }];
    let mut fenced = false;
    let mut in_table = false;
    for (index, line) in document.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            fenced = !fenced;
        }
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        if !fenced && level > 0 && trimmed[level..].starts_with(' ') {
            found.push(Section {
                level,
                heading: trimmed.to_string(),
                text: String::new(),
                tables: Vec::new(),
            });
            in_table = false;
            continue;
        }
        let section = found.last_mut().expect("the top section");
        section.text.push_str(line);
        section.text.push('\n');
        if !fenced && trimmed.starts_with('|') {
            if !in_table {
                section.tables.push(Table {
                    line: index + 1,
                    rows: Vec::new(),
                });
            }
            section
                .tables
                .last_mut()
                .unwrap()
                .rows
                .push(trimmed.to_string());
            in_table = true;
        } else {
            in_table = false;
        }
    }
    found
}

/// Whether a table holds figures: a digit in a cell below its header and separator rows.
fn holds_figures(table: &Table) -> bool {
    table
        .rows
        .iter()
        .skip(2)
        .any(|row| row.chars().any(|c| c.is_ascii_digit()))
}

/// What is wrong with one document's citations; `root` is where cited files are looked for.
fn problems(name: &str, document: &str, root: &Path) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut checked = 0;
    let all = sections(document);
    for (position, section) in all.iter().enumerate() {
        // The section's own text and that of every section above it but the document's title,
        // whose introduction would otherwise vouch for every table.
        let mut context = section.text.clone();
        let mut level = section.level;
        for above in all[..position].iter().rev() {
            if above.level < level && above.level >= 2 {
                context.push_str(&above.text);
                level = above.level;
            }
        }
        let spans = code_spans(&context);
        let has_command = spans
            .iter()
            .any(|span| COMMAND_STARTS.iter().any(|start| span.starts_with(start)));
        let results: Vec<(String, bool)> = spans.iter().flat_map(|s| cited_results(s)).collect();
        for table in section.tables.iter().filter(|t| holds_figures(t)) {
            checked += 1;
            let at = format!("{name}:{} (in `{}`)", table.line, section.heading);
            if !has_command {
                problems.push(format!(
                    "{at}: a table of figures with no command in its section"
                ));
            }
            // A pattern (`<group>.txt`) names where files go, not a file that holds the figures.
            if !results
                .iter()
                .any(|(path, in_history)| *in_history || !is_pattern(path))
            {
                problems.push(format!(
                    "{at}: a table of figures with no result file ({}) in its section",
                    RESULT_PREFIXES.join(", ")
                ));
            }
        }
        for (path, in_history) in &results {
            if !in_history && !is_pattern(path) && !root.join(path).exists() {
                problems.push(format!(
                    "{name}: `{}` cites {path}, which does not exist",
                    section.heading
                ));
            }
        }
    }
    (problems, checked)
}

fn documents() -> Vec<(String, String)> {
    let bench = bench_dir();
    let mut paths = vec![bench.join("RESULTS.md")];
    let mut history: Vec<PathBuf> = std::fs::read_dir(bench.join("history"))
        .expect("bench/history")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    history.sort();
    paths.extend(history);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path
                .strip_prefix(bench.parent().unwrap())
                .unwrap_or(&path)
                .display()
                .to_string();
            (name, text)
        })
        .collect()
}

#[test]
fn every_table_of_figures_names_its_command_and_result_file() {
    let root = bench_dir().parent().unwrap().to_path_buf();
    let mut all = Vec::new();
    let mut checked = 0;
    for (name, text) in documents() {
        let (found, tables) = problems(&name, &text, &root);
        all.extend(found);
        checked += tables;
    }
    println!("{checked} tables of figures checked");
    // RESULTS.md alone has more than ten; fewer means the parser lost them.
    assert!(checked > 10, "only {checked} tables of figures found");
    assert!(all.is_empty(), "{}", all.join("\n"));
}

#[test]
fn the_check_fails_without_a_command_or_a_result_file() {
    let root = bench_dir().parent().unwrap().to_path_buf();
    let table = "| a | b |\n|---|---:|\n| x | 12 |\n";
    let bare = format!("# T\n\nSome words.\n\n{table}");
    let (found, checked) = problems("bare", &bare, &root);
    assert_eq!(checked, 1);
    assert_eq!(found.len(), 2, "{found:?}");

    let command_only = format!("# T\n\n`cargo run --bin x`:\n\n{table}");
    let (found, _) = problems("command", &command_only, &root);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("no result file"), "{found:?}");

    let missing = format!("# T\n\n`scripts/x` writes `bench/results/no-such-file.txt`:\n\n{table}");
    let (found, _) = problems("missing", &missing, &root);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("does not exist"), "{found:?}");

    // Cited one level up, as a GPU run's subsection relies on its section's commands; the
    // document's title section vouches for nothing.
    let nested = format!(
        "# T\n\n`scripts/x`\n\n## S\n\n`python3 bench/gpu/table.py`\n\n### Run\n\n`bench/gpu/results/h100-2026-11-23.json`\n\n{table}"
    );
    let (found, checked) = problems("nested", &nested, &root);
    assert_eq!((found.len(), checked), (0, 1), "{found:?}");
    let title_only = format!("# T\n\n`scripts/x` `bench/sass-sm_90.md`\n\n## S\n\n{table}");
    assert_eq!(problems("title", &title_only, &root).0.len(), 2);
    // A folder is not a result file.
    let folder = format!("# T\n\n## S\n\n`scripts/x` writes into `bench/results/`:\n\n{table}");
    assert_eq!(problems("folder", &folder, &root).0.len(), 1);

    // A pattern of paths is not a result file.
    let pattern =
        format!("# T\n\n## S\n\n`scripts/x` writes `bench/results/x/<group>.txt`:\n\n{table}");
    assert_eq!(problems("pattern", &pattern, &root).0.len(), 1);

    // A table of words only is no table of figures.
    let words = "# T\n\n| a | b |\n|---|---|\n| x | y |\n";
    assert_eq!(problems("words", words, &root).1, 0);
}
