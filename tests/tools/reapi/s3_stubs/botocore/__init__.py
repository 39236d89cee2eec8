"""A stand-in: tests/tools/reapi/s3_stubs/_fastcuda_s3_stub.py says why."""
from _fastcuda_s3_stub import stub as __getattr__  # noqa: F401
