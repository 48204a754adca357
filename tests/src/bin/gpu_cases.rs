//! Writes and checks the GPU harness's cases; also dumps matrix modules for inspection.
//!
//! - `gpu_cases dump TARGET FILE`: the whole lowering matrix for `ptx:TARGET` as one module.

use atomir_ir::matrix::cells;
use atomir_ptx::{PtxBackend, PtxTarget};
use atomir_tests::ptx::{legalize_cells, module_text};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("dump") if args.len() == 4 => {
            let target = PtxTarget::parse(&args[2]).unwrap_or_else(|e| fail(&e));
            let backend = PtxBackend::new(target);
            let all: Vec<_> = cells().collect();
            let (_, module) = legalize_cells(&backend, &all);
            std::fs::write(&args[3], module_text(&backend, &module))
                .unwrap_or_else(|e| fail(&e.to_string()));
        }
        _ => fail("usage: gpu_cases dump TARGET FILE"),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("gpu_cases: {message}");
    std::process::exit(2)
}
