//! One test per verifier rule, each pinned to the line:col it reports.

mod text_common;

use text_common::DESIGN_EXAMPLE;

use atomir_ir::kernel::{AtomicInst, Kernel, Module, Operand, Scalar, Value};
use atomir_ir::matrix::{all_cells, lax_cells, AnyCell};
use atomir_ir::text::parse;
use atomir_ir::types::{AtomicOp, ElemType, ValueType, VectorShape};
use atomir_ir::verify::verify_kernel;
use atomir_ir::{AddressSpace, Diagnostic};

const HEADER: &str = "kernel k(%a: ptr.global, %x: u32, %f: f32, %w: u64, %p: pred, \
                      %s: ptr.shared, %g: ptr.generic, %v: v2.f32, %c: ptr.shared_cluster) {\n";

/// Verifier diagnostics for a kernel with the standard parameters and `body` (one instruction
/// per line, starting on line 2), rendered `line:col: error: message`.
fn errors_of(body: &str) -> Vec<String> {
    let text = format!("{HEADER}{body}}}\n");
    let module = parse(&text).unwrap_or_else(|errors| panic!("does not parse: {errors:?}"));
    match verify(&module) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(Diagnostic::to_string).collect(),
    }
}

/// Asserts exactly one diagnostic, at `loc`, whose message contains `needle`.
fn assert_one(body: &str, loc: &str, needle: &str) {
    let errors = errors_of(body);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let expected_prefix = format!("{loc}: error: ");
    assert!(errors[0].starts_with(&expected_prefix), "{errors:#?}");
    assert!(errors[0].contains(needle), "{errors:#?} lacks {needle:?}");
}

fn assert_clean(body: &str) {
    assert_eq!(errors_of(body), Vec::<String>::new());
}

#[test]
fn design_example_verifies() {
    assert_eq!(verify(&parse(DESIGN_EXAMPLE).unwrap()), Ok(()));
}

/// A float laxity only on the ops it is defined on, after the type and before the hint.
#[test]
fn float_laxity_rules() {
    assert_clean("  atomic.add.relaxed.device.global.f32.ftz.evict_last [%a], %f\n");
    assert_clean("  atomic.max.relaxed.device.global.v2.f32.ieee2008 [%a], %v\n");
    assert_one(
        "  atomic.max.relaxed.device.global.f32.ftz [%a], %f\n",
        "2:3",
        "cannot be `ftz`",
    );
    assert_one(
        "  atomic.add.relaxed.device.global.u32.ieee2008 [%a], %x\n",
        "2:3",
        "cannot be `ieee2008`",
    );
    let misplaced = parse(&format!(
        "{HEADER}  atomic.add.relaxed.device.global.ftz.f32 [%a], %f\n}}\n"
    ))
    .unwrap_err();
    assert!(
        misplaced[0]
            .to_string()
            .contains("must come before float laxity"),
        "{misplaced:?}"
    );
}

#[test]
fn every_matrix_cell_verifies() {
    let mut count = 0;
    for cell in all_cells().chain(lax_cells().map(AnyCell::Access)) {
        let kernel = cell.kernel();
        assert_eq!(verify_kernel(&kernel), Ok(()), "{cell}");
        count += 1;
    }
    assert!(count > 10_000);
}

#[test]
fn redefined_value() {
    assert_one(
        "  %r = atomic.add.global.u32 [%a], %x\n  @%p %r = atomic.add.global.u32 [%a], %x\n",
        "3:7",
        "value `%r` is already defined at 2:3",
    );
    assert_one(
        "  %x = atomic.add.global.u32 [%a], %x\n",
        "2:3",
        "`%x` is already defined at 1:26",
    );
}

#[test]
fn duplicate_parameter() {
    let module = parse("kernel k(%a: ptr.global, %a: u32) {\n}\n").unwrap();
    let errors = verify(&module).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(
        errors[0].to_string(),
        "1:26: error: parameter `%a` is already defined at 1:10; each value is defined once"
    );
}

#[test]
fn duplicate_kernel_name() {
    let module = parse("kernel k() {\n}\nkernel k() {\n}\n").unwrap();
    let errors = verify(&module).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(
        errors[0].to_string(),
        "3:1: error: kernel `k` is already defined at 1:1"
    );
}

#[test]
fn undefined_value_in_text_is_a_parse_error() {
    let text = format!("{HEADER}  atomic.add.global.u32 [%a], %nope\n}}\n");
    let errors = parse(&text).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(
        errors[0].to_string(),
        "2:31: error: undefined value `%nope`"
    );
}

