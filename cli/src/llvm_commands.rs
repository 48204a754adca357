//! The commands on LLVM IR files: `read`, `check` (of a `.ll` file) and `fix`.

use atomir::llvm::read::ReadOptions;
use atomir::{Target, Triple};
use atomir_cli::llvm_ir;
use atomir_cli::ptx::InputKind;
use atomir_cli::report::Format;

use super::{one_file, read_input, target, usage, Args, Failure, Outcome};

/// `--triple`, for a module without a `target triple`.
fn options(args: &Args) -> Result<ReadOptions, Failure> {
    let triple = match &args.triple {
        Some(name) => Some(Triple::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Triple::ALL.iter().map(|t| t.name()).collect();
            usage(format!(
                "--triple: unknown triple `{name}`; expected one of {}",
                names.join(", ")
            ))
        })?),
        None => None,
    };
    Ok(ReadOptions { triple })
}

/// `atomir read FILE.ll`: every atomic in atomir's text form with its LLVM line; the errors
/// after them (exit 1 where there are any).
pub(crate) fn read(args: &Args, out: &mut String) -> Outcome {
    let file = one_file("read", args)?;
    let options = options(args)?;
    let (name, source) = read_input(&file)?;
    let (reading, errors) = llvm_ir::read_module(&name, &source, &options);
    llvm_ir::listing(&name, &source, &reading, out);
    if errors.is_empty() {
        return Ok(());
    }
    // What was read is printed even so: the errors name what is missing from it.
    super::write_stdout(out.as_bytes()).map_err(super::cannot_write)?;
    out.clear();
    Err(Failure::Input(errors))
}

/// `atomir check FILE.ll [--target T …] [--format F]`: without targets, whether the module's
/// atomics read; with them, the porting report.
pub(crate) fn check(args: &Args, out: &mut String) -> Outcome {
    if !args.filters.is_empty() {
        return Err(usage("`atomir check` takes no --filter"));
    }
    let format: Format = match &args.format {
        Some(name) => name.parse().map_err(usage)?,
        None => Format::Text,
    };
    let file = one_file("check", args)?;
    let options = options(args)?;
    let targets = args
        .targets
        .iter()
        .map(|name| target(name))
        .collect::<Result<Vec<Target>, _>>()?;
    let (name, source) = read_input(&file)?;
    let (reading, errors) = llvm_ir::read_module(&name, &source, &options);
    if !errors.is_empty() {
        return Err(Failure::Input(errors));
    }
    if !targets.is_empty() {
        llvm_ir::porting(&name, &source, &reading, &targets).render(format, out);
    }
    Ok(())
}

/// `atomir fix FILE.ll --target llvm:<triple>@<version>`.
pub(crate) fn fix(args: &Args, out: &mut String) -> Outcome {
    if args.format.is_some() || !args.filters.is_empty() {
        return Err(usage("`atomir fix` takes no --format or --filter"));
    }
    let file = one_file("fix", args)?;
    if InputKind::of(&file) != InputKind::LlvmIr {
        return Err(usage(format!(
            "`atomir fix` rewrites LLVM IR: FILE must end in `.ll`, not `{file}`"
        )));
    }
    let target = match args.targets.as_slice() {
        [name] => target(name)?,
        _ => {
            return Err(usage(
                "`atomir fix` needs one --target llvm:<triple>@<version>",
            ))
        }
    };
    let options = options(args)?;
    let (name, source) = read_input(&file)?;
    let fixed = llvm_ir::fix(&name, &source, &target, options).map_err(Failure::Input)?;
    out.push_str(&fixed.text);
    Ok(())
}

/// `atomir audit --ir FILE.ll --ptx FILE.ptx`: each IR atomic kept, strengthened, weakened or
/// unmatched in the PTX; exit code 1 where any is weakened or unmatched, or either module has
/// an atomic that cannot be read.
pub(crate) fn audit(args: &Args, out: &mut String) -> Outcome {
    if !args.files.is_empty() || !args.targets.is_empty() || args.format.is_some() {
        return Err(usage(
            "`atomir audit` takes --ir FILE.ll and --ptx FILE.ptx only",
        ));
    }
    let (Some(ir_file), Some(ptx_file)) = (&args.ir, &args.ptx) else {
        return Err(usage(
            "`atomir audit` needs --ir FILE.ll and --ptx FILE.ptx",
        ));
    };
    let (ir_name, ir_source) = read_input(ir_file)?;
    let (ptx_name, ptx_source) = read_input(ptx_file)?;
    let report = atomir::audit::audit(&ir_source, &ptx_source, ReadOptions::default());
    out.push_str(&report.render(&ir_name, &ptx_name));
    if report.is_clean() {
        Ok(())
    } else {
        Err(Failure::Findings(vec![format!(
            "{ir_name}: {} weakened, {} unmatched, {} unreadable in the IR, {} in the PTX",
            report.weakened(),
            report.unmatched(),
            report.ir_errors.len(),
            report.ptx_errors.len()
        )]))
    }
}
