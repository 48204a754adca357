//! `atomir`: check, format and lower atomic IR; print the lowering matrix; diff two targets.
//!
//! Exit codes: 0 success, 1 bad input or a refusal, 2 a usage error.

use std::io::{self, Read, Write};
use std::process::ExitCode;

use atomir_cli::filter::CellFilter;
use atomir_cli::ptx::InputKind;
use atomir_cli::report::{self, Format, TargetMatrix};
use atomir_cli::targets::{self, TargetBackend};
use atomir_ir::matrix::{all_cells, AnyCell};
use atomir_ir::verify::Verified;
use atomir_ir::{text, verify, Diagnostics, LowerOptions, Module, WriteError};

mod llvm_commands;
mod ptx_input;
mod source;

use source::Source;

const USAGE: &str = "\
Usage:
  atomir check FILE                       parse and verify; report errors as file:line:col
  atomir check FILE.ptx [--target T ...] [--format text|json|markdown|html]
                                          read a PTX module; with targets, per atomic and
                                          target: native, emulated (how) or refused (rule)
  atomir read FILE.ptx                    the atomics of a PTX module in atomir's text form
  atomir fmt FILE                         print the canonical text form
  atomir lower FILE --target T [--module] print the code for target T
  atomir matrix --target T [--target T2 ...] [--format text|json|markdown|html]
                [--filter key=value,...]  every cell of the lowering matrix
  atomir diff FILE --target A --target B  per-instruction diff of two targets' code
  atomir read FILE.ll [--triple TRIPLE]   the atomics of LLVM IR as atomir kernels
  atomir check FILE.ll [--target T ...]   read LLVM IR; each atomic's verdict per target
  atomir fix FILE.ll --target llvm:TRIPLE@VERSION
                                          each atomic replaced by atomir's lowering
  atomir audit --ir FILE.ll --ptx FILE.ptx
                                          does each IR atomic keep its meaning in the PTX?
  atomir help [COMMAND]

FILE may be `-` for standard input. A FILE ending in `.ptx` is a PTX module: `lower
--target ptx:...` retargets it, `--target visa:...|llvm:...` prints one fragment per atomic
bound to its registers.
Exit codes: 0 success, 1 bad input or a refusal, 2 a usage error.
";

/// How a command ended, mapped to the process exit code.
enum Failure {
    /// Bad input, a refusal, or an I/O error: the message is already formatted.
    Input(Vec<String>),
    /// The output is printed and says what was found (a refusal per target, a weakened
    /// atomic): exit code 1, with these lines on standard error.
    Findings(Vec<String>),
    /// A usage error: the message and a pointer to the help.
    Usage(String),
}

type Outcome = Result<(), Failure>;

fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

fn input(message: impl Into<String>) -> Failure {
    Failure::Input(vec![message.into()])
}

/// The parsed command line of one subcommand.
#[derive(Default)]
struct Args {
    files: Vec<String>,
    targets: Vec<String>,
    format: Option<String>,
    filters: Vec<String>,
    module: bool,
    help: bool,
    triple: Option<String>,
    ir: Option<String>,
    ptx: Option<String>,
}

