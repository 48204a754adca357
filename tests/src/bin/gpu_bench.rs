//! Checks the GPU contention benchmark's results (`bench/gpu/contention.py` runs it before it
//! times a kernel) and simulates runs for its self-test. See `atomir_tests::contention`.
//!
//! ```text
//! gpu_bench check    CASE --init F --operands F --final F [--olds F]
//! gpu_bench simulate CASE --init F --operands F --final F [--olds F] [--order forward|reverse|shuffle:SEED]
//! CASE: --op OP --type TYPE --result used|unused --addresses N --threads T
//! gpu_bench check-cell    CELL --init F --operands F --final F [--olds F]
//! gpu_bench simulate-cell CELL --init F --operands F --final F [--olds F] [--order ...]
//! CELL: --cell NAME --addresses N --threads T [--groups G]
//! ```
//!
//! The `-cell` forms take any matrix cell (scalar or vector) by name (`atomir_tests::cell_bench`), for the
//! cell timing harness (`bench/gpu/cells/`).
//!
//! `check` prints `ok <kind>` (kind: linearization, exact, bound, weak) and exits 0, or prints
//! `wrong: <reason>` and exits 1. `simulate` writes the final memory (and the old values, with
//! the result used) of the threads run one after another. Usage errors exit 2.

use std::collections::HashMap;

use atomir_ir::{AtomicOp, ElemType};
use atomir_tests::cell_bench::{find_cell, CellRun};
use atomir_tests::contention::{check, simulate, Case, Layout, Observed, Order};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        usage("no command");
    };
    let flags = parse_flags(rest);
    if let Some(command) = command.strip_suffix("-cell") {
        cell_command(command, &flags);
        return;
    }
    let case = Case {
        op: AtomicOp::from_name(flag(&flags, "op")).unwrap_or_else(|| usage("unknown --op")),
        ty: ElemType::from_name(flag(&flags, "type")).unwrap_or_else(|| usage("unknown --type")),
        result_used: match flag(&flags, "result") {
            "used" => true,
            "unused" => false,
            _ => usage("--result must be used or unused"),
        },
    };
    let layout = Layout {
        addresses: number(&flags, "addresses"),
        threads: number(&flags, "threads"),
    };
    let init = read_file(flag(&flags, "init"));
    let operands = read_file(flag(&flags, "operands"));
    match command.as_str() {
        "check" => {
            let last = read_file(flag(&flags, "final"));
            let olds = flags.get("olds").map(|path| read_file(path));
            let observed = Observed {
                init: &init,
                last: &last,
                operands: &operands,
                olds: olds.as_deref(),
            };
            match check(&case, layout, &observed) {
                Ok(kind) => println!("ok {}", kind.as_str()),
                Err(reason) => {
                    println!("wrong: {reason}");
                    std::process::exit(1);
                }
            }
        }
        "simulate" => {
            let (memory, olds) = simulate(&case, layout, &init, &operands, parse_order(&flags));
            write_file(flag(&flags, "final"), &memory);
            if let Some(olds) = olds {
                write_file(flag(&flags, "olds"), &olds);
            }
        }
        _ => usage(&format!("unknown command `{command}`")),
    }
}

/// `check-cell` and `simulate-cell`.
fn cell_command(command: &str, flags: &HashMap<String, String>) {
    let name = flag(flags, "cell");
    let cell = find_cell(name).unwrap_or_else(|| usage(&format!("no matrix cell `{name}`")));
    let run = CellRun {
        cell,
        layout: Layout {
            addresses: number(flags, "addresses"),
            threads: number(flags, "threads"),
        },
        groups: flags.get("groups").map_or(1, |_| number(flags, "groups")),
    };
    let init = read_file(flag(flags, "init"));
    let operands = read_file(flag(flags, "operands"));
    match command {
        "check" => {
            let last = read_file(flag(flags, "final"));
            let olds = flags.get("olds").map(|path| read_file(path));
            let observed = Observed {
                init: &init,
                last: &last,
                operands: &operands,
                olds: olds.as_deref(),
            };
            match run.check(&observed) {
                Ok(kind) => println!("ok {}", kind.as_str()),
                Err(reason) => {
                    println!("wrong: {reason}");
                    std::process::exit(1);
                }
            }
        }
        "simulate" => {
            let (memory, olds) = run
                .simulate(&init, &operands, parse_order(flags))
                .unwrap_or_else(|reason| usage(&reason));
            write_file(flag(flags, "final"), &memory);
            if let Some(olds) = olds {
                write_file(flag(flags, "olds"), &olds);
            }
        }
        _ => usage(&format!("unknown command `{command}-cell`")),
    }
}

fn parse_order(flags: &HashMap<String, String>) -> Order {
    match flags.get("order").map(String::as_str) {
        None | Some("forward") => Order::Forward,
        Some("reverse") => Order::Reverse,
        Some(text) => match text.strip_prefix("shuffle:").map(str::parse) {
            Some(Ok(seed)) => Order::Shuffled(seed),
            _ => usage("--order must be forward, reverse or shuffle:SEED"),
        },
    }
}

fn parse_flags(args: &[String]) -> HashMap<String, String> {
    let mut flags = HashMap::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let Some(name) = arg.strip_prefix("--") else {
            usage(&format!("unexpected argument `{arg}`"));
        };
        let Some(value) = iter.next() else {
            usage(&format!("--{name} needs a value"));
        };
        flags.insert(name.to_string(), value.clone());
    }
    flags
}

fn flag<'a>(flags: &'a HashMap<String, String>, name: &str) -> &'a str {
    flags
        .get(name)
        .map(String::as_str)
        .unwrap_or_else(|| usage(&format!("--{name} is missing")))
}

fn number(flags: &HashMap<String, String>, name: &str) -> usize {
    flag(flags, name)
        .parse()
        .unwrap_or_else(|_| usage(&format!("--{name} must be a number")))
}

fn read_file(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| usage(&format!("{path}: {e}")))
}

fn write_file(path: &str, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| usage(&format!("{path}: {e}")));
}

fn usage(message: &str) -> ! {
    eprintln!("gpu_bench: {message}");
    eprintln!(
        "usage: gpu_bench check|simulate --op OP --type TYPE --result used|unused --addresses N \
         --threads T --init F --operands F --final F [--olds F] [--order forward|reverse|shuffle:SEED]"
    );
    std::process::exit(2)
}
