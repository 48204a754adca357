"""A stand-in for the little of NumPy that harness.py uses, for its self-test on a machine
without a GPU (see cupy.py here). Not used on the device."""
uint8 = "uint8"
uint64 = "uint64"
uint32 = int


class ndarray:
    def __init__(self, data):
        self.data = bytearray(data)
        self.size = len(self.data)

    def copy(self):
        return ndarray(self.data)

    def fill(self, value):
        self.data[:] = bytes([value]) * len(self.data)

    def tobytes(self):
        return bytes(self.data)


def frombuffer(buffer, dtype=uint8):
    assert dtype == uint8
    return ndarray(buffer)
