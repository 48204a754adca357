//! Prints the hand-written PTX kernels and LLVM functions with the atomics and the fence spliced
//! in, what each target refused, and each atomic's size with and without `+plain-loops`.

use atomir::Target;
use atomir_embed::{llvm_function, program, ptx_kernel, sizes_with_plain_loops};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let program = program();
    for name in [
        "ptx:sm_70",
        "ptx:sm_90",
        "llvm:nvptx64",
        "llvm:x86_64",
        "llvm:nvptx64@15",
    ] {
        let target: Target = name.parse()?;
        let spliced = match target {
            Target::Ptx(_) => ptx_kernel(&program, target)?,
            _ => llvm_function(&program, target)?,
        };
        println!(
            "// ===== {target}: {} of 6 atomics spliced",
            spliced.spliced.len()
        );
        for refusal in &spliced.refusals {
            println!("// refused: {refusal}");
        }
        println!("{}", spliced.text);
    }
    // The size knob: the warp-combined default against the plain loop, per atomic.
    let target: Target = "ptx:sm_90".parse()?;
    println!("// ===== instructions per atomic on {target}: default, +plain-loops");
    for (what, default, plain) in sizes_with_plain_loops(&program, target)? {
        println!("// {what}: {default}, {plain}");
    }
    Ok(())
}