/// Reads `--flag value`, `--flag=value`, bare flags and positional arguments.
fn parse_args(command: &str, raw: &[String]) -> Result<Args, Failure> {
    let mut args = Args::default();
    let mut rest = raw.iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if arg.starts_with("--") => (flag, Some(value.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, Failure> {
            match inline.clone().or_else(|| rest.next().cloned()) {
                Some(value) => Ok(value),
                None => Err(usage(format!("`{name}` needs a value"))),
            }
        };
        match flag {
            "-h" | "--help" => args.help = true,
            "--target" | "-t" => args.targets.push(value("--target")?),
            "--format" | "-f" => args.format = Some(value("--format")?),
            "--filter" => args.filters.push(value("--filter")?),
            "--module" if command == "lower" => args.module = true,
            "--ir" if command == "audit" => args.ir = Some(value("--ir")?),
            "--ptx" if command == "audit" => args.ptx = Some(value("--ptx")?),
            "--triple" if matches!(command, "read" | "check" | "fix") => {
                args.triple = Some(value("--triple")?)
            }
            "-" => args.files.push(arg.clone()),
            _ if flag.starts_with('-') => {
                return Err(usage(format!(
                    "unknown option `{arg}` for `atomir {command}`"
                )))
            }
            _ => args.files.push(arg.clone()),
        }
    }
    Ok(args)
}

fn command_help(command: &str) -> String {
    let body = match command {
        "check" => "atomir check FILE\n\nParses and verifies FILE (or `-` for standard input). Prints nothing and exits 0\nwhen it is valid; otherwise prints `file:line:col: error: ...` for each problem and\nexits 1.\n",
        "read" => "atomir read FILE.ptx\n\nPrints every atomic, ordered load and store and fence of a PTX module in atomir's\ntext form, one a line: `file:line:col: <atomir>\t// <ptx>;`. Forms atomir does not\nmodel and instructions that do not parse are errors on stderr (exit 1).\n",
        "fmt" => "atomir fmt FILE\n\nPrints FILE in canonical text form: every qualifier spelled out.\n",
        "lower" => "atomir lower FILE --target TARGET [--module]\n\nLowers FILE for TARGET and prints the code. --module wraps it as a complete unit the\ntarget's own tools accept; for PTX a kernel's ptr.generic parameters must then point to\nglobal memory, as in CUDA (a generic atomic through one is lowered as a .global one).\nA node the target cannot carry out is refused:\n`file:line:col: error: ... [rule ...]; smallest target ...` on stderr, exit 1.\n",
        "matrix" => "atomir matrix --target T [--target T2 ...] [--format text|json|markdown|html]\n              [--filter key=value,...]\n\nEvery cell of the lowering matrix (op x type x shape x order x scope x space x\nresult) with its strategy, its code or the reason it is refused, and the totals per\nstrategy per target. Filter keys: op, type, shape, order, scope, space, result\n(used|dead); a repeated key accepts any of its values, e.g.\n--filter op=add,op=sub,type=f32,space=global\n",
        "diff" => "atomir diff FILE --target A --target B\n\nFor each instruction of FILE: the strategy on A and on B (e.g.\n`inst 3 (line 7): cas-loop → native`) and a unified diff of the emitted code.\nA and B may be two targets or one target at two versions.\n",
        _ => return format!("{USAGE}\n{}", targets::targets_help()),
    };
    format!("{body}\n{}", targets::targets_help())
}

/// The input text and the name diagnostics use for it.
fn read_input(path: &str) -> Result<(String, Source), Failure> {
    if path == "-" {
        let mut source = String::new();
        io::stdin()
            .read_to_string(&mut source)
            .map_err(|error| input(format!("<stdin>: error: cannot read: {error}")))?;
        return Ok(("<stdin>".to_string(), Source::Read(source)));
    }
    match source::read_file(path) {
        Ok(source) => Ok((path.to_string(), source)),
        Err(error) => Err(input(format!("{path}: error: cannot read: {error}"))),
    }
}

fn one_file(command: &str, args: &Args) -> Result<String, Failure> {
    match args.files.as_slice() {
        [file] => Ok(file.clone()),
        [] => Err(usage(format!(
            "`atomir {command}` needs a FILE (or `-` for standard input)"
        ))),
        [_, extra, ..] => Err(usage(format!(
            "`atomir {command}` takes one FILE; unexpected `{extra}`"
        ))),
    }
}

/// At most this many diagnostics are printed for one input; the rest are counted in one closing
/// line, so a file of a million broken lines does not print a million errors.
const MAX_DIAGNOSTICS: usize = 100;

/// The kept diagnostics rendered against `name`, and "… and N more errors" for the rest.
fn rendered(name: &str, diagnostics: Diagnostics) -> Failure {
    let mut lines: Vec<String> = diagnostics.kept().iter().map(|d| d.render(name)).collect();
    match diagnostics.omitted() {
        0 => {}
        more => lines.push(format!(
            "{name}: … and {more} more error{} (only the first {MAX_DIAGNOSTICS} are shown)",
            if more == 1 { "" } else { "s" }
        )),
    }
    Failure::Input(lines)
}

/// Parses, rendering diagnostics against `name`.
fn load(name: &str, source: &str) -> Result<Module, Failure> {
    text::parse_with_limit(source, MAX_DIAGNOSTICS)
        .map_err(|diagnostics| rendered(name, diagnostics))
}

/// Verifies, rendering diagnostics against `name`.
fn verified<'m>(name: &str, module: &'m Module) -> Result<Verified<'m>, Failure> {
    verify::verify_with_limit(module, MAX_DIAGNOSTICS)
        .map_err(|diagnostics| rendered(name, diagnostics))
}