#[test]
fn undefined_and_late_values_in_built_kernels() {
    let mut kernel = Kernel::new("built");
    let a = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
    let x = kernel.add_param("x", ValueType::scalar(ElemType::U32));
    // The second instruction's result: defined after the first instruction uses it.
    let late = Value::from_u32(3);
    kernel.push(
        AtomicInst::new(AtomicOp::Add, ElemType::U32, a, late.into()),
        Some("r0"),
    );
    kernel.push(
        AtomicInst::new(AtomicOp::Add, ElemType::U32, a, x.into()),
        Some("r1"),
    );
    let missing = Value::from_u32(99);
    kernel.push(
        AtomicInst::new(AtomicOp::Add, ElemType::U32, missing, x.into()),
        None,
    );
    let errors = verify_kernel(&kernel).unwrap_err();
    let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "operand `%r1` is used before it is defined (kernel `built`, instruction 0)",
            "address refers to value v99, which does not exist (kernel `built`, instruction 2)",
        ]
    );
}

#[test]
fn operand_count() {
    assert_one(
        "  atomic.cas.global.b32 [%a], %x\n",
        "2:3",
        "takes two operands",
    );
    assert_one(
        "  atomic.add.global.u32 [%a], %x, %x\n",
        "2:3",
        "takes one operand; found two",
    );
    assert_clean("  atomic.cas.global.b32 [%a], %x, 7\n");
}

#[test]
fn operand_type_must_match_exactly() {
    assert_one(
        "  atomic.add.global.u32 [%a], %f\n",
        "2:3",
        "operand `%f` has type f32",
    );
    assert_one("  atomic.add.global.u64 [%a], %x\n", "2:3", "needs u64");
    assert_one(
        "  atomic.cas.global.u32 [%a], %x, %f\n",
        "2:3",
        "new value `%f` has type f32",
    );
    assert_one(
        "  atomic.cas.global.u32 [%a], %f, %x\n",
        "2:3",
        "expected value `%f`",
    );
}

#[test]
fn untyped_bits_accept_any_value_of_their_width() {
    assert_clean("  atomic.exch.global.b32 [%a], %f\n  atomic.cas.global.b32 [%a], %x, %f\n");
    assert_clean("  atomic.and.global.b64 [%a], %w\n");
    assert_one(
        "  atomic.exch.global.b32 [%a], %w\n",
        "2:3",
        "needs a 32-bit value",
    );
}

#[test]
fn vector_operands_match_the_shape() {
    assert_clean(
        "  atomic.add.global.v2.f32 [%a], %v\n  atomic.add.global.v2.f32 [%a], {%f, 1.5}\n",
    );
    assert_one(
        "  atomic.add.global.v4.f32 [%a], {%f, %f}\n",
        "2:3",
        "has 2 elements; atomic.add.v4.f32 needs 4",
    );
    assert_one(
        "  atomic.add.global.v2.f32 [%a], %f\n",
        "2:3",
        "operand `%f` has type f32",
    );
    assert_one(
        "  atomic.add.global.v4.f32 [%a], %v\n",
        "2:3",
        "operand `%v` has type v2.f32",
    );
    assert_one(
        "  atomic.add.global.u32 [%a], {%x, %x}\n",
        "2:3",
        "brace list of 2",
    );
    assert_one(
        "  atomic.add.global.v2.f32 [%a], 1.5\n",
        "2:3",
        "single literal",
    );
    assert_one(
        "  atomic.add.global.v2.f32 [%a], {%f, %x}\n",
        "2:3",
        "operand element 1 `%x` has type u32",
    );
}

#[test]
fn op_must_make_sense_on_the_type() {
    assert_one(
        "  atomic.and.global.f32 [%a], %f\n",
        "2:3",
        "`and` is bitwise and not meaningful on float type f32",
    );
    assert_one(
        "  atomic.inc.global.s32 [%a], 1\n",
        "2:3",
        "unsigned types only, not s32",
    );
    assert_one(
        "  atomic.dec.global.f32 [%a], %f\n",
        "2:3",
        "unsigned types only, not f32",
    );
    assert_one(
        "  atomic.add.global.b32 [%a], %x\n",
        "2:3",
        "b32 is untyped bits",
    );
    assert_one("  atomic.max.global.b16 [%a], 1\n", "2:3", "untyped bits");
    assert_one(
        "  atomic.xor.global.b128 [%a], 1\n",
        "2:3",
        "up to 64 bits, not b128",
    );
    assert_clean("  atomic.exch.global.b128 [%a], 1\n  atomic.cas.global.b16 [%a], 1, 2\n");
}

