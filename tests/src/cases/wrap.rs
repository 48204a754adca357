//! The wrappers that run a case's kernel once: LLVM IR functions around our LLVM output, and a
//! PTX entry with a real `.shared` window around our PTX.

use std::fmt::Write as _;

use atomir_ir::{AddressSpace, ValueType};

use super::{data_layout, Arg, Case, Region, REGION_BYTES, RESULT_SLOT};

// ---- wrappers ------------------------------------------------------------------------------

/// The parameters of `define … @name(…)` in our LLVM output: (type, name) in order.
pub fn llvm_signature(code: &str, name: &str) -> Option<Vec<(String, String)>> {
    let quoted = format!("@\"{name}\"(");
    let plain = format!("@{name}(");
    let line = code
        .lines()
        .find(|l| l.starts_with("define ") && (l.contains(&plain) || l.contains(&quoted)))?;
    let start = line.find('(')? + 1;
    let end = line.rfind(") {")?;
    let inner = &line[start..end];
    if inner.is_empty() {
        return Some(Vec::new());
    }
    Some(
        inner
            .split(", ")
            .map(|p| {
                let (ty, name) = p.rsplit_once(' ').unwrap_or(("", p));
                (ty.to_string(), name.to_string())
            })
            .collect(),
    )
}

/// An LLVM wrapper `void @atomir_case_w<index>(ptr global, ptr shared, ptr args, ptr out)`
/// around case kernel `name` of `code` (our `--module` output). On NVPTX (`gpu`) the wrapper is
/// the kernel: its shared region is an `addrspace(3)` buffer filled from, and copied back to,
/// the `shared` image; the case kernel must have been made a plain function first
/// ([`llvm_plain_functions`]).
pub fn llvm_wrapper(
    case: &Case,
    code: &str,
    index: usize,
    gpu: bool,
    out: &mut String,
) -> Result<(), String> {
    let name = &case.kernel.name;
    let params = llvm_signature(code, name).ok_or_else(|| format!("no define of @{name}"))?;
    let offsets = case.arg_offsets();
    let smem = format!("@atomir_case_smem{index}");
    if gpu {
        let _ = writeln!(
            out,
            "{smem} = internal addrspace(3) global [{REGION_BYTES} x i8] undef, align 128"
        );
        let _ = writeln!(
            out,
            "define ptx_kernel void @atomir_case_w{index}(ptr %global, ptr %shared, ptr %args, ptr %out) {{"
        );
        let _ = writeln!(
            out,
            "  call void @llvm.memcpy.p3.p0.i64(ptr addrspace(3) align 128 {smem}, ptr align 16 %shared, i64 {REGION_BYTES}, i1 false)"
        );
    } else {
        let _ = writeln!(
            out,
            "define void @atomir_case_w{index}(ptr %global, ptr %shared, ptr %args, ptr %out) {{"
        );
    }
    let mut call = Vec::new();
    let mut results = 0;
    for (i, (ty, pname)) in params.iter().enumerate() {
        if pname.starts_with("%.out") {
            let _ = writeln!(
                out,
                "  %o{i} = getelementptr i8, ptr %out, i64 {}",
                results * RESULT_SLOT
            );
            results += 1;
            let value = cast(out, &format!("%o{i}"), "ptr", ty, &format!("%oc{i}"));
            call.push(format!("{ty} {value}"));
            continue;
        }
        let param = case
            .kernel
            .params
            .get(i)
            .ok_or_else(|| format!("@{name}: parameter {i} is not the kernel's"))?;
        match (&case.args[i], offsets[i]) {
            (Arg::Pointer { region, offset }, _) => {
                let (base, base_ty) = match (region, gpu) {
                    (Region::Shared, true) => (smem.clone(), "ptr addrspace(3)"),
                    (Region::Shared, false) => ("%shared".to_string(), "ptr"),
                    (Region::Global, _) => ("%global".to_string(), "ptr"),
                };
                let _ = writeln!(
                    out,
                    "  %a{i} = getelementptr i8, {base_ty} {base}, i64 {offset}"
                );
                let value = cast(out, &format!("%a{i}"), base_ty, ty, &format!("%ac{i}"));
                call.push(format!("{ty} {value}"));
            }
            (Arg::Pred(_), Some(at)) => {
                let _ = writeln!(out, "  %s{i} = getelementptr i8, ptr %args, i64 {at}");
                let _ = writeln!(out, "  %l{i} = load i8, ptr %s{i}, align 16");
                let _ = writeln!(out, "  %v{i} = trunc i8 %l{i} to i1");
                call.push(format!("i1 %v{i}"));
            }
            (Arg::Data(_), Some(at)) => {
                let _ = writeln!(out, "  %s{i} = getelementptr i8, ptr %args, i64 {at}");
                let _ = writeln!(out, "  %v{i} = load {ty}, ptr %s{i}, align 16");
                call.push(format!("{ty} %v{i}"));
            }
            _ => {
                return Err(format!(
                    "@{name}: parameter {i} ({:?}) has no argument slot",
                    param.ty
                ))
            }
        }
    }
    let callee = if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!("@{name}")
    } else {
        format!("@\"{name}\"")
    };
    let _ = writeln!(out, "  call void {callee}({})", call.join(", "));
    if gpu {
        let _ = writeln!(
            out,
            "  call void @llvm.memcpy.p0.p3.i64(ptr align 16 %shared, ptr addrspace(3) align 128 {smem}, i64 {REGION_BYTES}, i1 false)"
        );
    }
    out.push_str("  ret void\n}\n\n");
    Ok(())
}

