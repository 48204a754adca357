//! Prints every target the registry accepts (`atomir::Target::all()`), one name a line, in the
//! registry's order: what `scripts/long-judge` hands the kernel judge, so that no target list
//! is written by hand.

use std::io::Write;

fn main() {
    let mut out = std::io::stdout().lock();
    for target in atomir::Target::all() {
        if writeln!(out, "{target}").is_err() {
            std::process::exit(1);
        }
    }
}