#[test]
fn predicate_must_be_pred() {
    assert_one(
        "  @%x atomic.add.global.u32 [%a], %x\n",
        "2:3",
        "predicate `%x` has type u32; a guard must be `pred`",
    );
    assert_clean("  @!%p atomic.add.global.u32 [%a], %x\n");
}

#[test]
fn address_must_be_a_pointer() {
    assert_one(
        "  atomic.add.global.u32 [%x], %x\n",
        "2:3",
        "address `%x` has type u32; atomic.add.u32 needs a pointer",
    );
}

#[test]
fn pointer_space_agrees_with_the_instruction() {
    assert_one(
        "  atomic.add.global.u32 [%s], %x\n",
        "2:3",
        "points into shared memory (ptr.shared) but the instruction accesses global",
    );
    assert_one(
        "  atomic.add.shared.u32 [%c], %x\n",
        "2:3",
        "points into shared_cluster memory",
    );
    assert_one(
        "  atomic.add.shared.u32 [%g], %x\n",
        "2:3",
        "use the generic instruction",
    );
    assert_clean(
        "  atomic.add.generic.u32 [%a], %x\n  atomic.add.generic.u32 [%s], %x\n  \
         atomic.add.shared_cluster.u32 [%s], %x\n  atomic.add.shared_cluster.u32 [%c], %x\n  \
         atomic.add.u32 [%g], %x\n",
    );
}

/// A cache hint is a performance hint: valid on every access (the targets print it where they
/// have a form for it and record that they left it out elsewhere).
#[test]
fn cache_hint_is_valid_on_every_space() {
    assert_clean(
        "  atomic.add.global.u32.evict_last [%a], %x\n  atomic.add.u32.evict_normal [%g], %x\n  \
         atomic.add.shared.u32.evict_first [%s], %x\n  \
         atomic.add.shared_cluster.u32.no_allocate [%c], %x\n",
    );
}

#[test]
fn result_has_the_instruction_type() {
    let text = format!("{HEADER}  %r = atomic.add.global.v2.f32 [%a], %v\n}}\n");
    let mut module: Module = parse(&text).unwrap();
    assert_eq!(verify(&module), Ok(()));
    let kernel = &mut module.kernels[0];
    let result = kernel.insts.values().next().unwrap().result().unwrap();
    kernel.values[result].ty = ValueType::scalar(ElemType::F32);
    let errors = verify(&module).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(
        errors[0].to_string(),
        "2:3: error: result `%r` has type f32; atomic.add.v2.f32 returns v2.f32"
    );
}

#[test]
fn literal_constants_fit_their_type_in_built_kernels() {
    let mut kernel = Kernel::new("wide");
    let a = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
    let big = kernel.constant(0x1_0000);
    kernel.push(
        AtomicInst::new(AtomicOp::Exch, ElemType::B16, a, big.into()),
        None,
    );
    let mut vector = AtomicInst::new(
        AtomicOp::Exch,
        ElemType::U8,
        a,
        Operand::Scalar(Scalar::Const(big)),
    );
    vector.shape = VectorShape::V2;
    vector.operand = Some(kernel.vector(&[Scalar::Const(big), Scalar::Const(big)]));
    kernel.push(vector, None);
    let errors = verify_kernel(&kernel).unwrap_err();
    let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert!(messages[0].starts_with("operand: literal 0x10000 does not fit b16"));
    assert!(messages[1].starts_with("operand element 0: literal 0x10000 does not fit u8"));
    assert!(messages[2].starts_with("operand element 1: literal 0x10000 does not fit u8"));
}

#[test]
fn every_violation_is_reported_with_its_position() {
    let errors = errors_of(
        "  atomic.and.global.f32 [%a], %f\n\
         \x20 atomic.add.global.u32 [%s], %f\n\
         \x20 atomic.add.global.u32 [%a], %x\n\
         \x20   @%x atomic.inc.shared.u32.evict_last [%a], %x\n",
    );
    let locs: Vec<&str> = errors
        .iter()
        .map(|e| e.split(": error").next().unwrap())
        .collect();
    assert_eq!(locs, ["2:3", "3:3", "3:3", "5:5", "5:5"], "{errors:#?}");
}