/// `value` of type `from` as type `to` (an `addrspacecast` where they differ).
pub(super) fn cast(out: &mut String, value: &str, from: &str, to: &str, name: &str) -> String {
    if from == to {
        return value.to_string();
    }
    let _ = writeln!(out, "  {name} = addrspacecast {from} {value} to {to}");
    name.to_string()
}

/// Our NVPTX module with its kernels made plain functions (called by the wrappers).
pub fn llvm_plain_functions(code: &str) -> String {
    code.replace("define ptx_kernel void ", "define void ")
}

/// The declarations the NVPTX wrappers need.
pub const LLVM_GPU_DECLARATIONS: &str = "\
declare void @llvm.memcpy.p3.p0.i64(ptr addrspace(3), ptr, i64, i1)
declare void @llvm.memcpy.p0.p3.i64(ptr, ptr addrspace(3), i64, i1)
";

/// One `.param` of a PTX `.entry`: its declaration text, name and type. The type is its own
/// field because the name carries digits (`case316_param_16`) that a look at the whole
/// declaration would take for a width.
pub(super) struct PtxParam {
    decl: String,
    name: String,
    /// The type token without its dot (`b64`, `u8`; `b8` for a byte array).
    ty: String,
    array: bool,
}

/// The parameters of `.entry <name>(…)` in our PTX output.
pub(super) fn ptx_params(code: &str, name: &str) -> Option<Vec<PtxParam>> {
    let header = format!(".entry {name}(");
    let start = code.find(&header)? + header.len();
    let end = start + code[start..].find(')')?;
    Some(
        code[start..end]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                let mut tokens = p.split_whitespace().rev();
                let last = tokens.next().unwrap_or(p);
                let name = last.split('[').next().unwrap_or(last).to_string();
                let ty = tokens
                    .next()
                    .unwrap_or("")
                    .trim_start_matches('.')
                    .to_string();
                PtxParam {
                    decl: p.to_string(),
                    name,
                    ty,
                    array: last.contains('['),
                }
            })
            .collect(),
    )
}

