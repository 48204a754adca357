//! The commands on LLVM IR files: `read`, `check` (of a `.ll` file) and `fix`.

use atomir::llvm::read::ReadOptions;
use atomir::{Target, Triple};
use atomir_cli::llvm_ir;

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

fn llvm_file(command: &str, args: &Args) -> Result<String, Failure> {
    let file = one_file(command, args)?;
    if !llvm_ir::is_llvm_ir(&file) {
        return Err(usage(format!(
            "`atomir {command}` reads LLVM IR: FILE must end in `.ll`"
        )));
    }
    Ok(file)
}

/// `atomir read FILE.ll`.
pub(crate) fn read(args: &Args, out: &mut String) -> Outcome {
    if !args.targets.is_empty() || args.format.is_some() || !args.filters.is_empty() {
        return Err(usage(
            "`atomir read` takes no --target, --format or --filter",
        ));
    }
    let file = llvm_file("read", args)?;
    let options = options(args)?;
    let (name, source) = read_input(&file)?;
    let (reading, errors) = llvm_ir::read_module(&name, &source, &options);
    if !errors.is_empty() {
        return Err(Failure::Input(errors));
    }
    llvm_ir::print_read(&name, &source, &reading, out);
    Ok(())
}

/// `atomir check FILE.ll [--target T]…`.
pub(crate) fn check(args: &Args, out: &mut String) -> Outcome {
    if args.format.is_some() || !args.filters.is_empty() {
        return Err(usage("`atomir check` takes no --format or --filter"));
    }
    let file = llvm_file("check", args)?;
    let options = options(args)?;
    let targets = args
        .targets
        .iter()
        .map(|name| target(name))
        .collect::<Result<Vec<Target>, _>>()?;
    let (name, source) = read_input(&file)?;
    let (reading, errors) = llvm_ir::read_module(&name, &source, &options);
    let refused = llvm_ir::print_check(&name, &reading, &targets, out);
    match (errors.is_empty(), refused) {
        (true, false) => Ok(()),
        (true, true) => Err(Failure::Findings(vec![format!(
            "{name}: a target refuses an atomic (see the verdicts above)"
        )])),
        (false, _) => Err(Failure::Findings(errors)),
    }
}

/// `atomir fix FILE.ll --target llvm:<triple>@<version>`.
pub(crate) fn fix(args: &Args, out: &mut String) -> Outcome {
    if args.format.is_some() || !args.filters.is_empty() {
        return Err(usage("`atomir fix` takes no --format or --filter"));
    }
    let file = llvm_file("fix", args)?;
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
