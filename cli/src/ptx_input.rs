//! The commands on a `.ptx` file: `read`, `check` (with targets: the porting report) and
//! `lower` (a retargeted module for PTX, fragments for vISA and LLVM).

use atomir::{read_ptx, PtxTarget, ReadModule, Target};
use atomir_cli::porting::Porting;
use atomir_cli::ptx;
use atomir_cli::report::Format;

use super::{read_input, target, usage, Args, Failure, Outcome, MAX_DIAGNOSTICS};

/// Reads `file` as PTX: its name, source and what the reader found.
fn load(file: &str) -> Result<(String, String, ReadModule), Failure> {
    let (name, source) = read_input(file)?;
    let source = source.to_string();
    let module = read_ptx(&source);
    Ok((name, source, module))
}

/// The reader's errors, at most [`MAX_DIAGNOSTICS`] of them and a count of the rest.
fn errors(name: &str, module: &ReadModule) -> Failure {
    let mut lines = ptx::errors(name, module);
    let more = lines.len().saturating_sub(MAX_DIAGNOSTICS);
    lines.truncate(MAX_DIAGNOSTICS);
    if more > 0 {
        lines.push(format!(
            "{name}: … and {more} more error{} (only the first {MAX_DIAGNOSTICS} are shown)",
            if more == 1 { "" } else { "s" }
        ));
    }
    Failure::Input(lines)
}

/// `atomir read app.ptx`: every atomic in atomir's text form with its PTX line; the errors
/// after them (exit 1 where there are any).
pub(super) fn read(file: &str, out: &mut String) -> Outcome {
    let (name, source, module) = load(file)?;
    ptx::listing(&name, &source, &module, out);
    if module.errors.is_empty() {
        return Ok(());
    }
    // What was read is printed even so: the errors name what is missing from it.
    super::write_stdout(out.as_bytes()).map_err(super::cannot_write)?;
    out.clear();
    Err(errors(&name, &module))
}

/// `atomir check app.ptx [--target T …] [--format F]`: without targets, whether the module
/// reads; with them, the porting report.
pub(super) fn check(file: &str, args: &Args, out: &mut String) -> Outcome {
    if !args.filters.is_empty() {
        return Err(usage("`atomir check` takes no --filter"));
    }
    let format: Format = match &args.format {
        Some(name) => name.parse().map_err(usage)?,
        None => Format::Text,
    };
    let targets = args
        .targets
        .iter()
        .map(|name| target(name))
        .collect::<Result<Vec<_>, _>>()?;
    let (name, source, module) = load(file)?;
    if !module.errors.is_empty() {
        return Err(errors(&name, &module));
    }
    if !targets.is_empty() {
        Porting::run(&name, &source, &module, &targets).render(format, out);
    }
    Ok(())
}

/// `atomir lower app.ptx --target T`.
pub(super) fn lower(file: &str, name_of_target: &str, out: &mut String) -> Outcome {
    let asked = target(name_of_target)?;
    let (name, source, module) = load(file)?;
    if !module.errors.is_empty() {
        return Err(errors(&name, &module));
    }
    let result = match asked {
        Target::Ptx(ptx_target) => {
            let isa_given = name_of_target.contains('@');
            let header = ptx::header(ptx_target, isa_given, module.version);
            retarget_checked(&name, &source, &module, &header, ptx_target)
        }
        other => ptx::fragments(&name, &source, &module, &other),
    };
    match result {
        Ok(text) => {
            out.push_str(&text);
            Ok(())
        }
        Err(lines) => Err(Failure::Input(lines)),
    }
}

fn retarget_checked(
    name: &str,
    source: &str,
    module: &ReadModule,
    header: &ptx::Header,
    _asked: PtxTarget,
) -> Result<String, Vec<String>> {
    if module.version.is_none() || module.sm.is_none() {
        return Err(vec![input_line(
            name,
            "a module to retarget needs a `.version` and a `.target` naming a known architecture",
        )]);
    }
    ptx::retarget(name, source, module, header)
}

fn input_line(name: &str, message: &str) -> String {
    format!("{name}: error: {message}")
}
