// Atomic functions on shared memory.
#include "corpus.h"

KS(shared_add_i32, "add.relaxed.device.i32", int, atomicAdd(&s[i % 64], v))
KS(shared_add_f32_block, "add.relaxed.block.f32", float, atomicAdd_block(&s[i % 64], v))
KS(shared_max_u32, "max.relaxed.device.u32", unsigned, atomicMax(&s[i % 64], v))
KS(shared_cas_u16, "cas.relaxed.device.i16", unsigned short, atomicCAS(&s[i % 64], v, w))
KS(shared_exch_u64, "exch.relaxed.device.i64", unsigned long long, atomicExch(&s[i % 64], v))
KS(shared_ref_add, "add.acq_rel.block.i32", int, (cuda::atomic_ref<int, cuda::thread_scope_block>(s[i % 64]).fetch_add(v, cuda::memory_order_acq_rel)))
