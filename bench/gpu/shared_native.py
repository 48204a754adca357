"""Native `atom` on shared memory against llc 22's CAS loop for the same atomic, on the GPU.

The SASS table counts these native forms as longer than llc's loops: ptxas expands an `atom`
on `.shared::cluster` (and a 64-bit add at system scope on `.shared`) into a sequence with a
fallback path. This times both, each thread of 2 blocks per SM (1024 threads) running 64
atomics on one address of its own CTA's shared memory (reached through `mapa.shared::cluster`)
or on 32 of them, its old values used. Our form is `atomir`'s native `atom`; llc's is the loop
its PTX has for the same node (`bench/sass-sm_90.md`'s cells). The final values of the f32 and
u64 adds are checked exactly (every partial sum is an integer below 2^24); the f16x2 sums
saturate, so they are timed only.

    python3 bench/gpu/shared_native.py OUT      # on the GPU machine (CuPy); writes OUT/dsm.json
"""
import json
import statistics
import sys

import cupy as cp
import numpy as np

from ptx_timing import HEADER, STORE_OLDS, device_record, repeat, timed_ms

def kernel(name, setup, body):
    return f"""
.visible .entry {name}(.param .u64 out, .param .u64 olds, .param .u32 iters, .param .u32 nslots) {{
  .shared .align 8 .b8 cell[256];
  .reg .pred %p<8>; .reg .b32 %r<40>; .reg .b64 %rd<40>; .reg .f32 %f<8>;
  mov.u32 %r0, %tid.x;
  setp.ge.u32 %p0, %r0, 32;
  @%p0 bra INIT_DONE;
  mul.wide.u32 %rd30, %r0, 8;
  mov.u64 %rd31, cell;
  add.u64 %rd31, %rd31, %rd30;
  st.shared.u64 [%rd31], 0;
INIT_DONE:
  bar.sync 0;
  ld.param.u32 %r31, [nslots];
  rem.u32 %r32, %r0, %r31;
  mul.wide.u32 %rd32, %r32, 8;
  mov.u64 %rd1, cell;
  add.u64 %rd1, %rd1, %rd32;
  mov.u32 %r33, %cluster_ctarank;
  mapa.shared::cluster.u64 %rd2, %rd1, %r33;
  and.b32 %r34, %r0, 7;
  add.u32 %r34, %r34, 1;
  {setup}
{repeat(body)}  bar.sync 0;
  mov.u32 %r35, %ctaid.x;
  mov.u32 %r36, %ntid.x;
  mad.lo.u32 %r37, %r35, %r36, %r0;
{STORE_OLDS}  setp.ge.u32 %p0, %r0, 32;
  @%p0 bra END;
  mul.wide.u32 %rd30, %r0, 8;
  mov.u64 %rd31, cell;
  add.u64 %rd31, %rd31, %rd30;
  ld.shared.u64 %rd35, [%rd31];
  ld.param.u64 %rd36, [out];
  cvta.to.global.u64 %rd36, %rd36;
  mul.wide.u32 %rd37, %r35, 256;
  add.u64 %rd36, %rd36, %rd37;
  add.u64 %rd36, %rd36, %rd30;
  st.global.u64 [%rd36], %rd35;
END:
  ret;
}}"""
# each body: atomic on [%rd2] (shared::cluster) or [%rd1] (shared::cta) with operand from %r34;
# folds the old value into %rd20 so that it is used.
def f32(scope, native):
    setup = "cvt.rn.f32.u32 %f1, %r34;"
    if native:
        body = f"atom.relaxed.{scope}.shared::cluster.add.f32 %f2, [%rd2], %f1;\n  mov.b32 %r10, %f2;\n  cvt.u64.u32 %rd21, %r10;\n  xor.b64 %rd20, %rd20, %rd21;"
    else:
        body = f"""ld.relaxed.{scope}.shared::cluster.b32 %r11, [%rd2];
L_{{n}}:
  mov.b32 %r12, %r11;
  mov.b32 %f3, %r12;
  add.rn.f32 %f4, %f3, %f1;
  mov.b32 %r13, %f4;
  setp.eq.b32 %p2, %r13, %r12;
  @%p2 bra X_{{n}};
  atom.relaxed.{scope}.shared::cluster.cas.b32 %r11, [%rd2], %r12, %r13;
  setp.ne.b32 %p3, %r11, %r12;
  @%p3 bra L_{{n}};
X_{{n}}:
  cvt.u64.u32 %rd21, %r12;
  xor.b64 %rd20, %rd20, %rd21;"""
    return setup, body