/// Reads and parses `file`; the source text is dropped before the caller verifies and lowers,
/// so a large input is not held twice (as text and as a module) while the output grows.
fn load_file(file: &str) -> Result<(String, Module), Failure> {
    let (name, source) = read_input(file)?;
    let module = load(&name, &source)?;
    Ok((name, module))
}

fn target(name: &str) -> Result<TargetBackend, Failure> {
    targets::parse_target(name).map_err(|message| usage(format!("target `{name}`: {message}")))
}

fn no_targets_allowed(command: &str, args: &Args) -> Outcome {
    if args.targets.is_empty() && args.format.is_none() && args.filters.is_empty() {
        Ok(())
    } else {
        Err(usage(format!(
            "`atomir {command}` takes no --target, --format or --filter"
        )))
    }
}

fn check(args: &Args, out: &mut String) -> Outcome {
    let file = one_file("check", args)?;
    match InputKind::of(&file) {
        InputKind::Ptx => return ptx_input::check(&file, args, out),
        InputKind::LlvmIr => return llvm_commands::check(args, out),
        InputKind::Atom => {}
    }
    no_targets_allowed("check", args)?;
    let (name, source) = read_input(&file)?;
    let module = load(&name, &source)?;
    verified(&name, &module).map(|_| ())
}

fn fmt(args: &Args, out: &mut String) -> Outcome {
    no_targets_allowed("fmt", args)?;
    let (name, source) = read_input(&one_file("fmt", args)?)?;
    let module = load(&name, &source)?;
    out.push_str(&text::print(&module));
    Ok(())
}

fn read(args: &Args, out: &mut String) -> Outcome {
    if args.triple.is_none() {
        no_targets_allowed("read", args)?;
    }
    let file = one_file("read", args)?;
    match InputKind::of(&file) {
        InputKind::Ptx => ptx_input::read(&file, out),
        InputKind::LlvmIr => llvm_commands::read(args, out),
        InputKind::Atom => Err(usage(format!(
            "`atomir read` reads a PTX module (`.ptx`) or LLVM IR (`.ll`); `{file}` is atomir's text form (see `atomir fmt`)"
        ))),
    }
}

fn lower(args: &Args, out: &mut String) -> Outcome {
    let file = one_file("lower", args)?;
    if InputKind::of(&file) == InputKind::Ptx {
        if args.format.is_some() || !args.filters.is_empty() || args.module {
            return Err(usage(
                "`atomir lower FILE.ptx` takes one --target and no other option",
            ));
        }
        return match args.targets.as_slice() {
            [name] => ptx_input::lower(&file, name, out),
            _ => Err(usage("`atomir lower` needs one --target")),
        };
    }
    let backend = match args.targets.as_slice() {
        [name] => target(name)?,
        [] => return Err(usage("`atomir lower` needs --target TARGET")),
        _ => return Err(usage("`atomir lower` takes one --target")),
    };
    if args.format.is_some() || !args.filters.is_empty() {
        return Err(usage("`atomir lower` takes no --format or --filter"));
    }
    let (name, parsed) = load_file(&file)?;
    let lowered = lower_module(&name, &parsed, &backend, args.module);
    // The process ends after this command: its exit returns the module's memory at once,
    // where dropping it would free each value's name on its own.
    std::mem::forget(parsed);
    lowered
}

