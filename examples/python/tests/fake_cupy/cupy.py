"""A stand-in for CuPy on a machine without a GPU, for the test of `run_gpu.py`'s plumbing
(arguments, dtypes, the checks, the JSON record): a kernel "runs" as what it means, computed
sequentially with numpy, after its PTX module is checked to define the entry. Setting
FAKE_CUPY_WRONG=<kernel> makes that kernel's result off by one, so a test can see the check
fail. Not used on the device."""

import os

import numpy

uint32, float32, float16 = numpy.uint32, numpy.float32, numpy.float16
__version__ = "fake"


def zeros(size, dtype):
    return numpy.zeros(size, dtype=dtype)


def full(size, value, dtype):
    return numpy.full(size, value, dtype=dtype)


def asarray(array):
    return numpy.array(array)


def asnumpy(array):
    return numpy.array(array)


def _histogram256(grid, block, data, n, bins):
    bins += numpy.bincount(data[:n], minlength=256).astype(numpy.uint32)


def _max_reduce(grid, block, x, n, out):
    out[0] = max(out[0], x[:n].max())


def _grad_accumulate(grid, block, g, n, slots, grad):
    for i in range(int(n)):
        grad[i % slots] += g[i]


def _ticket_lock(grid, block, next_ticket, now_serving, counter, order):
    for _ in range(grid[0]):
        ticket = int(next_ticket[0])
        next_ticket[0] += 1
        counter[0] += 1
        order[ticket] = counter[0]
        now_serving[0] = ticket + 1


class _Function:
    def __init__(self, name):
        self.name = name

    def __call__(self, grid, block, args):
        globals()["_" + self.name](grid, block, *args)
        if os.environ.get("FAKE_CUPY_WRONG") == self.name:
            args[-1][0] += 1


class RawModule:
    def __init__(self, path):
        with open(path) as f:
            self.ptx = f.read()

    def get_function(self, name):
        if f".visible .entry {name}(" not in self.ptx:
            raise RuntimeError(f"CUDA_ERROR_NOT_FOUND: no entry {name}")
        return _Function(name)


class _Runtime:
    @staticmethod
    def getDeviceProperties(index):
        return {"name": b"fake device (no GPU)", "major": 0, "minor": 0}

    @staticmethod
    def driverGetVersion():
        return 0

    @staticmethod
    def runtimeGetVersion():
        return 0

    @staticmethod
    def deviceSynchronize():
        pass


class cuda:
    runtime = _Runtime
