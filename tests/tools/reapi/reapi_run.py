#!/usr/bin/env python3
"""A test tool, not part of FastCuda: FastCuda's FASTCUDA_DEVICE_LAUNCHER that
runs one device step (cicc, ptxas, fatbinary) on a remote REAPI v2 server
(Execution API, action cache on), with gRPC and the protocol's messages as
BuildGrid ships them (its client library takes 0.7 s to import, a step).
tests/integration/reapi_steps.sh runs it.

usage: reapi_run.py --remote URL|HOST:PORT [--instance NAME]
                    [--connect-timeout S] [--timeout S] [--log FILE] [-v] [--] CMD ARGS...

The step's files are those FastCuda names, relative to the working directory,
one a line: FASTCUDA_STEP_INPUTS are uploaded, FASTCUDA_STEP_OUTPUTS come back.
The remote command gets PATH only (a fixed environment keeps the action's key
stable). The remote stdout and stderr are written to this process's; the exit
status is the remote one, or 125 where the server could not run the step.
Declared outputs are removed first and written (under a temporary name, then
renamed) only after the step succeeded, so that none is partial or stale.
--connect-timeout (20 s) bounds reaching the server, --timeout (3600 s) the
wait for a result (a lost bot's step is requeued by the server meanwhile).
HOST:PORT means http://HOST:PORT.
--log FILE (or REAPI_RUN_LOG=FILE) appends `cached=True|False OUTPUT` a call;
FASTCUDA_STEP_CACHE_RESULT, where FastCuda gives it, gets "hit" or "miss".
"""
import hashlib
import os
import sys
import time
import uuid

import grpc
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc
from buildgrid._protos.google.bytestream import bytestream_pb2, bytestream_pb2_grpc
from buildgrid._protos.google.longrunning import operations_pb2, operations_pb2_grpc

RPC_S = 60  # any one CAS call
BATCH = 1 << 20  # larger blobs go through ByteStream, smaller ones in batches up to this


class Failure(Exception):
    pass


def parse(argv):
    opts = {"--remote": None, "--instance": "", "--connect-timeout": "20", "--timeout": "3600",
            "--log": os.environ.get("REAPI_RUN_LOG"), "-v": False}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if arg == "-v":
            opts["-v"] = True
        elif arg in opts and i + 1 < len(argv):
            opts[arg] = argv[i + 1]
            i += 1
        else:
            raise Failure(f"unknown option or missing value: {arg}")
        i += 1
    if not opts["--remote"] or i == len(argv):
        raise Failure("usage: reapi_run.py --remote URL [options] [--] CMD ARGS...")
    if "://" not in opts["--remote"]:
        opts["--remote"] = "http://" + opts["--remote"]
    return opts, argv[i:]


def step_paths(name, required):
    value = os.environ.get(name)
    if value is None and required:
        raise Failure(f"{name} is not set: run me as FastCuda's FASTCUDA_DEVICE_LAUNCHER")
    paths = [p for p in (value or "").split("\n") if p]
    for p in paths:
        if os.path.isabs(p) or os.path.normpath(p).startswith(".."):
            raise Failure(f"{name} names {p!r}, which is not below the working directory")
    return paths


def digest_of(data):
    return re_pb2.Digest(hash=hashlib.sha256(data).hexdigest(), size_bytes=len(data))


class Cas:
    def __init__(self, channel, instance):
        self.instance = instance
        self.cas = re_grpc.ContentAddressableStorageStub(channel)
        self.bytestream = bytestream_pb2_grpc.ByteStreamStub(channel)
        self.blobs = {}  # hash: data, to upload

    def add(self, data):
        digest = digest_of(data)
        self.blobs[digest.hash] = data
        return digest

    def upload(self):
        missing = self.cas.FindMissingBlobs(re_pb2.FindMissingBlobsRequest(
            instance_name=self.instance, blob_digests=[digest_of(b) for b in self.blobs.values()]),
            timeout=RPC_S).missing_blob_digests
        batch, size = [], 0
        for digest in missing:
            data = self.blobs[digest.hash]
            if len(data) > BATCH:
                self.write(digest, data)
                continue
            if size + len(data) > BATCH:
                self.update(batch)
                batch, size = [], 0
            batch.append(re_pb2.BatchUpdateBlobsRequest.Request(digest=digest, data=data))
            size += len(data)
        self.update(batch)

    def update(self, batch):
        if batch:
            for r in self.cas.BatchUpdateBlobs(re_pb2.BatchUpdateBlobsRequest(
                    instance_name=self.instance, requests=batch), timeout=RPC_S).responses:
                if r.status.code != 0:
                    raise Failure(f"CAS upload of {r.digest.hash}: {r.status.message}")

    def write(self, digest, data):
        name = "/".join(filter(None, [self.instance, "uploads", str(uuid.uuid4()), "blobs",
                                      digest.hash, str(digest.size_bytes)]))
        chunks = [bytestream_pb2.WriteRequest(resource_name=name, write_offset=at, data=data[at:at + BATCH],
                                              finish_write=at + BATCH >= len(data))
                  for at in range(0, len(data), BATCH)]
        self.bytestream.Write(iter(chunks), timeout=RPC_S)

    def read(self, digest):
        if digest.size_bytes == 0:
            return b""
        if digest.size_bytes <= BATCH:
            r = self.cas.BatchReadBlobs(re_pb2.BatchReadBlobsRequest(
                instance_name=self.instance, digests=[digest]), timeout=RPC_S).responses[0]
            if r.status.code != 0:
                raise Failure(f"CAS download of {digest.hash}: {r.status.message}")
            return r.data
        name = "/".join(filter(None, [self.instance, "blobs", digest.hash, str(digest.size_bytes)]))
        return b"".join(r.data for r in self.bytestream.Read(
            bytestream_pb2.ReadRequest(resource_name=name), timeout=RPC_S))


