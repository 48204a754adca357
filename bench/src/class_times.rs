//! The GPU time of the SASS table's classes: for each class, the worst ratio of atomir's time
//! to llc's over the rows the cell timing harness (`bench/gpu/cells/run.py`) measured, read from
//! its `results.json` files, so the table marks a class longer than llc's code with what the
//! GPU said of it.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// What the timed rows of one class showed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClassTime {
    /// Rows of the class atomir's code finished and passed its check in.
    pub rows: usize,
    /// Rows where atomir's code did not finish or failed its check (a hang counts as slower
    /// than anything).
    pub failed: usize,
    /// The worst of atomir's time over llc 22's, over the rows llc 22's code finished.
    pub worst_llc22: Option<f64>,
    /// The same against llc 23.
    pub worst_llc23: Option<f64>,
}

impl ClassTime {
    /// The table's cell: the worst ratios, or why there are none.
    pub fn describe(&self) -> String {
        let ratio = |worst: Option<f64>| worst.map_or("—".to_string(), |r| format!("{r:.2}x"));
        let mut text = format!(
            "{} / {} over {} rows",
            ratio(self.worst_llc22),
            ratio(self.worst_llc23),
            self.rows
        );
        if self.failed > 0 {
            text.push_str(&format!(
                ", atomir's code failed or hung in {}",
                self.failed
            ));
        }
        text
    }
}

/// The class a timed row counts in, by its cell's name: `Some(Some(slug))` where the table
/// classified the cell as worse at the code it measured, `Some(None)` where it measured the cell
/// and found it no worse (the row counts in no class), `None` where it did not measure the cell
/// (the row counts in the class it was timed as, if any).
pub type ClassOf<'a> = &'a dyn Fn(&str) -> Option<Option<&'static str>>;

/// The classes' times from the harness's result files.
pub fn read(paths: &[&Path], class_of: ClassOf) -> Result<BTreeMap<String, ClassTime>, String> {
    let mut classes = BTreeMap::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        add(&text, &mut classes, class_of).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(classes)
}

/// Adds the rows of one `results.json` to `classes`, each in the class `class_of` gives it; a
/// row in no class (a cell chosen by name that the table did not measure) is left out.
pub fn add(
    text: &str,
    classes: &mut BTreeMap<String, ClassTime>,
    class_of: ClassOf,
) -> Result<(), String> {
    let results: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let rows = results["rows"]
        .as_array()
        .ok_or("no `rows` array: not a result file of the cell timing harness")?;
    for row in rows {
        let timed_as = row["class"].as_str().filter(|class| !class.is_empty());
        let class = match row["cell"].as_str().and_then(class_of) {
            Some(measured) => measured,
            None => timed_as,
        };
        let Some(class) = class else {
            continue;
        };
        let time = classes.entry(class.to_string()).or_default();
        if row["contenders"]["ours"]["status"].as_str() != Some("ok") {
            time.failed += 1;
            continue;
        }
        time.rows += 1;
        let worse = |worst: &mut Option<f64>, baseline: &str| {
            if let Some(ratio) = row["ratios"][baseline].as_f64() {
                *worst = Some(worst.map_or(ratio, |w: f64| w.max(ratio)));
            }
        };
        worse(&mut time.worst_llc22, "llc22");
        worse(&mut time.worst_llc23, "llc23");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_ratio_of_each_class_and_the_failed_rows() {
        let text = r#"{"rows": [
            {"class": "cas-b16-loop", "contenders": {"ours": {"status": "ok"}},
             "ratios": {"llc22": 1.2, "llc23": 0.9}},
            {"class": "cas-b16-loop", "contenders": {"ours": {"status": "ok"}},
             "ratios": {"llc22": 1.44, "llc23": 0.5}},
            {"class": "cas-b16-loop", "contenders": {"ours": {"status": "timeout"}},
             "ratios": {}},
            {"class": "other", "contenders": {"ours": {"status": "ok"}}, "ratios": {"llc23": 1.04}},
            {"class": "", "contenders": {"ours": {"status": "ok"}}, "ratios": {"llc22": 9.0}}
        ]}"#;
        let mut classes = BTreeMap::new();
        add(text, &mut classes, &|_| None).unwrap();
        assert_eq!(classes.len(), 2);
        let cas = classes["cas-b16-loop"];
        assert_eq!((cas.rows, cas.failed), (2, 1));
        assert_eq!((cas.worst_llc22, cas.worst_llc23), (Some(1.44), Some(0.9)));
        assert_eq!(
            cas.describe(),
            "1.44x / 0.90x over 2 rows, atomir's code failed or hung in 1"
        );
        assert_eq!(classes["other"].describe(), "— / 1.04x over 1 rows");
    }

    #[test]
    fn a_row_counts_in_the_class_the_table_gives_its_cell() {
        let text = r#"{"rows": [
            {"cell": "a", "class": "other", "contenders": {"ours": {"status": "ok"}},
             "ratios": {"llc23": 1.5}},
            {"cell": "b", "contenders": {"ours": {"status": "ok"}}, "ratios": {"llc23": 1.2}},
            {"cell": "c", "class": "other", "contenders": {"ours": {"status": "ok"}},
             "ratios": {"llc23": 2.0}},
            {"cell": "d", "class": "other", "contenders": {"ours": {"status": "ok"}},
             "ratios": {"llc23": 0.5}}
        ]}"#;
        // a and b: classified by the table; c: measured and no worse; d: not measured.
        let class_of = |cell: &str| match cell {
            "a" | "b" => Some(Some("lean-loop-fences")),
            "c" => Some(None),
            _ => None,
        };
        let mut classes = BTreeMap::new();
        add(text, &mut classes, &class_of).unwrap();
        assert_eq!(classes["lean-loop-fences"].rows, 2);
        assert_eq!(classes["lean-loop-fences"].worst_llc23, Some(1.5));
        assert_eq!(classes["other"].rows, 1);
        assert_eq!(classes["other"].worst_llc23, Some(0.5));
    }

    #[test]
    fn a_file_of_another_shape_is_an_error() {
        let mut classes = BTreeMap::new();
        assert!(add("[1, 2]", &mut classes, &|_| None)
            .unwrap_err()
            .contains("no `rows`"));
        assert!(add("{", &mut classes, &|_| None)
            .unwrap_err()
            .contains("not JSON"));
    }
}