#[test]
fn loads_and_stores_take_their_orders_only() {
    assert_clean(
        "  %r = atomic.load.relaxed.global.u32 [%a]\n  %q = atomic.load.acquire.block.u32 [%a]\n\
         \x20 %t = atomic.load.seq_cst.system.global.v2.f32 [%a]\n\
         \x20 atomic.store.release.global.u32 [%a], %x\n  atomic.store.seq_cst.global.v2.f32 [%a], %v\n\
         \x20 @%p atomic.store.relaxed.global.u64.evict_last [%a], %w\n",
    );
    assert_one(
        "  %r = atomic.load.release.global.u32 [%a]\n",
        "2:3",
        "atomic.load.u32 cannot be release: a load has no release part; expected relaxed, \
         acquire or seq_cst",
    );
    assert_one(
        "  %r = atomic.load.acq_rel.global.u32 [%a]\n",
        "2:3",
        "cannot be acq_rel",
    );
    assert_one(
        "  atomic.store.acquire.global.u32 [%a], %x\n",
        "2:3",
        "atomic.store.u32 cannot be acquire: a store has no acquire part; expected relaxed, \
         release or seq_cst",
    );
    assert_one(
        "  atomic.store.acq_rel.global.u32 [%a], %x\n",
        "2:3",
        "cannot be acq_rel",
    );
}

#[test]
fn a_load_has_a_result_and_no_operand_a_store_one_operand_and_no_result() {
    assert_one(
        "  %r = atomic.load.global.u32 [%a], %x\n",
        "2:3",
        "atomic.load.u32 takes no operand (a load only reads); found one",
    );
    assert_one(
        "  atomic.load.acquire.global.u32 [%a]\n",
        "2:3",
        "atomic.load.u32 returns the value it reads and needs a result",
    );
    assert_one(
        "  %r = atomic.store.global.u32 [%a], %x\n",
        "2:3",
        "atomic.store.u32 returns nothing; remove the result `%r =`",
    );
    assert_one(
        "  atomic.store.global.u32 [%a], %x, %x\n",
        "2:3",
        "atomic.store.u32 takes one operand, the value stored; found two",
    );
    assert_one(
        "  atomic.store.global.u32 [%a], %f\n",
        "2:3",
        "value stored `%f` has type f32; atomic.store.u32 needs u32",
    );
}

#[test]
fn a_fence_orders_something() {
    assert_clean(
        "  fence.acquire.block\n  fence.release.cluster\n  fence.acq_rel\n  fence.seq_cst.system\n",
    );
    assert_one(
        "  atomic.add.global.u32 [%a], %x\n  fence.relaxed.device\n",
        "3:3",
        "fence.relaxed.device: a relaxed fence orders nothing; expected acquire, release, acq_rel \
         or seq_cst",
    );
}

#[test]
fn new_rmw_ops_take_their_types() {
    assert_clean(
        "  %r = atomic.usub_cond.global.u32 [%a], %x\n  atomic.usub_sat.global.u64 [%a], %w\n\
         \x20 %m = atomic.fminimum.global.f32 [%a], %f\n  atomic.fmaximumnum.global.v2.f32 [%a], %v\n",
    );
    assert_one(
        "  atomic.usub_sat.global.f32 [%a], %f\n",
        "2:3",
        "atomic.usub_sat.f32: `usub_sat` is an unsigned subtraction defined on unsigned types only",
    );
    assert_one(
        "  atomic.fmaximum.global.u32 [%a], %x\n",
        "2:3",
        "atomic.fmaximum.u32: `fmaximum` is defined on float types only",
    );
}

#[test]
fn a_numeric_op_on_bits_suggests_types_that_exist() {
    let text = "kernel k(%a: ptr.global, %b: b128, %h: b16) {\n  atomic.min.b128 [%a], %b\n  \
                atomic.add.b16 [%a], %h\n}\n";
    let errors: Vec<String> = verify(&parse(text).unwrap())
        .unwrap_err()
        .iter()
        .map(Diagnostic::to_string)
        .collect();
    assert_eq!(
        errors,
        [
            "2:3: error: atomic.min.b128: `min` needs a numeric type, and b128 is untyped bits; no \
             numeric type is 128 bits wide (a b128 access takes exch, cas, load and store)",
            "3:3: error: atomic.add.b16: `add` needs a numeric type, and b16 is untyped bits; use \
             u16, s16, f16 or bf16",
        ]
    );
}

/// The verifier's answer without the proof, to compare with `Ok(())`.
fn verify(module: &atomir_ir::Module) -> Result<(), Vec<atomir_ir::Diagnostic>> {
    atomir_ir::verify::verify(module).map(|_| ())
}