def input_root(cas, inputs):
    tree = {}  # name: dict (a directory) or (digest, executable) (a file)
    for path in inputs:
        *dirs, name = os.path.normpath(path).split(os.sep)
        node = tree
        for d in dirs:
            node = node.setdefault(d, {})
        with open(path, "rb") as f:
            node[name] = (cas.add(f.read()), os.access(path, os.X_OK))

    def put(node):
        directory = re_pb2.Directory()
        for name in sorted(node):
            if isinstance(node[name], dict):
                directory.directories.add(name=name, digest=put(node[name]))
            else:
                directory.files.add(name=name, digest=node[name][0], is_executable=node[name][1])
        return cas.add(directory.SerializeToString())
    return put(tree)


def execute(channel, opts, action_digest):
    """The ExecuteResponse, waiting at most --timeout seconds."""
    stub = re_grpc.ExecutionStub(channel)
    deadline = time.monotonic() + float(opts["--timeout"])
    request = re_pb2.ExecuteRequest(instance_name=opts["--instance"], action_digest=action_digest)
    op = None
    try:
        while op is None or not op.done:  # a stream may end early: wait on
            left = deadline - time.monotonic()
            stream = (stub.Execute(request, timeout=left) if op is None else
                      stub.WaitExecution(re_pb2.WaitExecutionRequest(name=op.name), timeout=left))
            for op in stream:
                if op.done:
                    break
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
            raise Failure(f"{opts['--remote']}: {e.code().name}: {e.details()}")
        if op is not None:  # no bot will run it for us: leave no job behind
            try:
                operations_pb2_grpc.OperationsStub(channel).CancelOperation(
                    operations_pb2.CancelOperationRequest(name=op.name), timeout=5)
            except grpc.RpcError:
                pass
        raise Failure(f"no result from {opts['--remote']} within {opts['--timeout']} s (no bot running?)")
    if op.HasField("error"):
        raise Failure(f"{opts['--remote']}: {op.error.message}")
    response = re_pb2.ExecuteResponse()
    op.response.Unpack(response)
    if response.status.code != 0:
        raise Failure(f"{opts['--remote']}: status {response.status.code}: {response.status.message}")
    return response


def write_outputs(cas, result):
    """All of them under temporary names first, then renamed."""
    temporaries = []
    try:
        for f in result.output_files:
            os.makedirs(os.path.dirname(f.path) or ".", exist_ok=True)
            temporaries.append((os.path.join(os.path.dirname(f.path),
                                             f".{os.path.basename(f.path)}.reapi-{os.getpid()}"), f.path))
            with open(temporaries[-1][0], "wb") as out:
                out.write(cas.read(f.digest))
            os.chmod(temporaries[-1][0], 0o755 if f.is_executable else 0o644)
    except BaseException:
        for temporary, _ in temporaries:
            if os.path.exists(temporary):
                os.unlink(temporary)
        raise
    for temporary, path in temporaries:
        os.replace(temporary, path)


def run(opts, cmd):
    inputs = step_paths("FASTCUDA_STEP_INPUTS", True)
    outputs = step_paths("FASTCUDA_STEP_OUTPUTS", False)
    for path in outputs:  # a failure below must not leave an earlier build's output
        if os.path.lexists(path):
            os.unlink(path)
    remote = opts["--remote"]
    channel = grpc.insecure_channel(remote.split("://", 1)[1])
    try:
        grpc.channel_ready_future(channel).result(timeout=float(opts["--connect-timeout"]))
    except grpc.FutureTimeoutError:
        raise Failure(f"cannot reach the REAPI server {remote} within {opts['--connect-timeout']} s")
    cas = Cas(channel, opts["--instance"])
    command = re_pb2.Command(arguments=cmd, output_paths=sorted(outputs))
    command.environment_variables.add(name="PATH", value=os.environ.get("PATH", "/usr/bin:/bin"))
    action = re_pb2.Action(command_digest=cas.add(command.SerializeToString()), input_root_digest=input_root(cas, inputs))
    action_digest = cas.add(action.SerializeToString())
    try:
        cas.upload()
        response = execute(channel, opts, action_digest)
        result = response.result
        if result.exit_code == 0:
            write_outputs(cas, result)
        stdout = result.stdout_raw or cas.read(result.stdout_digest)
        stderr = result.stderr_raw or cas.read(result.stderr_digest)
    except grpc.RpcError as e:
        raise Failure(f"{remote}: {e.code().name}: {e.details()}")
    sys.stdout.buffer.write(stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(stderr)
    sys.stderr.flush()
    line = f"cached={response.cached_result} {outputs[0] if outputs else cmd[0]}"
    if os.environ.get("FASTCUDA_STEP_CACHE_RESULT"):  # for `fastcuda report`'s counts
        with open(os.environ["FASTCUDA_STEP_CACHE_RESULT"], "w") as said:
            said.write("hit" if response.cached_result else "miss")
    if opts["--log"]:
        with open(opts["--log"], "a") as log:
            log.write(line + "\n")
    if opts["-v"]:
        print(f"reapi_run: {line} exit={result.exit_code} worker={result.execution_metadata.worker}", file=sys.stderr)
    return result.exit_code


def main():
    try:
        opts, cmd = parse(sys.argv[1:])
        return run(opts, cmd)
    except Failure as e:
        print(f"reapi_run: {e}", file=sys.stderr)
        return 125


if __name__ == "__main__":
    sys.exit(main())
