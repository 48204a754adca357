"""What the hand-written PTX timing scripts (`shared_native.py`, `lean_loop.py`) share: the
module header, the loop that runs one atomic's code `iters` times, the store of the folded old
values, the record of the device and one timed launch."""
import time

import cupy as cp

HEADER = ".version 8.8\n.target sm_90\n.address_size 64\n"

# The atomic's code runs `[iters]` times; it folds each old value into %rd20.
REPEAT = """  ld.param.u32 %r1, [iters];
  mov.u32 %r2, 0;
  mov.u64 %rd20, 0;
LOOP:
  {body}
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
"""

# The folded old values, to `olds[%r37]` (the thread's index in the grid), so none is dead.
STORE_OLDS = """  ld.param.u64 %rd33, [olds];
  cvta.to.global.u64 %rd33, %rd33;
  mul.wide.u32 %rd34, %r37, 8;
  add.u64 %rd33, %rd33, %rd34;
  st.global.u64 [%rd33], %rd20;
"""


def repeat(body):
    """The loop around one atomic's code."""
    return REPEAT.format(body=body)


def device_record(**fields):
    """The device, driver and date of a run, with `fields`, and no rows yet."""
    return {
        "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "driver": cp.cuda.runtime.driverGetVersion(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        **fields,
        "rows": [],
    }


def timed_ms(function, grid, block, args):
    """One launch of `function`, timed by CUDA events, in milliseconds."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    function(grid, block, args)
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end)
