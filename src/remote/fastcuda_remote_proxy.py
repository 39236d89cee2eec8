"""FastCuda's remote-execution client: the proxy that the step wrapper
(fastcuda-remote, src/remote/step_wrapper.cc) talks to over a Unix socket.

One proxy per user and configuration (the wrapper names its socket after
every FASTCUDA_REMOTE* setting), started by the first step that needs it,
gone after FASTCUDA_REMOTE_IDLE seconds (600) without a step. It keeps
what a per-step process would redo for every step:

* one gRPC channel to the REAPI v2 server;
* the digests of the files it has read, by path, size, mtime and inode:
  a file that many steps read is hashed once;
* the digests it knows to be in the CAS (uploaded or found), so an input
  that is already there is not asked for again;
* the token of FASTCUDA_REMOTE_TOKEN_FILE, read again when the file
  changes (tokens expire and are renewed in place).

Per step: the action cache first (GetActionResult), then FindMissingBlobs,
the missing blobs uploaded (small ones batched with BatchUpdateBlobs,
large ones streamed with ByteStream), Execute, and the outputs downloaded
under temporary names beside their final ones, each checked against its
digest; the wrapper renames them into place. An action-cache entry whose
outputs are gone from the CAS, or do not match their digests, is run
again with the cache lookup skipped.

Steps whose inputs include the project's and the system's headers (the
preprocessing and the host compile) run here, cached (the wrapper's
`--cache-only`), as ccache's direct mode keeps them: the action cache is
asked for the step's manifest (the headers its last run read, from its
depfile), then for its result under a key of its command, environment,
compiler and the digests of its inputs and those headers; a miss runs
here and stores both. The TU's work directory is left out of the key, so
that another build directory of the same sources hits.

A step the action cache misses while a core of the build's own sits idle
runs there instead (FASTCUDA_REMOTE_LOCAL=idle, the default), as Bazel's
dynamic execution and reclient's racing run a step where it ends first:
the wrapper runs it and hands back its result, which the proxy stores in
the CAS and the action cache (UpdateActionResult), so that another build
directory hits it as if a worker had run it. `never`: every miss runs
remotely; `always`: every miss runs here, the service only a shared
cache.

The protocol's messages and stubs come from buildgrid-common's
`buildgrid.common.protos` (PyPI), gRPC from grpcio.

usage: fastcuda_remote_proxy.py SOCKET ENDPOINT (started by fastcuda-remote)
"""
import hashlib
import os
import random
import re
import shutil
import socketserver
import sys
import threading
import time
import uuid
from collections import namedtuple

import grpc
from buildgrid.common.protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid.common.protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc
from buildgrid.common.protos.google.bytestream import bytestream_pb2, bytestream_pb2_grpc
from buildgrid.common.protos.google.longrunning import operations_pb2, operations_pb2_grpc

CHUNK = 1 << 20  # ByteStream chunk
BATCH_LIMIT = 3 << 20  # under gRPC's default 4 MiB message, for servers that do not say
RPC_S = 120  # any one CAS or action-cache call
DOWN_S = 30  # after the server was found unreachable, steps do not try it for this long
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION.value[0]
# A server's refusal of the client's credentials: not transient, never
# retried; the steps fall back (or fail) until the token changes.
REFUSED = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
WORK = "@work"  # the TU's work directory in a cached-here step's key
# A step cached here with one of these words reads or writes files that its
# command does not name (response files, profiles, coverage notes, dumps,
# split DWARF, plugins, spec files): it runs here, uncached. So does one
# with a -M flag and no depfile of its own.
UNCACHED_WORDS = ("@", "-save-temps", "--coverage", "-ftest-coverage", "-fprofile-", "-fauto-profile",
                  "-fdump-", "-gsplit-dwarf", "-fstack-usage", "-fcallgraph-info", "-fplugin", "-specs",
                  "-B", "-Wp,", "-Xpreprocessor", "-Xclang")
# A file with one of these, read by a step cached here, makes output that
# the time decides: the step is not stored.
TIME_MACROS = re.compile(rb"__(DATE|TIME|TIMESTAMP)__")
# With these a compiler records the directory it runs in (debug
# information, -fworking-directory): the key of a step cached here holds it.
DIRECTORY_WORDS = ("-g", "-fworking-directory")


class Failure(Exception):
    """The remote cannot run this step; the message names the endpoint."""


class Unreachable(Failure):
    """The server cannot be reached."""


class CacheEntryBroken(Exception):
    """An action-cache entry whose outputs are gone or corrupt."""


class RunHere(Exception):
    """The action cache missed and a local core is idle: the step runs
    there. Carries the action's digest, under which its result is stored."""


class Uncached(Exception):
    """A step cached here that cannot be: it runs here, nothing stored."""


class Cancelled(Exception):
    """The step's wrapper went away (Ctrl-C)."""


