//! The GPU harness's test entries (`tests/gpu/README.md`): every parameter of a kernel becomes
//! a pointer to one value per thread (thread `i` reads element `i`), and after the body every
//! result is stored to element `i` of one extra output-array parameter per result, in value
//! order, so that one launch runs many threads against few addresses.

use std::fmt::Write as _;

use atomir_ir::verify::Verified;
use atomir_ir::{AddressSpace, LowerError, LowerReport, ValueType};
use atomir_ptx::{EntryHook, EntryRegister, EntryRegisters, PtxTarget};

/// The [`EntryHook`] of per-thread test entries: the entry's thread index, global across the
/// grid, picks each value's and each result's element.
#[derive(Default)]
pub struct PerThread {
    /// The current entry's thread index (64-bit), made by its prologue.
    thread: Option<EntryRegister>,
}

impl EntryHook for PerThread {
    fn declare_param(&self, _index: usize, _ty: ValueType) -> Option<&'static str> {
        Some(".u64")
    }

    fn prologue(&mut self, registers: &mut EntryRegisters<'_, '_>, body: &mut String) {
        let (ctaid, ntid, tid) = (registers.b32(), registers.b32(), registers.b32());
        let index = registers.b64();
        let _ = writeln!(body, "\tmov.u32 {ctaid}, %ctaid.x;");
        let _ = writeln!(body, "\tmov.u32 {ntid}, %ntid.x;");
        let _ = writeln!(body, "\tmov.u32 {tid}, %tid.x;");
        let _ = writeln!(body, "\tmad.lo.u32 {tid}, {ctaid}, {ntid}, {tid};");
        let _ = writeln!(body, "\tcvt.u64.u32 {index}, {tid};");
        self.thread = Some(index);
    }

    fn param_address(
        &mut self,
        registers: &mut EntryRegisters<'_, '_>,
        param: &str,
        bytes: usize,
        body: &mut String,
    ) -> Option<EntryRegister> {
        let thread = self.thread?;
        let slot = registers.b64();
        let _ = writeln!(body, "\tld.param.u64 {slot}, [{param}];");
        let _ = writeln!(body, "\tmad.lo.u64 {slot}, {thread}, {bytes}, {slot};");
        Some(slot)
    }

    fn result_address(&mut self, address: EntryRegister, bytes: usize, body: &mut String) {
        if let Some(thread) = self.thread {
            let _ = writeln!(
                body,
                "\tmad.lo.u64 {address}, {thread}, {bytes}, {address};"
            );
        }
    }

    /// A value's pointer is the harness's: global or shared memory alike.
    fn generic_params_space(&self) -> AddressSpace {
        AddressSpace::Generic
    }
}

/// `module` as per-thread test entries for `target`.
pub fn lower_per_thread(
    target: &PtxTarget,
    module: &Verified<'_>,
    out: &mut String,
) -> Result<LowerReport, LowerError> {
    target.lower_entries_with(Box::new(PerThread::default()), module, out)
}
