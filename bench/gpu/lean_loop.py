"""A lean CAS loop against llc 22's loop for the same atomic, on the GPU.

The SASS table counts the lean loop (one leading fence before the loop, one trailing fence after
it, relaxed accesses inside) as longer than llc's loop where llc's kernel ends at the loop:
ptxas puts a convergence barrier around a loop followed by a fence. llc's loop runs its
`fence.sc` on every attempt. This times both for a seq_cst usub_sat of u64 on global memory
(the table's cells `usub_sat_seq_cst_*_global_scalar_u64_*`, the PTX of each side as there),
every thread on one address or on 32, its old value used, and checks the final values exactly
(memory starts at 2^40, so no subtraction saturates).

    python3 bench/gpu/lean_loop.py OUT      # on the GPU machine (CuPy); writes OUT/lean.json
"""
import json
import statistics
import sys

import cupy as cp
import numpy as np

from ptx_timing import HEADER, STORE_OLDS, device_record, repeat, timed_ms


def kernel(name, body):
    return f"""
.visible .entry {name}(.param .u64 cells, .param .u64 olds, .param .u32 iters, .param .u32 nslots) {{
  .reg .pred %p<8>; .reg .b32 %r<40>; .reg .b64 %rd<40>;
  mov.u32 %r0, %tid.x;
  mov.u32 %r35, %ctaid.x;
  mov.u32 %r36, %ntid.x;
  mad.lo.u32 %r37, %r35, %r36, %r0;
  ld.param.u32 %r31, [nslots];
  rem.u32 %r32, %r37, %r31;
  mul.wide.u32 %rd32, %r32, 8;
  ld.param.u64 %rd1, [cells];
  cvta.to.global.u64 %rd1, %rd1;
  add.u64 %rd1, %rd1, %rd32;
  and.b32 %r34, %r37, 7;
  add.u32 %r34, %r34, 1;
  cvt.u64.u32 %rd10, %r34;
{repeat(body)}{STORE_OLDS}  ret;
}}"""


def lean(scope):
    return f"""fence.sc.{scope};
  ld.relaxed.{scope}.global.b64 %rd12, [%rd1];
L_{{n}}:
  setp.hs.u64 %p2, %rd12, %rd10;
  sub.u64 %rd13, %rd12, %rd10;
  selp.b64 %rd14, %rd13, 0, %p2;
  atom.relaxed.{scope}.global.cas.b64 %rd15, [%rd1], %rd12, %rd14;
  setp.eq.u64 %p3, %rd15, %rd12;
  mov.b64 %rd16, %rd12;
  mov.b64 %rd12, %rd15;
  @!%p3 bra L_{{n}};
  fence.acquire.{scope};
  xor.b64 %rd20, %rd20, %rd16;"""


def llc(scope):
    return f"""ld.relaxed.{scope}.global.b64 %rd12, [%rd1];
L_{{n}}:
  setp.ge.u64 %p2, %rd12, %rd10;
  sub.s64 %rd13, %rd12, %rd10;
  selp.b64 %rd14, %rd13, 0, %p2;
  fence.sc.{scope};
  atom.acquire.{scope}.global.cas.b64 %rd15, [%rd1], %rd12, %rd14;
  setp.ne.b64 %p3, %rd15, %rd12;
  mov.b64 %rd16, %rd12;
  mov.b64 %rd12, %rd15;
  @%p3 bra L_{{n}};
  xor.b64 %rd20, %rd20, %rd16;"""


src = HEADER
names = []
for scope in ("gpu", "sys"):
    for label, form in (("lean", lean), ("llc", llc)):
        name = f"usub_sat_seq_cst_{scope}_{label}"
        src += kernel(name, form(scope).replace("{n}", name))
        names.append(name)
open(sys.argv[1] + "/lean.ptx", "w").write(src)
module = cp.RawModule(path=sys.argv[1] + "/lean.ptx")
START = 1 << 40
res = device_record()
# (addresses, blocks, threads per block, atomics per thread)
for nslots, blocks, threads, iters in ((1, 132, 64, 2), (32, 132, 256, 4)):
    total = blocks * threads
    gtid = np.arange(total)
    expect = [START - int(((gtid[gtid % nslots == k] & 7) + 1).sum()) * iters for k in range(nslots)]
    cells = cp.zeros(nslots, dtype=cp.uint64)
    olds = cp.zeros(total, dtype=cp.uint64)
    for name in names:
        function = module.get_function(name)
        args = (cells, olds, cp.uint32(iters), cp.uint32(nslots))
        times, exact = [], True
        for _ in range(6):
            cells.fill(START)
            times.append(timed_ms(function, (blocks,), (threads,), args))
            exact = exact and [int(v) for v in cells.get()] == expect
        times = times[1:]
        row = {"addresses": nslots, "threads": total, "per_thread": iters, "case": name,
               "median_ms": statistics.median(times), "min_ms": min(times), "exact": exact}
        res["rows"].append(row)
        print(row, flush=True)
json.dump(res, open(sys.argv[1] + "/lean.json", "w"), indent=1)
