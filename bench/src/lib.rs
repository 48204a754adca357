//! Benchmark helpers for atomir: generated kernels of any size, and an allocator that counts.

pub mod class_times;
pub mod fuzz;
pub mod sass;
pub mod targets;
pub mod tools;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, ElemType, Kernel, MemoryOrder, Module, Operand, Scope,
    ValueType, VectorShape,
};

/// The instruction mix of a generated kernel: what real kernels' atomics look like (histogram
/// adds, reductions, CAS, exchanges, ordered ops, a bounded ring index, float adds), all of them
/// lowered natively or with a rewrite on `ptx:sm_90`.
const MIX: &[(AtomicOp, ElemType, MemoryOrder, Scope, AddressSpace, bool)] = &[
    (
        AtomicOp::Add,
        ElemType::U32,
        MemoryOrder::Relaxed,
        Scope::Device,
        AddressSpace::Global,
        true,
    ),
    (
        AtomicOp::Add,
        ElemType::U32,
        MemoryOrder::Relaxed,
        Scope::Device,
        AddressSpace::Global,
        false,
    ),
    (
        AtomicOp::Add,
        ElemType::F32,
        MemoryOrder::Relaxed,
        Scope::Device,
        AddressSpace::Global,
        false,
    ),
    (
        AtomicOp::Cas,
        ElemType::B32,
        MemoryOrder::AcqRel,
        Scope::Device,
        AddressSpace::Global,
        true,
    ),
    (
        AtomicOp::Exch,
        ElemType::B64,
        MemoryOrder::Release,
        Scope::System,
        AddressSpace::Global,
        true,
    ),
    (
        AtomicOp::Max,
        ElemType::S32,
        MemoryOrder::Relaxed,
        Scope::Block,
        AddressSpace::Shared,
        true,
    ),
    (
        AtomicOp::Inc,
        ElemType::U32,
        MemoryOrder::Relaxed,
        Scope::Device,
        AddressSpace::Global,
        true,
    ),
    (
        AtomicOp::Add,
        ElemType::U64,
        MemoryOrder::SeqCst,
        Scope::Device,
        AddressSpace::Global,
        true,
    ),
];

/// A module with one kernel of `atomics` instructions cycling through a fixed mix.
pub fn generated_module(atomics: usize) -> Module {
    let mut kernel = Kernel::new("generated");
    let global = kernel.add_param("g", ValueType::Ptr(AddressSpace::Global));
    let shared = kernel.add_param("s", ValueType::Ptr(AddressSpace::Shared));
    let operand = |kernel: &mut Kernel, ty: ElemType| -> Operand {
        let name = format!("x_{ty}");
        let existing = kernel
            .params
            .iter()
            .find(|p| kernel.value_name(p.value) == name);
        match existing {
            Some(param) => param.value.into(),
            None => kernel.add_param(&name, ValueType::scalar(ty)).into(),
        }
    };
    let operands: Vec<(Operand, Option<Operand>)> = MIX
        .iter()
        .map(|&(op, ty, ..)| {
            let b = operand(&mut kernel, ty);
            let c = (op == AtomicOp::Cas).then(|| operand(&mut kernel, ty));
            (b, c)
        })
        .collect();
    let mut name = String::new();
    for i in 0..atomics {
        let slot = i % MIX.len();
        let (op, ty, order, scope, space, used) = MIX[slot];
        let addr = if space == AddressSpace::Shared {
            shared
        } else {
            global
        };
        let mut inst = AtomicInst::new(op, ty, addr, operands[slot].0);
        inst.new_value = operands[slot].1;
        inst.order = order;
        inst.scope = scope;
        inst.space = space;
        inst.shape = VectorShape::Scalar;
        let result = if used {
            name.clear();
            use std::fmt::Write;
            let _ = write!(name, "r{i}");
            Some(name.as_str())
        } else {
            None
        };
        kernel.push(inst, result);
    }
    Module {
        kernels: vec![kernel],
    }
}

/// The CPU time (user and system) of the child processes waited for so far: the cost of a
/// command, as [`thread_cpu_time`] is of work in process.
pub fn children_cpu_time() -> std::time::Duration {
    // SAFETY: an all-zero rusage is a valid value for the call to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid rusage for the call to fill; the target is a constant.
    let status = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    if status != 0 {
        return std::time::Duration::ZERO;
    }
    let seconds = |t: libc::timeval| {
        std::time::Duration::new(t.tv_sec as u64, 0)
            + std::time::Duration::from_micros(t.tv_usec as u64)
    };
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The CPU time the calling thread has used: unlike wall time, not inflated by other work that
/// shares the machine (the waiting is not counted; what remains is caches and frequency).
pub fn thread_cpu_time() -> std::time::Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to fill; the clock id is a constant.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if status != 0 {
        return std::time::Duration::ZERO;
    }
    std::time::Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// A global allocator that counts bytes allocated and the peak of live bytes. Register it in a
/// binary with `#[global_allocator] static ALLOC: CountingAlloc = CountingAlloc;`.
pub struct CountingAlloc;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc(layout);
        if !ptr.is_null() {
            record_alloc(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = System.realloc(ptr, layout, new_size);
        if !new.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            record_alloc(new_size);
        }
        new
    }
}

fn record_alloc(size: usize) {
    ALLOCATED.fetch_add(size, Ordering::Relaxed);
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

/// Counters since the last [`AllocSnapshot::take`].
#[derive(Clone, Copy, Debug)]
pub struct AllocSnapshot {
    allocated: usize,
    live: usize,
}

impl AllocSnapshot {
    /// Starts a measurement: resets the peak to the bytes live now.
    pub fn take() -> Self {
        let live = LIVE.load(Ordering::Relaxed);
        PEAK.store(live, Ordering::Relaxed);
        AllocSnapshot {
            allocated: ALLOCATED.load(Ordering::Relaxed),
            live,
        }
    }

    /// Bytes allocated since the snapshot (reallocations count their new size).
    pub fn allocated_since(&self) -> usize {
        ALLOCATED.load(Ordering::Relaxed) - self.allocated
    }

    /// The peak of live bytes since the snapshot, above what was live at it.
    pub fn peak_since(&self) -> usize {
        PEAK.load(Ordering::Relaxed).saturating_sub(self.live)
    }

    /// Live bytes now, above what was live at the snapshot.
    pub fn live_since(&self) -> usize {
        LIVE.load(Ordering::Relaxed).saturating_sub(self.live)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_module_has_the_requested_size() {
        let module = generated_module(1000);
        assert_eq!(module.kernels[0].insts.len(), 1000);
        let distinct_ops: std::collections::HashSet<_> =
            module.kernels[0].atomics().map(|(_, i)| i.op).collect();
        assert_eq!(distinct_ops.len(), 5);
    }
}