def f16x2(scope, native):
    setup = "{ .reg .b16 %h<4>;\n  cvt.rn.f16.u32 %h1, %r34;\n  mov.b16 %h2, 0;\n  mov.b32 %r14, {%h1, %h2};\n  }"
    if native:
        body = f"atom.relaxed.{scope}.shared::cluster.add.noftz.f16x2 %r10, [%rd2], %r14;\n  cvt.u64.u32 %rd21, %r10;\n  xor.b64 %rd20, %rd20, %rd21;"
    else:
        body = f"""ld.shared::cluster.b32 %r11, [%rd2];
L_{{n}}:
  mov.b32 %r12, %r11;
  add.rn.f16x2 %r13, %r12, %r14;
  atom.relaxed.{scope}.shared::cluster.cas.b32 %r11, [%rd2], %r12, %r13;
  setp.ne.b32 %p3, %r11, %r12;
  @%p3 bra L_{{n}};
  cvt.u64.u32 %rd21, %r12;
  xor.b64 %rd20, %rd20, %rd21;"""
    return setup, body
def u64(scope, native):
    setup = "cvt.u64.u32 %rd10, %r34;"
    if native:
        body = f"atom.relaxed.{scope}.shared::cta.add.u64 %rd11, [%rd1], %rd10;\n  xor.b64 %rd20, %rd20, %rd11;"
    else:
        body = f"""ld.relaxed.{scope}.shared.b64 %rd12, [%rd1];
L_{{n}}:
  mov.b64 %rd13, %rd12;
  add.s64 %rd14, %rd13, %rd10;
  atom.relaxed.{scope}.shared.cas.b64 %rd12, [%rd1], %rd13, %rd14;
  setp.ne.b64 %p3, %rd12, %rd13;
  @%p3 bra L_{{n}};
  xor.b64 %rd20, %rd20, %rd13;"""
    return setup, body
CASES = [("f32_sys", f32, "sys"), ("f32_gpu", f32, "gpu"), ("f16x2_gpu", f16x2, "gpu"), ("f16x2_sys", f16x2, "sys"), ("u64_sys", u64, "sys")]
src = HEADER; names = []
for label, fn, scope in CASES:
    for native in (True, False):
        name = f"{label}_{'native' if native else 'loop'}"
        setup, body = fn(scope, native)
        src += kernel(name, setup, body.replace("{n}", name))
        names.append((label, name))
open(sys.argv[1] + "/dsm.ptx", "w").write(src)
mod = cp.RawModule(path=sys.argv[1] + "/dsm.ptx")
BLOCKS, THREADS, ITERS = 132 * 2, 1024, 64
res = device_record(blocks=BLOCKS, threads=THREADS, iters=ITERS)
out = cp.zeros(BLOCKS * 32, dtype=cp.uint64)
olds = cp.zeros(BLOCKS * THREADS, dtype=cp.uint64)
for nslots in (1, 32):
    for label, name in names:
        f = mod.get_function(name)
        args = (out, olds, cp.uint32(ITERS), cp.uint32(nslots))
        f((BLOCKS,), (THREADS,), args); cp.cuda.runtime.deviceSynchronize()
        finals = out.get().reshape(BLOCKS, 32)[:, :nslots]
        times = []
        for _ in range(7):
            times.append(timed_ms(f, (BLOCKS,), (THREADS,), args))
        # expected per slot: sum over the threads of the slot of ((tid & 7) + 1) * ITERS
        tid = np.arange(THREADS)
        expect = [int((((tid[tid % nslots == k]) & 7) + 1).sum()) * ITERS for k in range(nslots)]
        if label.startswith("f32"):
            got = [float(np.array([v & 0xffffffff], dtype=np.uint32).view(np.float32)[0]) for v in finals[0]]
        elif label.startswith("u64"):
            got = [int(v) for v in finals[0]]
        else:
            got = None
        ok = None if got is None else got == expect and len({tuple(r) for r in finals.tolist()}) == 1
        row = {"slots": nslots, "case": name, "median_ms": statistics.median(times), "min_ms": min(times), "exact": ok}
        res["rows"].append(row); print(row, flush=True)
json.dump(res, open(sys.argv[1] + "/dsm.json", "w"), indent=1)