/// Our PTX module with every case `.entry` turned into a `.func` the wrappers call. A device
/// function cannot take 8/16-bit (or predicate) parameters in the ABI, so those become 4-byte
/// arrays, which the kernel's `ld.param.u8`/`.b16` read the same way.
pub fn ptx_functions(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut in_params = false;
    for line in code.lines() {
        let mut line = line.replace(".visible .entry ", ".func ");
        if line.starts_with(".func ") {
            in_params = true;
        } else if line.starts_with(')') {
            in_params = false;
        }
        if in_params {
            for narrow in [".param .u8 ", ".param .b16 "] {
                if let Some(at) = line.find(narrow) {
                    let name = line[at + narrow.len()..].trim_end_matches(',').to_string();
                    let comma = if line.ends_with(',') { "," } else { "" };
                    line = format!("{}.param .align 4 .b8 {name}[4]{comma}", &line[..at]);
                }
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A PTX wrapper `.entry atomir_case_w<index>(global, shared, args, out)` around case kernel
/// `name` of `code` (our `--module` output, made `.func`s by [`ptx_functions`]): copies the
/// shared image into a `.shared` buffer, calls the kernel with every argument (a shared-window
/// address for `ptr.shared`/`ptr.shared_cluster`, a generic one for `ptr.generic`), copies the
/// buffer back.
pub fn ptx_wrapper(case: &Case, code: &str, index: usize, out: &mut String) -> Result<(), String> {
    // Case kernels have plain names (`case<N>`), which PTX spells as they are.
    let name = case.kernel.name.clone();
    let params = ptx_params(code, &name).ok_or_else(|| format!("no .entry {name}"))?;
    let offsets = case.arg_offsets();
    let w = format!("atomir_case_w{index}");
    let _ = writeln!(
        out,
        ".visible .entry {w}(\n\t.param .u64 {w}_global,\n\t.param .u64 {w}_shared,\n\t.param .u64 {w}_args,\n\t.param .u64 {w}_out\n)\n{{"
    );
    out.push_str(
        "\t.reg .b64 %wd<8>;\n\t.reg .b32 %wr<2>;\n\t.reg .b16 %wh<2>;\n\t.reg .pred %wp<1>;\n",
    );
    let _ = writeln!(out, "\t.shared .align 128 .b8 {w}_smem[{REGION_BYTES}];");
    for (i, p) in ["global", "shared", "args", "out"].iter().enumerate() {
        let _ = writeln!(out, "\tld.param.u64 %wd{i}, [{w}_{p}];");
    }
    let _ = writeln!(out, "\tmov.u64 %wd4, {w}_smem;");
    copy_loop(
        out,
        &format!("{w}_in"),
        "ld.u64",
        "%wd1",
        "st.shared.u64",
        "%wd4",
    );
    out.push_str("\t{\n");
    let mut names = Vec::new();
    let mut results = 0;
    for (i, param) in params.iter().enumerate() {
        let slot = format!("{w}_p{i}");
        let narrow = !param.array && matches!(param.ty.as_str(), "u8" | "b16");
        let decl = if narrow {
            format!(".param .align 4 .b8 {slot}[4]")
        } else {
            param.decl.replacen(&param.name, &slot, 1)
        };
        let _ = writeln!(out, "\t{decl};");
        names.push(slot.clone());
        if param.name.contains("_out_") {
            let _ = writeln!(out, "\tadd.u64 %wd5, %wd3, {};", results * RESULT_SLOT);
            let _ = writeln!(out, "\tst.param.u64 [{slot}], %wd5;");
            results += 1;
            continue;
        }
        let kernel_param = case
            .kernel
            .params
            .get(i)
            .ok_or_else(|| format!("{name}: parameter {i} is not the kernel's"))?;
        match (&case.args[i], offsets[i]) {
            (Arg::Pointer { region, offset }, _) => {
                match region {
                    Region::Global => {
                        let _ = writeln!(out, "\tadd.u64 %wd5, %wd0, {offset};");
                    }
                    Region::Shared => {
                        let _ = writeln!(out, "\tadd.u64 %wd5, %wd4, {offset};");
                        if kernel_param.ty == ValueType::Ptr(AddressSpace::Generic) {
                            out.push_str("\tcvta.shared.u64 %wd5, %wd5;\n");
                        }
                    }
                }
                let _ = writeln!(out, "\tst.param.u64 [{slot}], %wd5;");
            }
            (_, Some(at)) => {
                let ty = param.ty.as_str();
                if narrow {
                    let load = if ty == "u8" { "ld.u8" } else { "ld.b16" };
                    let _ = writeln!(
                        out,
                        "\t{load} %wh0, [%wd2+{at}];\n\tcvt.u32.u16 %wr0, %wh0;\n\tst.param.b32 [{slot}], %wr0;"
                    );
                } else if param.array {
                    let (bytes, lanes) = data_layout(kernel_param.ty);
                    for word in (0..bytes * lanes).step_by(4) {
                        let _ = writeln!(
                            out,
                            "\tld.u32 %wr0, [%wd2+{}];\n\tst.param.b32 [{slot}+{word}], %wr0;",
                            at + word
                        );
                    }
                } else if ty.ends_with("16") {
                    let _ = writeln!(
                        out,
                        "\tld.b16 %wh0, [%wd2+{at}];\n\tst.param.b16 [{slot}], %wh0;"
                    );
                } else if ty.ends_with("32") {
                    let kind = if ty == "u32" { "u32" } else { "b32" };
                    let _ = writeln!(
                        out,
                        "\tld.u32 %wr0, [%wd2+{at}];\n\tst.param.{kind} [{slot}], %wr0;"
                    );
                } else {
                    let kind = if ty == "u64" { "u64" } else { "b64" };
                    let _ = writeln!(
                        out,
                        "\tld.u64 %wd5, [%wd2+{at}];\n\tst.param.{kind} [{slot}], %wd5;"
                    );
                }
            }
            _ => return Err(format!("{name}: parameter {i} has no argument slot")),
        }
    }
    let _ = writeln!(out, "\tcall.uni {name}, ({});", names.join(", "));
    out.push_str("\t}\n");
    copy_loop(
        out,
        &format!("{w}_back"),
        "ld.shared.u64",
        "%wd4",
        "st.u64",
        "%wd1",
    );
    out.push_str("\tret;\n}\n\n");
    Ok(())
}

/// A loop copying the region 8 bytes at a time from `[from]` to `[to]` (registers `%wd5`–`%wd7`
/// and `%wp0` as scratch).
pub(super) fn copy_loop(
    out: &mut String,
    label: &str,
    load: &str,
    from: &str,
    store: &str,
    to: &str,
) {
    let _ = writeln!(
        out,
        "\tmov.u64 %wd6, 0;\n{label}:\n\tadd.u64 %wd5, {from}, %wd6;\n\t{load} %wd7, [%wd5];\n\
         \tadd.u64 %wd5, {to}, %wd6;\n\t{store} [%wd5], %wd7;\n\tadd.u64 %wd6, %wd6, 8;\n\
         \tsetp.lt.u64 %wp0, %wd6, {REGION_BYTES};\n\t@%wp0 bra {label};"
    );
}
