//! The porting report of `atomir check app.ptx --target T …`: for every atomic of a PTX module
//! and every target, native, emulated (and how) or refused (the rule and the smallest target
//! that accepts it), with totals; as text, JSON, Markdown or one self-contained HTML page
//! that opens on the totals and the refusals.

use std::fmt::Write;

use atomir::{Backend, Node, ReadModule, Target, Verdict};

use crate::ptx::{canonical, instruction_text};
use crate::report::Format;

/// What a target does with one atomic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// One native instruction (after meaning-preserving rewrites, named in the text).
    Native(String),
    /// Emulated: how.
    Emulated(String),
    /// Refused: the rule, its words and the smallest target that accepts the node.
    Refused {
        /// The rule id.
        rule: String,
        /// Why.
        message: String,
        /// The smallest target that accepts it, if any.
        smallest: Option<String>,
    },
}

impl Outcome {
    fn word(&self) -> &'static str {
        match self {
            Outcome::Native(_) => "native",
            Outcome::Emulated(_) => "emulated",
            Outcome::Refused { .. } => "refused",
        }
    }

    fn detail(&self) -> String {
        match self {
            Outcome::Native(how) | Outcome::Emulated(how) => how.clone(),
            Outcome::Refused {
                rule,
                message,
                smallest,
            } => {
                let smallest = smallest
                    .as_deref()
                    .map_or(String::from("no target accepts it"), |t| {
                        format!("smallest target: {t}")
                    });
                format!("{message} [rule {rule}]; {smallest}")
            }
        }
    }
}

/// One atomic of the module with its outcome per target.
pub struct Row {
    /// `line:col`.
    pub line: u32,
    /// Column.
    pub col: u32,
    /// The PTX instruction.
    pub ptx: String,
    /// atomir's text form of it.
    pub atomir: String,
    /// One outcome per target, in the targets' order.
    pub outcomes: Vec<Outcome>,
}

/// The whole report.
pub struct Porting {
    /// The file's name.
    pub file: String,
    /// The language of the module's instructions, as the report's headings name it (`PTX`,
    /// `LLVM IR`).
    pub language: &'static str,
    /// The targets' names.
    pub targets: Vec<String>,
    /// Every atomic.
    pub rows: Vec<Row>,
}

/// What a target's verdict on `node` is, as the report shows it.
pub fn outcome(verdict: Verdict, node: &Node) -> Outcome {
    match verdict {
        Ok(legality) => {
            let how = match node {
                Node::Atomic(atomic) => legality.describe(atomic.ty, atomic.shape),
                Node::Fence(_) => legality.describe_fence(),
            };
            match legality.strategy() {
                atomir::Strategy::Native | atomir::Strategy::Rewrite => Outcome::Native(how),
                _ => Outcome::Emulated(how),
            }
        }
        Err(refusal) => Outcome::Refused {
            rule: refusal.rule.id().to_string(),
            message: refusal.reason.clone(),
            smallest: refusal.smallest_target.as_ref().map(ToString::to_string),
        },
    }
}

impl Porting {
    /// Judges every atomic of `module` for every target.
    pub fn run(file: &str, source: &str, module: &ReadModule, targets: &[Target]) -> Porting {
        let rows = module
            .atomics
            .iter()
            .map(|read| Row {
                line: read.line,
                col: read.col,
                ptx: instruction_text(source, read).to_string(),
                atomir: canonical(read),
                outcomes: targets
                    .iter()
                    .map(|target| {
                        let verdict = match &read.node {
                            Node::Atomic(node) => target.legalize(node),
                            Node::Fence(fence) => target.legalize_fence(fence),
                        };
                        outcome(verdict, &read.node)
                    })
                    .collect(),
            })
            .collect();
        Porting {
            file: file.to_string(),
            language: "PTX",
            targets: targets.iter().map(ToString::to_string).collect(),
            rows,
        }
    }

    /// `[native, emulated, refused]` for target `index`.
    pub fn totals(&self, index: usize) -> [usize; 3] {
        let mut totals = [0; 3];
        for row in &self.rows {
            match row.outcomes.get(index) {
                Some(Outcome::Native(_)) => totals[0] += 1,
                Some(Outcome::Emulated(_)) => totals[1] += 1,
                Some(Outcome::Refused { .. }) => totals[2] += 1,
                None => {}
            }
        }
        totals
    }

    /// Renders the report.
    pub fn render(&self, format: Format, out: &mut String) {
        match format {
            Format::Text => self.text(out),
            Format::Json => self.json(out),
            Format::Markdown => self.markdown(out),
            Format::Html => self.html(out),
        }
    }

    fn text(&self, out: &mut String) {
        for row in &self.rows {
            let end = if self.language == "PTX" { ";" } else { "" };
            let _ = writeln!(
                out,
                "{}:{}:{}: {}{end}",
                self.file, row.line, row.col, row.ptx
            );
            let _ = writeln!(out, "  atomir: {}", row.atomir);
            for (target, outcome) in self.targets.iter().zip(&row.outcomes) {
                let _ = writeln!(out, "  {target}: {}: {}", outcome.word(), outcome.detail());
            }
        }
        let _ = writeln!(out, "{} atomics", self.rows.len());
        for (index, target) in self.targets.iter().enumerate() {
            let [native, emulated, refused] = self.totals(index);
            let _ = writeln!(
                out,
                "{target}: {native} native, {emulated} emulated, {refused} refused"
            );
        }
    }

