//! Parser diagnostics: what was expected, at which line:col, and recovery to report several.

use atomir_ir::text::parse;

/// The diagnostics for `text`, each `line:col: error: message`.
fn errors(text: &str) -> Vec<String> {
    match parse(text) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

/// Parses a kernel with `%a: ptr.global, %x: u32` and the given body lines (line 2 onwards).
fn body_errors(body: &str) -> Vec<String> {
    errors(&format!("kernel k(%a: ptr.global, %x: u32) {{\n{body}}}\n"))
}

fn assert_error(got: Vec<String>, expected: &str) {
    assert_eq!(got, [expected.to_string()]);
}

#[test]
fn unknown_qualifier_names_its_kind_and_the_choices() {
    assert_error(
        body_errors("  atomic.add.acqrel.u32 [%a], %x\n"),
        "2:14: error: unknown memory order `acqrel`; expected one of relaxed, acquire, release, \
         acq_rel, seq_cst",
    );
    let got = body_errors("  atomic.add.sys.u32 [%a], %x\n");
    assert!(
        got[0].starts_with("2:14: error: unknown scope `sys`"),
        "{got:?}"
    );
    let got = body_errors("  atomic.add.global.u31 [%a], %x\n");
    assert!(
        got[0].starts_with("2:21: error: unknown element type `u31`"),
        "{got:?}"
    );
    let got = body_errors("  atomic.add.u32.evict_lots [%a], %x\n");
    assert!(
        got[0].starts_with("2:18: error: unknown cache hint `evict_lots`"),
        "{got:?}"
    );
    let got = body_errors("  atomic.add.zzzzzzzz.u32 [%a], %x\n");
    assert!(
        got[0].starts_with("2:14: error: unknown qualifier `zzzzzzzz`"),
        "{got:?}"
    );
    assert_error(
        body_errors("  atomic.plus.u32 [%a], %x\n"),
        "2:10: error: unknown atomic operation `plus`; expected one of add, sub, inc, dec, min, \
         max, and, or, xor, nand, exch, cas, usub_cond, usub_sat, fminimum, fmaximum, fminimumnum, \
         fmaximumnum, load, store",
    );
}

#[test]
fn qualifiers_out_of_order_or_repeated() {
    assert_error(
        body_errors("  atomic.add.global.relaxed.u32 [%a], %x\n"),
        "2:21: error: memory order `relaxed` must come before address space `global`; qualifiers \
         go in the order op, memory order, scope, space, shape, type, laxity, hint",
    );
    let got = body_errors("  atomic.add.u32.global [%a], %x\n");
    assert!(
        got[0]
            .starts_with("2:18: error: address space `global` must come before element type `u32`"),
        "{got:?}"
    );
    let got = body_errors("  atomic.add.evict_last.u32 [%a], %x\n");
    assert!(
        got[0].starts_with("2:25: error: element type `u32` must come before cache hint"),
        "{got:?}"
    );
    let got = body_errors("  atomic.add.v2.device.u32 [%a], %x\n");
    assert!(
        got[0].starts_with("2:17: error: scope `device` must come before vector shape `v2`"),
        "{got:?}"
    );
    assert_error(
        body_errors("  atomic.add.relaxed.acquire.u32 [%a], %x\n"),
        "2:22: error: second memory order `acquire`; the instruction already has `relaxed`",
    );
    assert_error(
        body_errors("  atomic.add.relaxed [%a], %x\n"),
        "2:21: error: expected an element type at the end of `atomic.add.relaxed`, e.g. \
         `atomic.add.relaxed.u32`",
    );
    assert_error(
        body_errors("  atomic.add.u32. [%a], %x\n"),
        "2:18: error: empty qualifier: `..` or a trailing `.`",
    );
}

#[test]
fn punctuation_says_what_was_expected() {
    assert_error(
        body_errors("  atomic.add.u32 [%a, %x\n"),
        "2:21: error: expected `]` after address, found `,`",
    );
    assert_error(
        body_errors("  atomic.add.u32 %a, %x\n"),
        "2:18: error: expected `[` before the address, found `%a`",
    );
    assert_error(
        body_errors("  atomic.add.u32 [%a] %x\n"),
        "2:23: error: expected `,` after the address, found `%x`",
    );
    assert_error(
        body_errors("  %r atomic.add.u32 [%a], %x\n"),
        "2:6: error: expected `=` after the result `%r`, found `atomic.add.u32`",
    );
    assert_error(
        body_errors("  atomic.add.u32 [%a], %x %x\n"),
        "2:27: error: expected end of line after the instruction, found `%x`",
    );
    let got = body_errors("  atomic.add.u32 [%a], %x, %x, %x\n");
    assert!(
        got[0]
            .starts_with("2:30: error: expected end of line: an atomic takes at most two operands"),
        "{got:?}"
    );
    assert_error(
        body_errors("  atomic.add.v2.u32 [%a], {%x, {%x}}\n"),
        "2:32: error: nested `{`: a vector operand is a flat list of scalars",
    );
    assert_error(
        body_errors("  atomic.add.v2.u32 [%a], {%x %x}\n"),
        "2:31: error: expected `,` or `}` in a vector operand, found `%x`",
    );
    assert_error(
        body_errors("  atomic.add.u32 [%a], {}\n"),
        "2:25: error: expected a vector element, found `}`",
    );
    assert_error(
        body_errors("  add.u32 [%a], %x\n"),
        "2:3: error: expected an instruction (`atomic.<op>…` or `fence.<order>.<scope>`), found \
         `add.u32`",
    );
    assert_error(
        body_errors("  atomic.add.u32 [%a], §\n"),
        "2:24: error: unexpected character `§`; expected an operand (`%name`, a literal or `{…}`)",
    );
}

#[test]
fn literals_are_checked_against_the_instruction_type() {
    assert_error(
        body_errors("  atomic.add.u8 [%a], 300\n"),
        "2:23: error: literal 300 does not fit u8 (range 0..=255)",
    );
    assert_error(
        body_errors("  atomic.add.u32 [%a], 1.5\n"),
        "2:24: error: float literal 1.5 is not valid for u32; float literals need a float type",
    );
    assert_error(
        body_errors("  atomic.add.u32 [%a], 12abc\n"),
        "2:24: error: malformed number `12abc`",
    );
    let got = body_errors("  atomic.add.f32 [%a], 1e39\n");
    assert_eq!(
        got,
        ["2:24: error: literal 1e39 does not fit f32 (overflows to infinity)"]
    );
}

#[test]
fn names_must_be_defined() {
    assert_error(
        body_errors("  atomic.add.u32 [%b], %x\n"),
        "2:19: error: undefined value `%b`",
    );
    assert_error(
        body_errors("  @%q atomic.add.u32 [%a], %x\n"),
        "2:4: error: undefined value `%q`",
    );
    assert_error(
        body_errors("  %r = atomic.add.u32 [%a], %r\n"),
        "2:29: error: undefined value `%r`",
    );
}

#[test]
fn kernel_structure() {
    assert_error(
        errors(""),
        "1:1: error: expected `kernel`, found end of input; a module holds one or more kernels",
    );
    assert_error(
        errors("# only a comment\n"),
        "2:1: error: expected `kernel`, found end of input; a module holds one or more kernels",
    );
    assert_error(
        errors("kernal k() {}\n"),
        "1:1: error: expected `kernel`, found `kernal`",
    );
    assert_error(
        errors("kernel k(%a: ptr.global) {\n  atomic.add.u32 [%a], 1\n"),
        "3:1: error: expected `}` to close kernel `k` (opened at 1:1), found end of input",
    );
    assert_error(
        errors("kernel k(%a: ptr.glob) {\n}\n"),
        "1:14: error: unknown address space `glob` in pointer type; expected one of generic, \
         global, shared, shared_cluster",
    );
    assert_error(errors("kernel k(%a: u31) {\n}\n"), "1:14: error: unknown type `u31`; expected pred, ptr.<space>, an element type (u32, f32, …) or a vector type (v4.f32)");
    assert_error(
        errors("kernel k(%a ptr.global) {\n}\n"),
        "1:13: error: expected `:` after the parameter name, found `ptr.global`",
    );
    assert_error(
        errors("kernel (%a: u32) {\n}\n"),
        "1:8: error: expected a kernel name after `kernel`, found `(`",
    );
    assert_error(
        errors("kernel k(%a: u32 {\n}\n"),
        "1:18: error: expected `,` or `)` after a parameter, found `{`",
    );
}

#[test]
fn recovery_reports_every_broken_line() {
    let got = errors(
        "kernel k(%a: ptr.global, %x: u32) {\n\
         \x20 atomic.add.u32 [%a], 300000000000\n\
         \x20 atomic.add.u32 [%a], %x\n\
         \x20 atomic.add.acqrel.u32 [%a], %x\n\
         \x20 atomic.add.u32 [%a, %x\n\
         kernel j(%a: ptr.global) {\n\
         \x20 atomic.add.u8 [%a], 256\n\
         }\n",
    );
    let locs: Vec<&str> = got
        .iter()
        .map(|e| e.split(": error").next().unwrap())
        .collect();
    assert_eq!(locs, ["2:24", "4:14", "5:21", "6:1", "7:23"], "{got:#?}");
}

#[test]
fn fences_take_an_order_and_a_scope_only() {
    assert_error(
        body_errors("  fence\n"),
        "2:8: error: expected a memory order after `fence.`: one of acquire, release, acq_rel, \
         seq_cst",
    );
    assert_error(
        body_errors("  fence.device\n"),
        "2:9: error: expected a memory order after `fence.`, found `device`; one of acquire, \
         release, acq_rel, seq_cst",
    );
    assert_error(
        body_errors("  fence.acq_rel.global\n"),
        "2:17: error: a fence takes a memory order and a scope only; expected a scope (block, \
         cluster, device, system), found `global`",
    );
    assert_error(
        body_errors("  fence.acq_rel.device.u32\n"),
        "2:24: error: a fence takes a memory order and a scope only; `u32` after the scope has no \
         meaning for a fence",
    );
    assert_error(
        body_errors("  %r = fence.seq_cst.system\n"),
        "2:3: error: a fence has no result; remove `%r =` (a fence reads and writes nothing)",
    );
    assert_error(
        errors("kernel k(%p: pred) {\n  @%p fence.seq_cst.system\n}\n"),
        "2:3: error: a fence takes no predicate; it has a memory order and a scope only",
    );
    assert_error(
        body_errors("  fence.seq_cst.system [%a]\n"),
        "2:24: error: expected end of line after the instruction, found `[`",
    );
    // The order is the parser's to read, the verifier's to judge: `relaxed` parses.
    assert_eq!(
        body_errors("  fence.relaxed.block\n  fence.release\n"),
        Vec::<String>::new()
    );
}

#[test]
fn a_load_without_operand_parses_and_other_ops_still_need_one() {
    assert_eq!(
        body_errors("  %v = atomic.load.acquire.u32 [%a]\n  atomic.store.u32 [%a], %x\n"),
        Vec::<String>::new()
    );
    assert_error(
        body_errors("  %v = atomic.add.u32 [%a]\n"),
        "2:27: error: expected `,` after the address, found end of line",
    );
}