fn lower_module(name: &str, module: &Module, backend: &TargetBackend, whole: bool) -> Outcome {
    let module = verified(name, module)?;
    let options = LowerOptions::fragment().with_complete_module(whole);
    // Straight to standard output as it is printed: the code of a large module is several
    // times the size of the module, and is never held whole.
    let mut stdout = open_stdout().map_err(cannot_write)?;
    backend
        .lower_into(&module, &options, &mut stdout)
        .map(|_| ())
        .map_err(|error| match error {
            WriteError::Lower(error) => input(format!("{name}:{error}")),
            WriteError::Io(error) => cannot_write(error),
            other => input(format!("{name}: {other}")),
        })?;
    stdout.flush().map_err(cannot_write)
}

fn cannot_write(error: io::Error) -> Failure {
    input(format!(
        "atomir: error: cannot write the output to standard output: {error}"
    ))
}

fn matrix(args: &Args, out: &mut String) -> Outcome {
    if !args.files.is_empty() {
        return Err(usage("`atomir matrix` takes no FILE"));
    }
    if args.targets.is_empty() {
        return Err(usage("`atomir matrix` needs at least one --target"));
    }
    let format: Format = match &args.format {
        Some(name) => name.parse().map_err(usage)?,
        None => Format::Text,
    };
    let mut filter = CellFilter::default();
    for text in &args.filters {
        filter
            .add(text)
            .map_err(|message| usage(format!("--filter: {message}")))?;
    }
    let backends = args
        .targets
        .iter()
        .map(|name| target(name))
        .collect::<Result<Vec<_>, _>>()?;
    let chosen: Vec<AnyCell> = all_cells().filter(|cell| filter.matches(cell)).collect();
    if chosen.is_empty() {
        return Err(usage("--filter matches no cell of the lowering matrix"));
    }
    let matrices: Vec<TargetMatrix> = backends
        .iter()
        .map(|backend| TargetMatrix::run(backend, &chosen))
        .collect();
    report::render(format, &matrices, out);
    Ok(())
}

fn diff(args: &Args, out: &mut String) -> Outcome {
    let file = one_file("diff", args)?;
    let (a, b) = match args.targets.as_slice() {
        [a, b] => (target(a)?, target(b)?),
        _ => return Err(usage("`atomir diff` needs exactly two --target")),
    };
    if args.format.is_some() || !args.filters.is_empty() {
        return Err(usage("`atomir diff` takes no --format or --filter"));
    }
    let (name, module) = load_file(&file)?;
    let module = verified(&name, &module)?;
    atomir_cli::diff::diff_targets(&module, &a, &b, out);
    Ok(())
}

fn run(argv: &[String], out: &mut String) -> Outcome {
    let Some((command, rest)) = argv.split_first() else {
        return Err(usage("no command given"));
    };
    let run_command: fn(&Args, &mut String) -> Outcome = match command.as_str() {
        "check" => check,
        "read" => read,
        "fmt" => fmt,
        "lower" => lower,
        "matrix" => matrix,
        "diff" => diff,
        "fix" => llvm_commands::fix,
        "audit" => llvm_commands::audit,
        "help" | "-h" | "--help" => {
            out.push_str(&command_help(rest.first().map_or("", String::as_str)));
            return Ok(());
        }
        "--version" | "-V" => {
            out.push_str(concat!("atomir ", env!("CARGO_PKG_VERSION"), "\n"));
            return Ok(());
        }
        other => return Err(usage(format!("unknown command `{other}`"))),
    };
    let args = parse_args(command, rest)?;
    if args.help {
        out.push_str(&command_help(command));
        return Ok(());
    }
    run_command(&args, out)
}