def environment_float(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        sys.exit(f"fastcuda-remote: {name}={os.environ[name]!r} is not a number")


class Config:
    def __init__(self, endpoint):
        self.endpoint = endpoint
        scheme, _, address = endpoint.rpartition("://")
        if scheme not in ("", "grpc", "grpcs", "http", "https"):
            sys.exit(f"fastcuda-remote: {endpoint}: the endpoint must be grpc://HOST:PORT or grpcs://HOST:PORT")
        self.address = address
        self.tls = scheme in ("grpcs", "https")
        self.instance = os.environ.get("FASTCUDA_REMOTE_INSTANCE", "")
        self.timeout = environment_float("FASTCUDA_REMOTE_TIMEOUT", 600)
        self.connect_timeout = environment_float("FASTCUDA_REMOTE_CONNECT_TIMEOUT", 5)
        self.retries = int(environment_float("FASTCUDA_REMOTE_RETRIES", 3))
        self.idle = environment_float("FASTCUDA_REMOTE_IDLE", 600)
        self.fallback = os.environ.get("FASTCUDA_REMOTE_FALLBACK", "on") != "off"
        self.local = os.environ.get("FASTCUDA_REMOTE_LOCAL", "idle")
        if self.local not in ("idle", "never", "always"):
            sys.exit(f"fastcuda-remote: FASTCUDA_REMOTE_LOCAL={self.local}: idle, never or always")
        self.headers = []
        for line in os.environ.get("FASTCUDA_REMOTE_HEADER", "").split("\n"):
            if line.strip():
                name, _, value = line.partition(":")
                self.headers.append((name.strip().lower(), value.strip()))
        request_metadata = re_pb2.RequestMetadata(tool_details=re_pb2.ToolDetails(tool_name="fastcuda"),
                                                  tool_invocation_id=str(uuid.uuid4()))
        self.headers.append(("build.bazel.remote.execution.v2.requestmetadata-bin",
                             request_metadata.SerializeToString()))
        self.token_file = os.environ.get("FASTCUDA_REMOTE_TOKEN_FILE", "")
        self.token_key = None
        self.metadata = self.headers
        try:
            self.read_token()
        except OSError:
            pass  # each step says so (Proxy.answer) until the file is there

    def read_token(self):
        """Reads the token file again where it changed (by size, mtime and
        inode): a proxy lives as long as builds come, and tokens expire and
        are renewed in place. True where the token changed."""
        if not self.token_file:
            return False
        st = os.stat(self.token_file)
        key = (st.st_size, st.st_mtime_ns, st.st_ino)
        if key == self.token_key:
            return False
        with open(self.token_file) as f:
            self.metadata = self.headers + [("authorization", "Bearer " + f.read().strip())]
        self.token_key = key
        return True

    def credentials(self):
        """What the client sent to authenticate, for a refusal's message."""
        if self.token_file:
            return f"the token of FASTCUDA_REMOTE_TOKEN_FILE={self.token_file}"
        if os.environ.get("FASTCUDA_REMOTE_HEADER", "").strip():
            return "the headers of FASTCUDA_REMOTE_HEADER"
        return "no credentials sent (FASTCUDA_REMOTE_TOKEN_FILE and FASTCUDA_REMOTE_HEADER are unset)"

    def channel(self):
        options = [("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)]
        if not self.tls:
            return grpc.insecure_channel(self.address, options=options)

        def read(name):
            path = os.environ.get(name)
            if not path:
                return None
            with open(path, "rb") as f:
                return f.read()
        credentials = grpc.ssl_channel_credentials(read("FASTCUDA_REMOTE_TLS_CA"), read("FASTCUDA_REMOTE_TLS_KEY"),
                                                   read("FASTCUDA_REMOTE_TLS_CERT"))
        return grpc.secure_channel(self.address, credentials, options=options)


class Step:
    """One step's request from the wrapper, and what it has cost so far:
    CWD INPUTS OUTPUTS PATH MODE DEPFILE WORK_DIR ENVIRONMENT ARGV...; the
    last four but for a step cached here (MODE "cache-only") empty."""

    def __init__(self, fields, connection):
        (self.cwd, inputs, outputs, self.path, mode, self.depfile, self.work_dir,
         self.environment) = (os.fsdecode(f) for f in fields[:8])
        self.cache_only = mode == "cache-only"
        self.argv = [os.fsdecode(f) for f in fields[8:]]
        self.inputs = [p for p in inputs.split("\n") if p]
        self.outputs = [p for p in outputs.split("\n") if p]
        self.connection = connection
        self.call = None  # the gRPC call it waits on, cancelled when the wrapper goes
        self.operation = None
        self.cancelled = False
        self.temporaries = []  # (temporary, final), absolute
        self.started = time.monotonic()
        self.started_ns = time.time_ns()
        self.remote_s = self.transfer_s = self.digest_s = self.lookup_s = 0.0
        self.sent = self.received = 0

    def keyed(self, path):
        """`path` as a cached-here step's key names it: the work dir's
        files by their place in it, others as the step names them."""
        full = os.path.normpath(os.path.join(self.cwd, path))
        if self.work_dir and full.startswith(self.work_dir + "/"):
            return WORK + full[len(self.work_dir):]
        return path

    def unkeyed(self, path):
        """The file a key's `path` names for this step (keyed's inverse)."""
        if path.startswith(WORK + "/"):
            return self.work_dir + path[len(WORK):]
        return os.path.join(self.cwd, path)

    def relative_paths(self):
        return all(not os.path.isabs(p) and not os.path.normpath(p).startswith("..")
                   for p in self.inputs + self.outputs)

    def watch(self):
        """Cancels the step when its wrapper closes the socket before the reply."""
        try:
            self.connection.recv(1)
        except OSError:
            pass
        self.cancelled = True
        call = self.call
        if call is not None:
            call.cancel()

    def check(self):
        if self.cancelled:
            raise Cancelled()


# An output of a step that ran here, as read_outputs read it: `stat` is
# (size, mtime_ns, inode), the digest cache's key of its path.
Output = namedtuple("Output", "path data executable stat")


def digest_of(data):
    return re_pb2.Digest(hash=hashlib.sha256(data).hexdigest(), size_bytes=len(data))


class IdleCores:
    """Whether a core this process may run on (its CPU affinity, which the
    build's local steps share) sits idle: from /proc/stat's ticks since the
    last look, at most every WINDOW_S, at least SPARE of a core idle. A core
    given to a step counts as busy for two windows, until the step shows in
    the ticks. (A whole core and 0.25 s took 65 misses of a build where a
    schedule taking every idle core would take 149.)"""
    WINDOW_S = 0.1
    SPARE = 0.5

    def __init__(self, cpus=None, read_stat=None, clock=time.monotonic):
        self.cpus = set(os.sched_getaffinity(0) if cpus is None else cpus)
        self.read_stat = read_stat or (lambda: open("/proc/stat").read())
        self.clock = clock
        self.lock = threading.Lock()
        self.ticks = None  # cpu: (busy, all) at the last look
        self.looked = -float("inf")
        self.idle = 0.0  # idle cores between the last two looks
        self.given = []  # when cores were given to steps

    def sample(self):
        ticks = {}
        for line in self.read_stat().splitlines():
            name, *fields = line.split()
            if name[:3] == "cpu" and name[3:].isdigit() and int(name[3:]) in self.cpus:
                values = [int(v) for v in fields]
                waiting = values[3] + (values[4] if len(values) > 4 else 0)  # idle and iowait
                ticks[int(name[3:])] = (sum(values) - waiting, sum(values))
        return ticks

    def take(self):
        """True, and the core counted as given, where one is idle."""
        with self.lock:
            now = self.clock()
            if now - self.looked >= self.WINDOW_S:
                ticks = self.sample()
                if self.ticks is not None:
                    both = [c for c in ticks if c in self.ticks]
                    busy = sum(ticks[c][0] - self.ticks[c][0] for c in both)
                    total = sum(ticks[c][1] - self.ticks[c][1] for c in both)
                    self.idle = len(both) * (1 - busy / total) if total else 0.0
                self.ticks, self.looked = ticks, now
            self.given = [t for t in self.given if now - t < 2 * self.WINDOW_S]
            if self.idle - len(self.given) < self.SPARE:
                return False
            self.given.append(now)
            return True


class Client:
    def __init__(self, config):
        self.config = config
        self.channel = config.channel()
        self.cas = re_grpc.ContentAddressableStorageStub(self.channel)
        self.action_cache = re_grpc.ActionCacheStub(self.channel)
        self.execution = re_grpc.ExecutionStub(self.channel)
        self.bytestream = bytestream_pb2_grpc.ByteStreamStub(self.channel)
        self.operations = operations_pb2_grpc.OperationsStub(self.channel)
        self.digests = {}  # absolute path: ((size, mtime_ns, inode), Digest)
        self.present = set()  # hashes known to be in the CAS
        self.connected = False
        self.down_until = 0.0
        self.down_reason = ""
        self.batch_limit = BATCH_LIMIT
        self.idle_cores = IdleCores() if config.local == "idle" else None
        self.dated = set()  # (path, (size, mtime_ns, inode)) of hashed files with TIME_MACROS
        self.pending = {}  # a cached-here step's token: what its store needs (run_cached_here)

    # --- calls, retried on UNAVAILABLE with backoff -------------------------
    def rpc(self, step, method, request, timeout=RPC_S):
        for attempt in range(self.config.retries + 1):
            step.check()
            try:
                return method(request, timeout=timeout, metadata=self.config.metadata)
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.CANCELLED and step.cancelled:
                    raise Cancelled()
                if e.code() != grpc.StatusCode.UNAVAILABLE or attempt == self.config.retries:
                    raise
                time.sleep(0.25 * 2 ** attempt * (1 + random.random()))
        raise AssertionError("unreachable")

    def connect(self):
        if self.connected:
            return
        try:
            grpc.channel_ready_future(self.channel).result(timeout=self.config.connect_timeout)
        except grpc.FutureTimeoutError:
            # The channel says not why (a refused connection, a TLS
            # handshake that failed): one call does.
            why = ""
            try:
                re_grpc.CapabilitiesStub(self.channel).GetCapabilities(
                    re_pb2.GetCapabilitiesRequest(instance_name=self.config.instance), timeout=1,
                    metadata=self.config.metadata)
            except grpc.RpcError as e:
                why = f" ({e.code().name}: {e.details()})"
            raise Unreachable(f"cannot reach the server within {self.config.connect_timeout:g} s{why}")
        try:
            capabilities = re_grpc.CapabilitiesStub(self.channel).GetCapabilities(
                re_pb2.GetCapabilitiesRequest(instance_name=self.config.instance), timeout=RPC_S,
                metadata=self.config.metadata)
            limit = capabilities.cache_capabilities.max_batch_total_size_bytes
            if limit:
                self.batch_limit = min(BATCH_LIMIT, limit - (64 << 10))
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
        self.connected = True

    # --- digests and uploads ------------------------------------------------
    def file_digest(self, path):
        path = os.path.normpath(path)  # a step's `../w/a.ii` is the next one's `/b/w/a.ii`
        st = os.stat(path)
        key = (st.st_size, st.st_mtime_ns, st.st_ino)
        known = self.digests.get(path)
        if known and known[0] == key:
            return known[1]
        h, tail, dated = hashlib.sha256(), b"", False
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(CHUNK), b""):
                h.update(block)
                dated = dated or TIME_MACROS.search(tail + block) is not None
                tail = block[-16:]
        digest = re_pb2.Digest(hash=h.hexdigest(), size_bytes=st.st_size)
        self.digests[path] = (key, digest)
        if dated:
            self.dated.add((path, key))
        return digest

    def undated_digest(self, path):
        """file_digest of a file a cached-here step reads; Uncached where it
        has a macro of the time (ccache's rule)."""
        path = os.path.normpath(path)
        digest = self.file_digest(path)
        if (path, self.digests[path][0]) in self.dated:
            raise Uncached(f"{path} has __DATE__, __TIME__ or __TIMESTAMP__")
        return digest

    def known(self, temporary, final, digest):
        """An output's digest and CAS presence, known from its download: the
        next step that reads it (ptxas the .ptx, fatbinary the .cubin) hashes
        nothing and asks nothing. The wrapper's rename keeps the size, mtime
        and inode that key the entry."""
        st = os.stat(temporary)
        self.digests[os.path.normpath(final)] = ((st.st_size, st.st_mtime_ns, st.st_ino), digest)
        self.present.add(digest.hash)

    def upload(self, step, blobs):
        """blobs: hash: (Digest, bytes or a path to read)."""
        wanted = [d for d, _ in blobs.values() if d.hash not in self.present]
        if not wanted:
            return
        started = time.monotonic()
        missing = self.rpc(step, self.cas.FindMissingBlobs, re_pb2.FindMissingBlobsRequest(
            instance_name=self.config.instance, blob_digests=wanted)).missing_blob_digests
        batch, size = [], 0
        for digest in missing:
            source = blobs[digest.hash][1]
            if digest.size_bytes > self.batch_limit:
                self.write(step, digest, source)
                continue
            if size + digest.size_bytes > self.batch_limit:
                self.update(step, batch)
                batch, size = [], 0
            data = source if isinstance(source, bytes) else open(source, "rb").read()
            batch.append(re_pb2.BatchUpdateBlobsRequest.Request(digest=digest, data=data))
            size += digest.size_bytes
        self.update(step, batch)
        step.sent += sum(d.size_bytes for d in missing)
        step.transfer_s += time.monotonic() - started
        self.present.update(d.hash for d in wanted)

    def update(self, step, batch):
        if not batch:
            return
        for r in self.rpc(step, self.cas.BatchUpdateBlobs, re_pb2.BatchUpdateBlobsRequest(
                instance_name=self.config.instance, requests=batch)).responses:
            if r.status.code != 0:
                raise Failure(f"uploading {r.digest.hash}: {r.status.message}")

    def write(self, step, digest, source):
        name = "/".join(filter(None, [self.config.instance, "uploads", str(uuid.uuid4()), "blobs",
                                      digest.hash, str(digest.size_bytes)]))

        def chunks():
            f = None if isinstance(source, bytes) else open(source, "rb")
            try:
                offset = 0
                while True:
                    data = source[offset:offset + CHUNK] if f is None else f.read(CHUNK)
                    last = offset + len(data) >= digest.size_bytes
                    yield bytestream_pb2.WriteRequest(resource_name=name, write_offset=offset, data=data,
                                                      finish_write=last)
                    offset += len(data)
                    if last:
                        return
            finally:
                if f:
                    f.close()
        # A retry streams the blob again from its start.
        self.rpc(step, lambda _, **kwargs: self.bytestream.Write(chunks(), **kwargs), None)

    # --- downloads ----------------------------------------------------------
    def read_small(self, step, digests):
        """hash: bytes, each checked against its digest."""
        found = {}
        wanted = [d for d in digests if d.size_bytes]
        for d in digests:
            if not d.size_bytes:
                found[d.hash] = b""
        for start in range(0, len(wanted), 1000):
            part, size, group = wanted[start:start + 1000], 0, []
            for d in part + [None]:
                if d is not None and size + d.size_bytes <= self.batch_limit:
                    group.append(d)
                    size += d.size_bytes
                    continue
                if group:
                    for r in self.rpc(step, self.cas.BatchReadBlobs, re_pb2.BatchReadBlobsRequest(
                            instance_name=self.config.instance, digests=group)).responses:
                        if r.status.code != 0:
                            raise CacheEntryBroken(f"blob {r.digest.hash}/{r.digest.size_bytes}: "
                                                   f"status {r.status.code} {r.status.message}")
                        if hashlib.sha256(r.data).hexdigest() != r.digest.hash or len(r.data) != r.digest.size_bytes:
                            raise CacheEntryBroken(f"blob {r.digest.hash}/{r.digest.size_bytes}: digest mismatch")
                        found[r.digest.hash] = r.data
                group, size = ([d], d.size_bytes) if d is not None else ([], 0)
        return found

    def read_to_file(self, step, digest, path):
        name = "/".join(filter(None, [self.config.instance, "blobs", digest.hash, str(digest.size_bytes)]))
        h, size = hashlib.sha256(), 0
        try:
            with open(path, "wb") as f:
                step.call = self.bytestream.Read(bytestream_pb2.ReadRequest(resource_name=name), timeout=RPC_S,
                                                 metadata=self.config.metadata)
                for r in step.call:
                    h.update(r.data)
                    size += len(r.data)
                    f.write(r.data)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                raise CacheEntryBroken(f"blob {digest.hash}/{digest.size_bytes}: not found")
            raise
        finally:
            step.call = None
        if h.hexdigest() != digest.hash or size != digest.size_bytes:
            raise CacheEntryBroken(f"blob {digest.hash}/{digest.size_bytes}: digest mismatch")

    def write_outputs(self, step, result, place=None):
        """Every output under a temporary name beside its final one: where
        `place` gives it (its path in the result), else in step.cwd."""
        started = time.monotonic()
        small = [f.digest for f in result.output_files if not f.contents and f.digest.size_bytes <= self.batch_limit]
        small += [d for d in (result.stdout_digest, result.stderr_digest)
                  if d.hash and d.size_bytes <= self.batch_limit]
        data = self.read_small(step, small)
        for n, f in enumerate(result.output_files):
            final = place(f.path) if place else os.path.join(step.cwd, f.path)
            os.makedirs(os.path.dirname(final), exist_ok=True)
            temporary = os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.fastcuda-remote-{n}")
            step.temporaries.append((temporary, final))
            if f.contents or f.digest.hash in data:
                content = f.contents or data[f.digest.hash]
                if f.contents and digest_of(content).hash != f.digest.hash:
                    raise CacheEntryBroken(f"inline output {f.path}: digest mismatch")
                with open(temporary, "wb") as out:
                    out.write(content)
            else:
                self.read_to_file(step, f.digest, temporary)
            os.chmod(temporary, 0o755 if f.is_executable else 0o644)
            self.known(temporary, final, f.digest)
            step.received += f.digest.size_bytes
        stdout = result.stdout_raw or (self.read_large(step, result.stdout_digest, data))
        stderr = result.stderr_raw or (self.read_large(step, result.stderr_digest, data))
        step.transfer_s += time.monotonic() - started
        return stdout, stderr

    def read_large(self, step, digest, data):
        if not digest.hash:
            return b""
        if digest.hash in data:
            return data[digest.hash]
        name = "/".join(filter(None, [self.config.instance, "blobs", digest.hash, str(digest.size_bytes)]))
        return b"".join(r.data for r in self.rpc(step, self.bytestream.Read,
                                                  bytestream_pb2.ReadRequest(resource_name=name)))

    def discard(self, step):
        for temporary, _ in step.temporaries:
            if os.path.lexists(temporary):
                os.unlink(temporary)
        step.temporaries = []

    # --- the action ---------------------------------------------------------
    def action_of(self, step):
        """The action's digest and every blob it needs in the CAS."""
        blobs = {}

        def add(data):
            digest = digest_of(data)
            blobs[digest.hash] = (digest, data)
            return digest
        tree = {}
        for path in step.inputs:
            *dirs, name = os.path.normpath(path).split(os.sep)
            node = tree
            for d in dirs:
                node = node.setdefault(d, {})
            full = os.path.join(step.cwd, path)
            digest = self.file_digest(full)
            blobs[digest.hash] = (digest, full)
            node[name] = (digest, os.access(full, os.X_OK))

        def put(node):
            directory = re_pb2.Directory()
            for name in sorted(node):
                if isinstance(node[name], dict):
                    directory.directories.add(name=name, digest=put(node[name]))
                else:
                    directory.files.add(name=name, digest=node[name][0], is_executable=node[name][1])
            return add(directory.SerializeToString())
        command = re_pb2.Command(arguments=step.argv, output_paths=sorted(step.outputs))
        command.environment_variables.add(name="PATH", value=step.path)
        action = re_pb2.Action(command_digest=add(command.SerializeToString()), input_root_digest=put(tree))
        return add(action.SerializeToString()), blobs

    def execute(self, step, action_digest, skip_cache):
        request = re_pb2.ExecuteRequest(instance_name=self.config.instance, action_digest=action_digest,
                                        skip_cache_lookup=skip_cache)
        deadline = time.monotonic() + self.config.timeout
        started = time.monotonic()
        operation = None
        lost = 0
        try:
            while operation is None or not operation.done:
                step.check()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise grpc.FutureTimeoutError()
                try:
                    step.call = (self.execution.Execute(request, timeout=left, metadata=self.config.metadata)
                                 if operation is None else
                                 self.execution.WaitExecution(re_pb2.WaitExecutionRequest(name=operation.name),
                                                              timeout=left, metadata=self.config.metadata))
                    for operation in step.call:
                        step.operation = operation.name
                        if operation.done:
                            break
                except grpc.RpcError as e:
                    if e.code() == grpc.StatusCode.CANCELLED and step.cancelled:
                        raise Cancelled()
                    if e.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                        raise grpc.FutureTimeoutError()
                    if e.code() != grpc.StatusCode.UNAVAILABLE or lost == self.config.retries:
                        raise
                    time.sleep(0.25 * 2 ** lost * (1 + random.random()))  # the stream broke: wait on
                    lost += 1
                finally:
                    step.call = None
        except grpc.FutureTimeoutError:
            self.cancel(step)
            raise Failure(f"no result within FASTCUDA_REMOTE_TIMEOUT={self.config.timeout:g} s")
        step.remote_s += time.monotonic() - started
        if operation.HasField("error"):
            raise Failure(f"the action failed: {operation.error.message}")
        response = re_pb2.ExecuteResponse()
        operation.response.Unpack(response)
        return response

    def cancel(self, step):
        if step.operation:
            try:
                self.operations.CancelOperation(operations_pb2.CancelOperationRequest(name=step.operation),
                                                timeout=5, metadata=self.config.metadata)
            except grpc.RpcError:
                pass

    def run(self, step):
        """(exit status, hit, stdout, stderr); the outputs written beside their places."""
        self.connect()
        started = time.monotonic()
        action_digest, blobs = self.action_of(step)
        step.digest_s = time.monotonic() - started
        try:
            result = self.ask_action_cache(step, action_digest)
            if result.exit_code == 0:
                try:
                    stdout, stderr = self.write_outputs(step, result)
                    return 0, True, stdout, stderr
                except CacheEntryBroken as e:
                    self.discard(step)
                    log(f"{self.config.endpoint}: action cache entry {action_digest.hash}: {e}; running it again")
                    return self.run_action(step, action_digest, blobs, skip_cache=True)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.NOT_FOUND:
                raise
        if self.config.local == "always" or (self.idle_cores and self.idle_cores.take()):
            raise RunHere(action_digest)
        return self.run_action(step, action_digest, blobs, skip_cache=False)

    # --- steps cached here --------------------------------------------------
    def run_cached_here(self, step):
        """(exit status, hit, stdout, stderr) of a step cached here that the
        action cache holds, its outputs written beside their places: under
        the key of its manifest, the headers its last run read, then under
        its key with their digests. Else RunHere with the manifest's key
        and a token of the step's own, by which its store finds its key's
        base. Uncached where the step cannot be cached."""
        self.connect()
        started = time.monotonic()
        base = self.base_key(step)
        manifest_key = digest_of((base + "\nmanifest").encode("utf-8", "surrogateescape"))
        step.digest_s = time.monotonic() - started
        while len(self.pending) > 4096:  # of steps that failed or stopped, which store nothing
            del self.pending[next(iter(self.pending))]
        token = uuid.uuid4().hex
        self.pending[token] = (manifest_key, base, step.started_ns, step.work_dir)
        manifest = self.cached(step, manifest_key)
        if manifest and len(manifest.output_files) == 1:
            f = manifest.output_files[0]
            try:
                text = f.contents or self.read_small(step, [f.digest])[f.digest.hash]
                key = self.full_key(step, base, os.fsdecode(text).splitlines())
            except (CacheEntryBroken, OSError, ValueError):
                key = None  # a header is gone (the step reads others now), or the entry is no manifest
            result = key and self.cached(step, key)
            places = {step.keyed(path): os.path.join(step.cwd, path) for path in step.outputs}
            if result and sorted(f.path for f in result.output_files) == sorted(places):
                try:
                    stdout, stderr = self.write_outputs(step, result, places.get)
                    return 0, True, stdout, stderr
                except CacheEntryBroken as e:
                    self.discard(step)
                    log(f"{self.config.endpoint}: action cache entry {key.hash}: {e}; running it here")
        raise RunHere(manifest_key, token)

    def cached(self, step, key):
        """The action cache's successful entry under `key`, or None."""
        try:
            result = self.ask_action_cache(step, key)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.NOT_FOUND:
                raise
            return None
        return result if result.exit_code == 0 else None

    def base_key(self, step):
        """The text of a cached-here step's key but its headers: the digest
        of its compiler, the variables that change what it does, the
        directory it runs in where its command records it, its command
        (the work dir's path left out), its outputs' names, its inputs'
        names and digests. Uncached where a word of the command reads or
        writes files it does not name."""
        argv = step.argv
        if (any(word.startswith(UNCACHED_WORDS) for word in argv[1:]) or
                (not step.depfile and any(word.startswith("-M") for word in argv[1:]))):
            raise Uncached("its command reads or writes files it does not name")
        variables = step.environment.splitlines()
        if any(line.startswith(("DEPENDENCIES_OUTPUT=", "SUNPRO_DEPENDENCIES=")) for line in variables):
            raise Uncached("the environment has it write a depfile")
        program = shutil.which(argv[0], path=step.path)
        if program is None:
            raise Uncached(f"{argv[0]} is not on PATH")
        lines = ["fastcuda cached here 1", "program " + self.file_digest(os.path.realpath(program)).hash]
        if any(word.startswith(DIRECTORY_WORDS) for word in argv[1:]):
            lines.append("cwd " + step.cwd)
        lines += ["environment " + line for line in sorted(variables)]
        work = step.work_dir + "/" if step.work_dir else None
        lines += ["argv " + (word.replace(work, WORK + "/") if work else word) for word in argv]
        lines += ["output " + path for path in sorted(step.keyed(p) for p in step.outputs)]
        lines += [f"input {step.keyed(p)} {self.undated_digest(os.path.join(step.cwd, p)).hash}" for p in step.inputs]
        return "\n".join(lines)

    def full_key(self, step, base, headers):
        """The key of a cached-here step: `base` and each of its headers
        (as keyed) with its digest now. FileNotFoundError where one is gone."""
        lines = [base] + [f"header {name} {self.undated_digest(step.unkeyed(name)).hash}" for name in headers]
        return digest_of("\n".join(lines).encode("utf-8", "surrogateescape"))

    def store_cached_here(self, step, token, read, files, stdout, stderr):
        """Stores what a cached-here step that ran here wrote (`files`, as
        read_outputs read them) under its key, and the files its depfile
        names (`read`) under its manifest's key: the step's `token`
        (run_cached_here) names them. Nothing where the depfile names none
        (a compiler that writes none) or a file that changed since the step
        started."""
        if token not in self.pending:
            raise Uncached("its key is no longer known")  # one of 4096 steps before
        manifest_key, base, started_ns, step.work_dir = self.pending.pop(token)
        outputs = {step.keyed(f.path) for f in files}
        headers = set()
        for name in read:
            keyed = step.keyed(name)
            if keyed in outputs:
                continue
            if os.stat(step.unkeyed(keyed)).st_mtime_ns >= started_ns:
                raise Uncached(f"{name} changed while the step ran")
            headers.add(keyed)
        if not headers:
            raise Uncached("its depfile names no file it read")
        headers = sorted(headers)
        key = self.full_key(step, base, headers)
        self.store(step, key, files, stdout, stderr, name=step.keyed)
        manifest = "\n".join(headers).encode("utf-8", "surrogateescape")
        self.store(step, manifest_key, [Output("manifest", manifest, False, None)], b"", b"")

    @staticmethod
    def read_outputs(step):
        """The Output of each output of a step that ran here, read while it is
        still the file the step left (step.outputs: PATH SIZE MTIME_NS INODE
        lines): one rewritten since, by FastCuda (an intermediate's stub) or
        another build's step, is not this action's output, and stores
        nothing."""
        def as_left(f):
            st = os.fstat(f.fileno())
            return [str(st.st_size), str(st.st_mtime_ns), str(st.st_ino)]
        files = []
        for line in sorted(step.outputs):
            path, *seen = line.rsplit("\t", 3)
            with open(os.path.join(step.cwd, path), "rb") as f:
                if as_left(f) != seen:
                    raise OSError(f"{path} changed since the step wrote it")
                data = f.read()
                if as_left(f) != seen or len(data) != int(seen[0]):
                    raise OSError(f"{path} changed while it was read")
                files.append(Output(path, data, bool(os.fstat(f.fileno()).st_mode & 0o111),
                                    tuple(int(field) for field in seen)))
        return files

    def store(self, step, action_digest, files, stdout, stderr, name=lambda path: path):
        """Stores the result of a step that ran here and succeeded (its
        outputs as read_outputs read them, each under `name` of its path):
        the CAS gets what it lacks, the action cache the entry a worker's run
        would have left. Their digests are known from then on, as a
        download's are (known): the step that reads one (cicc the
        preprocessing's output) hashes nothing and asks nothing."""
        result = re_pb2.ActionResult(exit_code=0)
        blobs = {}
        for f in files:
            digest = digest_of(f.data)
            blobs[digest.hash] = (digest, f.data)
            result.output_files.add(path=name(f.path), digest=digest, is_executable=f.executable)
            if f.stat:
                self.digests[os.path.normpath(os.path.join(step.cwd, f.path))] = (f.stat, digest)
        for data, field in ((stdout, result.stdout_digest), (stderr, result.stderr_digest)):
            digest = digest_of(data)
            blobs[digest.hash] = (digest, data)
            field.CopyFrom(digest)
        self.connect()
        self.upload(step, blobs)
        self.rpc(step, self.action_cache.UpdateActionResult, re_pb2.UpdateActionResultRequest(
            instance_name=self.config.instance, action_digest=action_digest, action_result=result))

    def ask_action_cache(self, step, action_digest):
        """The action cache's entry (GetActionResult), its time in step.lookup_s."""
        started = time.monotonic()
        try:
            return self.rpc(step, self.action_cache.GetActionResult, re_pb2.GetActionResultRequest(
                instance_name=self.config.instance, action_digest=action_digest, inline_stdout=True,
                inline_stderr=True))
        finally:
            step.lookup_s = time.monotonic() - started

    def run_action(self, step, action_digest, blobs, skip_cache):
        for attempt in (0, 1):
            self.upload(step, blobs)
            response = self.execute(step, action_digest, skip_cache)
            if response.status.code == FAILED_PRECONDITION and attempt == 0:
                # Inputs the server no longer has (evicted, or a restarted
                # server): ask for every blob again.
                self.present.difference_update(blobs)
                continue
            if response.status.code != 0:
                raise Failure(f"the action failed: status {response.status.code}: {response.status.message}")
            result = response.result
            try:
                stdout, stderr = (self.write_outputs(step, result) if result.exit_code == 0 else
                                  (result.stdout_raw or self.read_large(step, result.stdout_digest, {}),
                                   result.stderr_raw or self.read_large(step, result.stderr_digest, {})))
            except CacheEntryBroken as e:
                raise Failure(f"the result of action {action_digest.hash}: {e}")
            return result.exit_code, response.cached_result, stdout, stderr
        raise AssertionError("unreachable")


def log(line):
    print(f"{time.strftime('%H:%M:%S')} {line}", file=sys.stderr, flush=True)


class Proxy(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 1024

    def __init__(self, path, client):
        self.client = client
        self.last = time.monotonic()
        self.busy = 0
        self.state = threading.Lock()
        super().__init__(path, Handler)

    def fallback_or_fail(self, why, quiet):
        """The wrapper's answer where the remote cannot run the step."""
        config = self.client.config
        message = f"fastcuda-remote: {config.endpoint}: {why}"
        if not config.fallback:
            return "fail", message
        return "local", "" if quiet else message + "; running the step locally (FASTCUDA_REMOTE_FALLBACK=off fails instead)"

    def answer(self, step):
        client = self.client
        if not step.cache_only and not step.relative_paths():  # a step that names files outside its directory
            return ("local", "")
        try:
            if client.config.read_token():
                client.down_until = 0.0  # a refusal was for the token before
        except OSError as e:
            return self.away(f"FASTCUDA_REMOTE_TOKEN_FILE={client.config.token_file}: {e.strerror}")
        now = time.monotonic()
        if now < client.down_until:
            return self.fallback_or_fail(client.down_reason, quiet=True)
        try:
            status, hit, stdout, stderr = client.run_cached_here(step) if step.cache_only else client.run(step)
            return ("done", status, hit, stdout, stderr)
        except Uncached:
            return ("local", "")
        except RunHere as here:  # its action's digest, and a cached-here step's token
            return ("here", "/".join([here.args[0].hash, str(here.args[0].size_bytes), *here.args[1:]]))
        except Cancelled:
            client.cancel(step)
            raise
        except (Failure, grpc.RpcError, OSError) as e:
            client.discard(step)
            rpc = isinstance(e, grpc.RpcError)
            why = f"{e.code().name}: {e.details()}" if rpc else str(e)
            if rpc and e.code() in REFUSED:
                why = f"authentication refused ({why}); {client.config.credentials()}"
            elif not isinstance(e, Unreachable) and not (
                    rpc and e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)):
                log(f"{client.config.endpoint}: {' '.join(step.argv[:1] + step.outputs[:1])}: {why}")
                return self.fallback_or_fail(why, quiet=False)
            return self.away(why)

    def away(self, why):
        """The server is away, refuses the client's credentials, or there
        are none to send: the steps after this one do not ask it (a refusal
        holds until the token file changes), and only the first says so."""
        client = self.client
        client.connected = False
        with self.state:
            quiet = time.monotonic() < client.down_until
            client.down_until = time.monotonic() + DOWN_S
            client.down_reason = why
        log(f"{client.config.endpoint}: {why} (the server is not tried for {DOWN_S} s)")
        return self.fallback_or_fail(why, quiet)


def append_store_line(stats, step, name):
    """The stats file's line of a store (the wrapper's WriteStats has the
    fields): HIT "S", the seconds it took, in transfers and hashing, and the
    bytes it sent; no remote action, nothing received."""
    wall = time.monotonic() - step.started
    fields = [f"{wall:.4f}", "0", f"{step.transfer_s:.4f}", "S", str(step.sent), str(step.received),
              f"{wall:.4f}", f"{step.digest_s:.4f}", f"{step.lookup_s:.4f}", f"{step.started_ns / 1e9:.3f}", name]
    fd = os.open(stats, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, (" ".join(fields) + "\n").encode("utf-8", "surrogateescape"))
    finally:
        os.close(fd)


def depfile_prerequisites(text):
    """The files a Make depfile, as gcc and clang write it, names after its
    targets' colons."""
    names = []
    for line in text.replace("\\\n", " ").splitlines():
        colon = re.search(r":(\s|$)", line)
        if colon:
            for word in re.findall(r"(?:\\.|[^\s\\])+", line[colon.end():]):
                names.append(re.sub(r"\\([ #\\])", r"\1", word).replace("$$", "$"))
    return names


def frame(data):
    return len(data).to_bytes(8, "big") + data


def receive_exactly(sock, size):
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        server = self.server
        with server.state:
            server.busy += 1
        try:
            fields = self.receive_frame().split(b"\0")
            if not fields[0]:  # no working directory: the result of a step that ran here
                self.store(fields[1:])
                return
            step = Step(fields, self.request)
            threading.Thread(target=step.watch, daemon=True).start()
            try:
                answer = server.answer(step)
            except Cancelled:
                server.client.discard(step)
                return
            costs = [f"{step.remote_s:.4f}", f"{step.transfer_s:.4f}", str(step.sent), str(step.received),
                     f"{time.monotonic() - step.started:.4f}", f"{step.digest_s:.4f}", f"{step.lookup_s:.4f}"]
            if answer[0] == "done":
                _, status, hit, stdout, stderr = answer
                header = ["done", str(status), "1" if hit else "0", "",
                          "\n".join(f"{t}\t{f}" for t, f in step.temporaries)] + costs
            else:  # "here" with the action's digest, "local" or "fail" with a message
                header, stdout, stderr = [answer[0], "125", "0", answer[1], ""] + costs, b"", b""
            try:
                self.request.sendall(frame("\0".join(header).encode("utf-8", "surrogateescape")) +
                                     frame(stdout) + frame(stderr))
            except OSError:
                server.client.discard(step)
        except EOFError:
            pass
        finally:
            with server.state:
                server.busy -= 1
                server.last = time.monotonic()

    def receive_frame(self):
        return receive_exactly(self.request, int.from_bytes(receive_exactly(self.request, 8), "big"))

    def store(self, fields):
        """ACTION CWD OUTPUTS DEPFILE STATS NAME, then the step's stdout and
        stderr: its outputs (Client.read_outputs) and, of a step cached here,
        the files its depfile names, read before the wrapper, told by a byte,
        lets FastCuda go on with them (and removes the depfile), then stored
        (Client.store, Client.store_cached_here) where they can be, with a
        line in the stats file STATS (where set) for what the store sent; a
        store that fails costs a later build a miss, nothing else."""
        action, cwd, outputs, depfile, stats, name = (os.fsdecode(f) for f in fields[:6])
        stdout, stderr = self.receive_frame(), self.receive_frame()
        digest_hash, size, *token = action.split("/")
        digest = re_pb2.Digest(hash=digest_hash, size_bytes=int(size))
        step = Step([os.fsencode(cwd), b"", os.fsencode(outputs)] + [b""] * 5, None)  # no wrapper waits on it
        client = self.server.client
        try:
            try:
                files = Client.read_outputs(step)
                cached_here = bool(token)
                if cached_here:  # read before the wrapper removes it, or the step rewrites it
                    with open(os.path.join(cwd, depfile), "rb") as f:
                        headers = depfile_prerequisites(os.fsdecode(f.read()))
            finally:
                self.request.sendall(b"\0")
            uncached = False
            try:
                if cached_here:
                    client.store_cached_here(step, token[0], headers, files, stdout, stderr)
                else:
                    client.store(step, digest, files, stdout, stderr)
            except Uncached:
                uncached = True
            finally:
                if stats and not uncached:  # what a failed store sent counts too
                    append_store_line(os.path.join(cwd, stats), step, name)
        except (Failure, grpc.RpcError, OSError, ValueError) as e:
            log(f"{self.server.client.config.endpoint}: storing the result of {step.outputs[:1]}: {e}")


def main():
    path, endpoint = sys.argv[1], sys.argv[2]
    server = Proxy(path, Client(Config(endpoint)))
    os.chmod(path, 0o600)
    log(f"serving {path} for {endpoint} as pid {os.getpid()}")

    def idle_exit():
        while True:
            time.sleep(min(server.client.config.idle, 10))
            with server.state:
                idle = not server.busy and time.monotonic() - server.last > server.client.config.idle
            if idle:
                try:
                    if os.stat(path).st_ino == inode:
                        os.unlink(path)
                finally:
                    os._exit(0)
    inode = os.stat(path).st_ino
    threading.Thread(target=idle_exit, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
