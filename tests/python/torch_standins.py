"""Stand-ins for the torch objects the package's CPU tests hand it (dtype, device), shared by
test_package_cpu.py and test_bf16_cpu.py. Imported from the tests' own directory, which Python
puts on sys.path for a script."""


class Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"

    __repr__ = __str__


class Device:
    def __init__(self, kind="cuda", index=0):
        self.type = kind
        self.index = index

    def __eq__(self, other):
        return (self.type, self.index) == (other.type, other.index)

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"