/// Writes `bytes` to standard output, reporting every way the output can be lost.
///
/// Rust's `Stdout` swallows `EBADF`, so the bytes go through a duplicate of the descriptor as a
/// plain file: a write into a pipe whose reader has gone fails with `EPIPE` (the runtime ignores
/// `SIGPIPE`), and a descriptor that was closed when the process started is caught by
/// [`closed_at_start`].
fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    let mut stdout = open_stdout()?;
    stdout.write_all(bytes)?;
    stdout.flush()
}

/// Standard output as a writer that reports every way the output can be lost (see
/// [`write_stdout`]).
#[cfg(unix)]
fn open_stdout() -> io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    if closed_at_start() {
        return Err(io::Error::other("standard output is closed"));
    }
    Ok(std::fs::File::from(
        io::stdout().as_fd().try_clone_to_owned()?,
    ))
}

/// Whether standard output was closed when the process started (`atomir … >&-`).
///
/// Rust's startup code puts `/dev/null`, opened read-write, on a standard descriptor it finds
/// closed, so every write would succeed and the output vanish. That descriptor cannot be told
/// from a `/dev/null` the parent opened read-write on purpose (Python's `subprocess.DEVNULL`,
/// a shell's `1<>/dev/null`), whose output is thrown away as asked. So the descriptor is looked
/// at before the runtime starts, from the program's initializers (ELF `.init_array`, which the
/// C library runs before `main`); elsewhere a closed standard output is not detected.
#[cfg(unix)]
fn closed_at_start() -> bool {
    startup::STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

/// What standard output was before Rust's runtime replaced a closed one ([`closed_at_start`]).
#[cfg(unix)]
mod startup {
    use std::sync::atomic::AtomicBool;

    /// Set by [`look_at_stdout`] when descriptor 1 was closed at startup.
    pub(super) static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

    /// Records whether descriptor 1 is open, before `main` (and Rust's runtime) runs.
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    extern "C" fn look_at_stdout() {
        // SAFETY: `fcntl(F_GETFD)` only reads the descriptor's flags; on a closed descriptor
        // it fails with EBADF and changes nothing.
        let closed = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1;
        STDOUT_CLOSED.store(closed, std::sync::atomic::Ordering::Relaxed);
    }

    /// The C library calls every function of `.init_array` before `main`.
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    #[used]
    #[link_section = ".init_array"]
    static LOOK_AT_STDOUT: extern "C" fn() = look_at_stdout;
}

#[cfg(not(unix))]
fn open_stdout() -> io::Result<io::StdoutLock<'static>> {
    Ok(io::stdout().lock())
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut out = String::new();
    let outcome = run(&argv, &mut out);
    // A failed command prints nothing on stdout: half a lowering is worse than none.
    if outcome.is_ok() && !out.is_empty() {
        if let Err(error) = write_stdout(out.as_bytes()) {
            let _ = writeln!(
                io::stderr().lock(),
                "atomir: error: cannot write the output to standard output: {error}"
            );
            return ExitCode::from(1);
        }
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Findings(lines)) => {
            if let Err(error) = write_stdout(out.as_bytes()) {
                let _ = writeln!(
                    io::stderr().lock(),
                    "atomir: error: cannot write the output to standard output: {error}"
                );
            }
            let mut stderr = io::stderr().lock();
            for line in lines {
                let _ = writeln!(stderr, "{line}");
            }
            ExitCode::from(1)
        }
        Err(Failure::Input(lines)) => {
            let mut stderr = io::stderr().lock();
            for line in lines {
                let _ = writeln!(stderr, "{line}");
            }
            ExitCode::from(1)
        }
        Err(Failure::Usage(message)) => {
            let _ = write!(
                io::stderr().lock(),
                "atomir: error: {message}\n\n{USAGE}\n{}",
                targets::targets_help()
            );
            ExitCode::from(2)
        }
    }
}