    fn json(&self, out: &mut String) {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|row| {
                let verdicts: Vec<serde_json::Value> = self
                    .targets
                    .iter()
                    .zip(&row.outcomes)
                    .map(|(target, outcome)| {
                        let mut verdict = serde_json::json!({
                            "target": target,
                            "outcome": outcome.word(),
                        });
                        match outcome {
                            Outcome::Native(how) | Outcome::Emulated(how) => {
                                verdict["how"] = how.clone().into();
                            }
                            Outcome::Refused {
                                rule,
                                message,
                                smallest,
                            } => {
                                verdict["rule"] = rule.clone().into();
                                verdict["message"] = message.clone().into();
                                verdict["smallest_target"] = smallest.clone().into();
                            }
                        }
                        verdict
                    })
                    .collect();
                serde_json::json!({
                    "line": row.line, "col": row.col, "ptx": row.ptx, "atomir": row.atomir,
                    "verdicts": verdicts,
                })
            })
            .collect();
        let totals: Vec<serde_json::Value> = self
            .targets
            .iter()
            .enumerate()
            .map(|(index, target)| {
                let [native, emulated, refused] = self.totals(index);
                serde_json::json!({
                    "target": target, "native": native, "emulated": emulated, "refused": refused,
                })
            })
            .collect();
        let report = serde_json::json!({
            "file": self.file, "atomics": self.rows.len(), "totals": totals, "rows": rows,
        });
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    }

    fn markdown(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "# Atomics of `{}` ({} atomics)\n",
            self.file,
            self.rows.len()
        );
        let _ = writeln!(
            out,
            "| target | native | emulated | refused |\n| --- | --- | --- | --- |"
        );
        for (index, target) in self.targets.iter().enumerate() {
            let [native, emulated, refused] = self.totals(index);
            let _ = writeln!(out, "| `{target}` | {native} | {emulated} | {refused} |");
        }
        let _ = write!(out, "\n| line | {} | atomir |", self.language);
        for target in &self.targets {
            let _ = write!(out, " `{target}` |");
        }
        let _ = write!(out, "\n| --- | --- | --- |");
        for _ in &self.targets {
            out.push_str(" --- |");
        }
        out.push('\n');
        for row in &self.rows {
            let _ = write!(
                out,
                "| {}:{} | `{}` | `{}` |",
                row.line,
                row.col,
                row.ptx.replace('|', "\\|"),
                row.atomir.replace('|', "\\|")
            );
            for outcome in &row.outcomes {
                let _ = write!(
                    out,
                    " {}: {} |",
                    outcome.word(),
                    outcome.detail().replace('|', "\\|")
                );
            }
            out.push('\n');
        }
    }

    fn html(&self, out: &mut String) {
        let escape = |text: &str| {
            text.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        let _ = write!(
            out,
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>atomir: atomics of {file}</title><style>\
             body{{font-family:sans-serif;margin:1.5em}}table{{border-collapse:collapse}}\
             td,th{{border:1px solid #bbb;padding:.2em .5em;vertical-align:top}}\
             code{{font-size:90%}}.native{{background:#e6f4e6}}.emulated{{background:#fff4d6}}\
             .refused{{background:#fbe0e0}}</style></head><body>\n\
             <h1>Atomics of <code>{file}</code></h1>\n<p>{count} atomics. Per target: how \
             many run as one native instruction, how many are emulated, how many no \
             instruction of the target can carry out.</p>\n<table><tr><th>target</th>\
             <th>native</th><th>emulated</th><th>refused</th></tr>\n",
            file = escape(&self.file),
            count = self.rows.len()
        );
        for (index, target) in self.targets.iter().enumerate() {
            let [native, emulated, refused] = self.totals(index);
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td class=\"native\">{native}</td>\
                 <td class=\"emulated\">{emulated}</td><td class=\"refused\">{refused}</td></tr>",
                escape(target)
            );
        }
        out.push_str("</table>\n");
        for (heading, word, open) in [
            ("Refused", "refused", true),
            ("Emulated", "emulated", true),
            ("Native", "native", false),
        ] {
            let _ = write!(
                out,
                "<details{}><summary><h2 style=\"display:inline\">{heading}</h2></summary>\n\
                 <table><tr><th>line</th><th>{}</th><th>atomir</th><th>target</th>\
                 <th>how or why</th></tr>\n",
                if open { " open" } else { "" },
                self.language
            );
            for row in &self.rows {
                for (target, outcome) in self.targets.iter().zip(&row.outcomes) {
                    if outcome.word() != word {
                        continue;
                    }
                    let _ = writeln!(
                        out,
                        "<tr class=\"{word}\"><td>{}:{}</td><td><code>{}</code></td>\
                         <td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>",
                        row.line,
                        row.col,
                        escape(&row.ptx),
                        escape(&row.atomir),
                        escape(target),
                        escape(&outcome.detail())
                    );
                }
            }
            out.push_str("</table></details>\n");
        }
        out.push_str("</body></html>\n");
    }
}
