"""A stand-in for CuPy, for the self-test of harness.py's `kernels` mode on a machine without a
GPU: a wrapper `atomir_case_wN` "runs" by writing the outcome that ATOMIR_MOCK_RESULTS (the
output of `gpu_cases kernels-simulate`) records for its case and target, and on a PTX target a
case listed in ATOMIR_MOCK_FAULTS faults the way a CUDA illegal address does (the context is then
unusable).
For harness.py's `litmus` mode, the `litmus` entry of a test "runs" by adding to the histogram
what ATOMIR_MOCK_LITMUS (the output of `gpu_cases litmus-simulate`) records for the test: the
outcome of running its threads one after the other, never a weak outcome of a real device.
Not used on the device."""
import json
import os

import numpy

uint8 = numpy.uint8
uint32 = "uint32"
uint64 = "uint64"
_ITEM_BYTES = {uint8: 1, uint32: 4, uint64: 8}
_poisoned = False
_expected = None


def _outcomes():
    global _expected
    if _expected is None:
        with open(os.environ["ATOMIR_MOCK_RESULTS"]) as f:
            results = json.load(f)
        _expected = {(t["target"], c["case"]): c for t in results["targets"] for c in t["cases"]}
    return _expected


def asarray(array):
    return numpy.ndarray(array.data)


def asnumpy(array):
    return numpy.ndarray(array.data)


def zeros(size, dtype=uint8):
    return numpy.ndarray(bytes(size * _ITEM_BYTES[dtype]))


class CUDARuntimeError(Exception):
    pass


class _Function:
    def __init__(self, target, name):
        self.target, self.case = target, "case" + name[len("atomir_case_w"):]

    def __call__(self, grid, block, args):
        global _poisoned
        if _poisoned:
            raise CUDARuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")
        faulting = os.environ.get("ATOMIR_MOCK_FAULTS", "").split(",")
        if self.target.startswith("ptx:") and self.case in faulting:
            _poisoned = True
            raise CUDARuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")
        memory, shared, _, result = args
        outcome = _outcomes()[(self.target, self.case)]
        memory.data[:] = bytes.fromhex(outcome["global"])
        shared.data[:] = bytes.fromhex(outcome["shared"])
        result.data[:] = bytes.fromhex(outcome["out"])


class _LitmusFunction:
    def __init__(self, test):
        self.test = test

    def __call__(self, grid, block, args):
        with open(os.environ["ATOMIR_MOCK_LITMUS"]) as f:
            simulated = {t["name"]: t for t in json.load(f)["tests"]}
        counts = simulated[self.test]["histogram"]
        histogram = args[4]
        for index, count in enumerate(counts):
            old = int.from_bytes(histogram.data[8 * index:8 * index + 8], "little")
            histogram.data[8 * index:8 * index + 8] = (old + count).to_bytes(8, "little")


class RawModule:
    def __init__(self, path):
        litmus = os.path.join(os.path.dirname(path), "litmus.json")
        if os.path.exists(litmus):
            with open(litmus) as f:
                spec = json.load(f)
            self.litmus = next(t["name"] for t in spec["tests"] if t["module"] == os.path.basename(path))
            return
        self.litmus = None
        with open(os.path.join(os.path.dirname(path), "kernels.json")) as f:
            spec = json.load(f)
        name = os.path.basename(path)
        self.target = next(t["target"] for t in spec["targets"] if t["module"] == name)

    def get_function(self, name):
        if self.litmus is not None:
            return _LitmusFunction(self.litmus)
        return _Function(self.target, name)


class _Runtime:
    @staticmethod
    def deviceSynchronize():
        pass

    @staticmethod
    def getDeviceProperties(index):
        # New enough for every target's code, as the semantics it stands in for is.
        return {"name": b"mock device (harness self-test)", "major": 12, "minor": 0,
                "multiProcessorCount": 4}

    @staticmethod
    def driverGetVersion():
        return 0


class cuda:
    runtime = _Runtime
