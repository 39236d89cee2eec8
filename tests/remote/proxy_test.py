"""Unit tests of FastCuda's remote client (src/remote/fastcuda_remote_proxy.py),
run by the Python it was configured with (FASTCUDA_REMOTE_PYTHON): what it
sends a server besides the protocol's requests, and what it keeps between
steps, how it finds an idle local core and stores the result of a step
run there. The server here is a gRPC server of the test's own that answers
GetCapabilities, GetActionResult (never cached), UpdateActionResult and
the CAS's FindMissingBlobs and BatchUpdateBlobs, and records the calls.

usage: proxy_test.py PROXY_SOURCE"""
import concurrent.futures
import importlib.util
import os
import sys
import tempfile
import unittest

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")  # no log of the server's goodbye
import grpc  # noqa: E402
from buildgrid.common.protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2  # noqa: E402
from buildgrid.common.protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc  # noqa: E402

spec = importlib.util.spec_from_file_location("proxy", sys.argv.pop(1))
proxy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(proxy)

TOKEN = "s3cret"


class Recorded:
    """The metadata of each call the server answered, by method."""

    def __init__(self):
        self.calls = []
        self.stored = {}  # action hash: ActionResult
        self.blobs = {}  # hash: bytes

    def check(self, name, context):
        metadata = dict(context.invocation_metadata())
        self.calls.append((name, metadata))
        if metadata.get("authorization") != "Bearer " + TOKEN:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "no valid bearer token")


class Capabilities(re_grpc.CapabilitiesServicer):
    def __init__(self, recorded):
        self.recorded = recorded

    def GetCapabilities(self, request, context):
        self.recorded.check("GetCapabilities", context)
        return re_pb2.ServerCapabilities()


class ActionCache(re_grpc.ActionCacheServicer):
    def __init__(self, recorded):
        self.recorded = recorded

    def GetActionResult(self, request, context):
        self.recorded.check("GetActionResult", context)
        if request.action_digest.hash not in self.recorded.stored:
            context.abort(grpc.StatusCode.NOT_FOUND, "not cached")
        return self.recorded.stored[request.action_digest.hash]

    def UpdateActionResult(self, request, context):
        self.recorded.check("UpdateActionResult", context)
        self.recorded.stored[request.action_digest.hash] = request.action_result
        return request.action_result


class Storage(re_grpc.ContentAddressableStorageServicer):
    def __init__(self, recorded):
        self.recorded = recorded

    def FindMissingBlobs(self, request, context):
        self.recorded.check("FindMissingBlobs", context)
        return re_pb2.FindMissingBlobsResponse(
            missing_blob_digests=[d for d in request.blob_digests if d.hash not in self.recorded.blobs])

    def BatchUpdateBlobs(self, request, context):
        self.recorded.check("BatchUpdateBlobs", context)
        for r in request.requests:
            self.recorded.blobs[r.digest.hash] = r.data
        return re_pb2.BatchUpdateBlobsResponse(responses=[
            re_pb2.BatchUpdateBlobsResponse.Response(digest=r.digest) for r in request.requests])

    def BatchReadBlobs(self, request, context):
        self.recorded.check("BatchReadBlobs", context)
        return re_pb2.BatchReadBlobsResponse(responses=[
            re_pb2.BatchReadBlobsResponse.Response(digest=d, data=self.recorded.blobs[d.hash])
            for d in request.digests])


def step_fields(cwd, outputs="", argv=("true",), inputs="", cache_only=False, depfile="", work_dir="",
                environment="", path="/usr/bin:/bin"):
    """What the wrapper sends the proxy for a step (Step)."""
    return [os.fsencode(f) for f in (cwd, inputs, outputs, path, "cache-only" if cache_only else "",
                                     depfile, work_dir, environment, *argv)]


class Step:
    """What Client.rpc asks of a step."""
    cancelled = False

    def check(self):
        pass


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.recorded = Recorded()
        self.server = grpc.server(concurrent.futures.ThreadPoolExecutor(max_workers=2))
        re_grpc.add_CapabilitiesServicer_to_server(Capabilities(self.recorded), self.server)
        re_grpc.add_ActionCacheServicer_to_server(ActionCache(self.recorded), self.server)
        re_grpc.add_ContentAddressableStorageServicer_to_server(Storage(self.recorded), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        self.scratch = tempfile.TemporaryDirectory()
        self.environment = dict(os.environ)

    def tearDown(self):
        self.server.stop(None)
        self.scratch.cleanup()
        os.environ.clear()
        os.environ.update(self.environment)

    def client(self, **variables):
        os.environ.update({"FASTCUDA_REMOTE_CONNECT_TIMEOUT": "5", "FASTCUDA_REMOTE_RETRIES": "0", **variables})
        return proxy.Client(proxy.Config(f"grpc://127.0.0.1:{self.port}"))

    def token_file(self, text):
        path = os.path.join(self.scratch.name, "token")
        with open(path, "w") as f:
            f.write(text)
        return path

    def ask_cache(self, client):
        client.connect()
        return client.rpc(Step(), client.action_cache.GetActionResult,
                          re_pb2.GetActionResultRequest(action_digest=proxy.digest_of(b"action")))

    def test_token_and_headers_reach_every_call(self):
        client = self.client(FASTCUDA_REMOTE_TOKEN_FILE=self.token_file(TOKEN + "\n"),
                             FASTCUDA_REMOTE_HEADER="X-Team: cuda\nx-build-id:  42 ")
        with self.assertRaises(grpc.RpcError) as raised:
            self.ask_cache(client)
        self.assertEqual(raised.exception.code(), grpc.StatusCode.NOT_FOUND)  # authorized: not cached
        self.assertEqual([name for name, _ in self.recorded.calls], ["GetCapabilities", "GetActionResult"])
        for _, metadata in self.recorded.calls:
            self.assertEqual(metadata["authorization"], "Bearer " + TOKEN)
            self.assertEqual(metadata["x-team"], "cuda")
            self.assertEqual(metadata["x-build-id"], "42")
            self.assertIn("build.bazel.remote.execution.v2.requestmetadata-bin", metadata)

    def test_a_wrong_token_is_refused_by_the_server(self):
        client = self.client(FASTCUDA_REMOTE_TOKEN_FILE=self.token_file("guess"))
        with self.assertRaises(grpc.RpcError) as raised:
            self.ask_cache(client)
        self.assertEqual(raised.exception.code(), grpc.StatusCode.UNAUTHENTICATED)

    def proxy(self, **variables):
        server = proxy.Proxy(tempfile.mktemp(dir=self.scratch.name), self.client(**variables))
        self.addCleanup(server.server_close)
        return server

    def step(self):
        """A step of no files: what the server is asked for it stops at the action cache."""
        return proxy.Step(step_fields(self.scratch.name), None)

    def test_a_refusal_falls_back_once_until_the_token_file_changes(self):
        path = self.token_file("guess")
        server = self.proxy(FASTCUDA_REMOTE_TOKEN_FILE=path, FASTCUDA_REMOTE_RETRIES="3")
        endpoint = f"grpc://127.0.0.1:{self.port}"
        self.assertEqual(server.answer(self.step()), (
            "local", f"fastcuda-remote: {endpoint}: authentication refused (UNAUTHENTICATED: no valid bearer token); "
            f"the token of FASTCUDA_REMOTE_TOKEN_FILE={path}; running the step locally "
            "(FASTCUDA_REMOTE_FALLBACK=off fails instead)"))
        # Not retried, and the next step neither asks nor says it again.
        self.assertEqual(server.answer(self.step()), ("local", ""))
        self.assertEqual([name for name, _ in self.recorded.calls], ["GetCapabilities"])
        # The token renewed in place: the same proxy sends the new one.
        self.token_file(TOKEN)
        del self.recorded.calls[:]
        server.answer(self.step())
        self.assertEqual([(name, metadata["authorization"]) for name, metadata in self.recorded.calls[:2]],
                         [("GetCapabilities", "Bearer " + TOKEN), ("GetActionResult", "Bearer " + TOKEN)])

    def test_a_token_file_not_there_falls_back_once_until_it_is(self):
        path = os.path.join(self.scratch.name, "token")
        server = self.proxy(FASTCUDA_REMOTE_TOKEN_FILE=path)
        self.assertEqual(server.answer(self.step()), (
            "local", f"fastcuda-remote: grpc://127.0.0.1:{self.port}: FASTCUDA_REMOTE_TOKEN_FILE={path}: "
            "No such file or directory; running the step locally (FASTCUDA_REMOTE_FALLBACK=off fails instead)"))
        self.assertEqual(server.answer(self.step()), ("local", ""))
        self.assertEqual(self.recorded.calls, [])
        self.token_file(TOKEN)
        server.answer(self.step())
        self.assertEqual([(name, metadata["authorization"]) for name, metadata in self.recorded.calls[:2]],
                         [("GetCapabilities", "Bearer " + TOKEN), ("GetActionResult", "Bearer " + TOKEN)])

    def test_no_token_fails_naming_the_settings(self):
        server = self.proxy(FASTCUDA_REMOTE_FALLBACK="off")
        self.assertEqual(server.answer(self.step()), (
            "fail", f"fastcuda-remote: grpc://127.0.0.1:{self.port}: authentication refused (UNAUTHENTICATED: "
            "no valid bearer token); no credentials sent (FASTCUDA_REMOTE_TOKEN_FILE and FASTCUDA_REMOTE_HEADER "
            "are unset)"))

    def test_a_file_is_hashed_once_until_it_changes(self):
        client = self.client()
        path = os.path.join(self.scratch.name, "a.ii")
        with open(path, "wb") as f:
            f.write(b"int x;\n")
        self.assertEqual(client.file_digest(path), proxy.digest_of(b"int x;\n"))
        # Unchanged (path, size, mtime, inode): the digest it keeps, which a marked one shows.
        key, _ = client.digests[path]
        client.digests[path] = (key, proxy.digest_of(b"kept"))
        self.assertEqual(client.file_digest(path), proxy.digest_of(b"kept"))
        with open(path, "wb") as f:
            f.write(b"int xy;\n")
        os.utime(path, ns=(0, os.stat(path).st_mtime_ns + 10**9))
        self.assertEqual(client.file_digest(path), proxy.digest_of(b"int xy;\n"))

    def test_a_downloaded_output_is_known_by_its_final_path(self):
        client = self.client()
        body = b"// PTX\n.version 9.0\n"
        step = proxy.Step(step_fields(self.scratch.name, "a.ptx", ["cicc"]), None)
        result = re_pb2.ActionResult(exit_code=0)
        result.output_files.add(path="a.ptx", digest=proxy.digest_of(body), contents=body)
        client.write_outputs(step, result)
        (temporary, final), = step.temporaries
        os.rename(temporary, final)  # as the wrapper does
        # Known from the download (a marked digest shows it is not read
        # again), and in the CAS: ptxas's step hashes and asks nothing.
        key, digest = client.digests[final]
        self.assertEqual(digest, proxy.digest_of(body))
        client.digests[final] = (key, proxy.digest_of(b"kept"))
        self.assertEqual(client.file_digest(final), proxy.digest_of(b"kept"))
        self.assertIn(digest.hash, client.present)
        # Rewritten in place (a local run): hashed again.
        with open(final, "wb") as f:
            f.write(b"// other PTX\n")
        self.assertEqual(client.file_digest(final), proxy.digest_of(b"// other PTX\n"))


    def test_an_idle_core_is_given_once_until_the_ticks_show_it(self):
        now, cpus = [0.0], {cpu: [1000, 1000] for cpu in range(5)}  # cpu: [busy, idle] ticks

        def run(seconds, busy):  # each core of ours busy for its share of SECONDS; cpu4 (not ours) always
            now[0] += seconds
            for cpu, share in enumerate(busy + [1.0]):
                cpus[cpu][0] += round(100 * seconds * share)
                cpus[cpu][1] += round(100 * seconds * (1 - share))

        def stat():
            return "cpu  0 0 0 0\n" + "".join(f"cpu{c} {b} 0 0 {i} 0 0 0 0 0 0\n" for c, (b, i) in cpus.items())
        cores = proxy.IdleCores(cpus={0, 1, 2, 3}, read_stat=stat, clock=lambda: now[0])
        window = cores.WINDOW_S * 1.001  # a look each (sums of 0.1 fall short of 0.1 apart)
        self.assertFalse(cores.take())  # a first look: nothing to compare with
        run(window, [1, 1, 0, 0.4])  # 1.6 cores idle
        self.assertTrue(cores.take())
        self.assertTrue(cores.take())  # the second: 0.6 of a core is left
        self.assertFalse(cores.take())  # both given count as busy
        run(window / 2, [1, 1, 0, 0])
        self.assertFalse(cores.take())  # no new look within the window
        # The next look shows them only in part: given within two windows,
        # they still count as busy
        run(window, [1, 1, 0.6, 0.4])
        self.assertFalse(cores.take())
        run(window, [1, 1, 1, 0.6])  # the ticks show what runs: 0.4 of a core idle
        self.assertFalse(cores.take())
        run(window, [1, 1, 1, 0.4])  # 0.6 of one
        self.assertTrue(cores.take())

    def test_a_step_run_here_is_stored_as_a_workers_run_would_be(self):
        client = self.client(FASTCUDA_REMOTE_TOKEN_FILE=self.token_file(TOKEN))
        body = b"// PTX\n"
        path = os.path.join(self.scratch.name, "a.ptx")
        with open(path, "wb") as f:
            f.write(body)

        def as_left(p):
            st = os.stat(p)
            return f"a.ptx\t{st.st_size}\t{st.st_mtime_ns}\t{st.st_ino}"
        action = proxy.digest_of(b"action")
        step = proxy.Step(step_fields(self.scratch.name, as_left(path)), None)
        client.store(step, action, proxy.Client.read_outputs(step), b"", b"a warning\n")
        stored = self.recorded.stored[action.hash]
        self.assertEqual([(f.path, f.digest) for f in stored.output_files], [("a.ptx", proxy.digest_of(body))])
        self.assertEqual(self.recorded.blobs[stored.stderr_digest.hash], b"a warning\n")
        self.assertEqual(self.recorded.blobs[proxy.digest_of(body).hash], body)
        # Its digest known from then on, by the path the next step names it
        # (a marked digest shows it is not read again): cicc's step hashes
        # no output of a preprocessing run here
        key, digest = client.digests[path]
        self.assertEqual(digest, proxy.digest_of(body))
        client.digests[path] = (key, proxy.digest_of(b"kept"))
        self.assertEqual(client.file_digest(os.path.join(self.scratch.name, "x", "..", "a.ptx")),
                         proxy.digest_of(b"kept"))
        # Rewritten since the step left it (FastCuda's stub of an
        # intermediate, another build's step): not read, so never stored
        left = as_left(path)
        with open(path, "wb") as f:
            f.write(b"// another PTX\n")
        with self.assertRaises(OSError):
            proxy.Client.read_outputs(proxy.Step(step_fields(self.scratch.name, left), None))

    def test_a_miss_runs_here_where_told_or_a_core_is_idle(self):
        os.environ["FASTCUDA_REMOTE_TOKEN_FILE"] = self.token_file(TOKEN)
        action = proxy.Client(proxy.Config("grpc://x:1")).action_of(self.step())[0]
        here = ("here", f"{action.hash}/{action.size_bytes}")
        self.assertEqual(self.proxy(FASTCUDA_REMOTE_LOCAL="always").answer(self.step()), here)
        idle = self.proxy()
        idle.client.idle_cores = type("Idle", (), {"take": lambda self: True})()
        self.assertEqual(idle.answer(self.step()), here)
        # Never: the miss goes to the server (which here cannot execute: the step falls back)
        self.assertEqual(self.proxy(FASTCUDA_REMOTE_LOCAL="never").answer(self.step())[0], "local")
        with self.assertRaises(SystemExit):
            self.client(FASTCUDA_REMOTE_LOCAL="sometimes")

    @staticmethod
    def read(path):
        with open(path) as f:
            return f.read()

    def write(self, path, text):
        path = os.path.join(self.scratch.name, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def preprocess(self, build, **fields):
        """The step of `gcc -E` of src/a.cu in the build directory `build`
        (its graph and work dir under it), as the wrapper sends it."""
        root = self.scratch.name
        work = os.path.join(root, build, "g", "tu", "a.o-1234")
        argv = ["gcc", "-E", "-I", f"{root}/src", f"{root}/src/a.cu", "-o", f"{work}/a.ii", "-MD", "-MF",
                f"{work}/a.ii.d"]
        fields = {"argv": argv, "inputs": f"{root}/src/a.cu", "outputs": "g/tu/a.o-1234/a.ii\ng/tu/a.o-1234/a.ii.d",
                  "cache_only": True, "depfile": "g/tu/a.o-1234/a.ii.d", "work_dir": work, **fields}
        return proxy.Step(step_fields(os.path.join(root, build), **fields), None), work

    def run_here(self, client, step, work, code):
        """What the wrapper does on RunHere: the step's outputs written (its
        depfile naming the source and header), then stored."""
        with self.assertRaises(proxy.RunHere) as here:
            client.run_cached_here(step)
        src = os.path.join(self.scratch.name, "src")
        self.write(f"{work}/a.ii", code)
        self.write(f"{work}/a.ii.d", f"{work}/a.ii: {src}/a.cu \\\n {src}/a.h\n")
        left = ""
        for name in ("a.ii", "a.ii.d"):
            st = os.stat(f"{work}/{name}")
            left += f"{os.path.relpath(work, step.cwd)}/{name}\t{st.st_size}\t{st.st_mtime_ns}\t{st.st_ino}\n"
        stored = proxy.Step(step_fields(step.cwd, left), None)
        read = proxy.depfile_prerequisites(self.read(f"{work}/a.ii.d"))
        try:
            client.store_cached_here(stored, here.exception.args[1], read, proxy.Client.read_outputs(stored), b"",
                                     b"")
        except proxy.Uncached:
            pass

    def test_a_step_cached_here_hits_in_another_build_directory_until_a_header_changes(self):
        client = self.client(FASTCUDA_REMOTE_TOKEN_FILE=self.token_file(TOKEN))
        self.write("src/a.cu", '#include "a.h"\nint x = VALUE;\n')
        self.write("src/a.h", "#define VALUE 1\n")
        step, work = self.preprocess("b1")
        self.run_here(client, step, work, "int x = 1;\n")
        # Another build directory: its work dir's path differs, the key not
        step, work = self.preprocess("b2")
        self.assertEqual(client.run_cached_here(step)[:2], (0, True))
        written = {final: self.read(temporary) for temporary, final in step.temporaries}
        self.assertEqual(written[f"{work}/a.ii"], "int x = 1;\n")
        self.assertIn(f"{work}/a.ii.d", written)
        # A header edited: the manifest names it, and its digest misses
        self.write("src/a.h", "#define VALUE 2\n")
        os.utime(os.path.join(self.scratch.name, "src/a.h"), ns=(0, 10**9))  # older than the step's start
        step, work = self.preprocess("b2")
        self.run_here(client, step, work, "int x = 2;\n")
        step, work = self.preprocess("b3")
        client.run_cached_here(step)
        self.assertEqual({final: self.read(temporary) for temporary, final in step.temporaries}[f"{work}/a.ii"],
                         "int x = 2;\n")

    def test_a_step_cached_here_is_stored_only_where_its_result_is_the_sources(self):
        client = self.client(FASTCUDA_REMOTE_TOKEN_FILE=self.token_file(TOKEN))
        self.write("src/a.cu", '#include "a.h"\nint x = VALUE;\n')
        # A header changed while the step ran: not stored
        step, work = self.preprocess("b1")
        self.write("src/a.h", "#define VALUE 1\n")
        self.run_here(client, step, work, "int x = 1;\n")
        self.assertEqual(self.recorded.stored, {})
        # A header with the time in it: not stored
        self.write("src/a.h", "#define VALUE __TIME__\n")
        os.utime(os.path.join(self.scratch.name, "src/a.h"), ns=(0, 10**9))
        step, work = self.preprocess("b1")
        self.run_here(client, step, work, 'int x = "12:00:00";\n')
        self.assertEqual(self.recorded.stored, {})
        # Words that read or write files the command does not name, a -M
        # flag with no depfile of the step's, a variable that writes one:
        # run here uncached, the action cache never asked
        del self.recorded.calls[:]
        for fields in ({"argv": ["gcc", "-c", "a.cpp", "-save-temps"]}, {"argv": ["gcc", "@flags.rsp"]},
                       {"argv": ["gcc", "-c", "a.cpp", "-MD"], "depfile": ""},
                       {"environment": "SUNPRO_DEPENDENCIES=x.d a.o\n"}):
            with self.assertRaises(proxy.Uncached):
                client.run_cached_here(self.preprocess("b1", **fields)[0])
        self.assertNotIn("GetActionResult", [name for name, _ in self.recorded.calls])

    def test_steps_of_one_key_at_once_store_each_under_its_own_token(self):
        client = self.client(FASTCUDA_REMOTE_TOKEN_FILE=self.token_file(TOKEN))
        self.write("src/a.cu", '#include "a.h"\nint x = VALUE;\n')
        self.write("src/a.h", "#define VALUE 1\n")
        os.utime(os.path.join(self.scratch.name, "src/a.h"), ns=(0, 10**9))
        tokens = set()
        for build in ("b1", "b1"):  # the same step, twice in flight (two graphs of one TU)
            with self.assertRaises(proxy.RunHere) as here:
                client.run_cached_here(self.preprocess(build)[0])
            tokens.add(here.exception.args[1])
        self.assertEqual(len(tokens), 2)
        self.assertEqual(len(client.pending), 2)
        # A token the proxy no longer knows stores nothing
        with self.assertRaises(proxy.Uncached):
            client.store_cached_here(self.preprocess("b1")[0], "unknown", [], [], b"", b"")

    def test_the_key_of_a_step_cached_here_holds_what_changes_its_result(self):
        client = self.client()
        self.write("src/a.cu", "int x;\n")
        base = client.base_key(self.preprocess("b1")[0])
        self.assertEqual(client.base_key(self.preprocess("b2")[0]), base)  # not the build directory
        self.assertNotIn(self.scratch.name + "/b1", base)
        for fields in ({"environment": "CPATH=/opt/include\n"}, {"argv": ["gcc", "-E", "-DX", "a.cu"]},
                       {"argv": ["gcc", "-E", "-g", "a.cu"]}):
            self.assertNotEqual(client.base_key(self.preprocess("b1", **fields)[0]), base)
        # With -g the directory it runs in (its debug information records it)
        debug = {"argv": ["gcc", "-E", "-g", "a.cu"]}
        self.assertNotEqual(client.base_key(self.preprocess("b1", **debug)[0]),
                            client.base_key(self.preprocess("b2", **debug)[0]))
        self.write("src/a.cu", "int y;\n")
        self.assertNotEqual(client.base_key(self.preprocess("b1")[0]), base)

    def test_the_key_of_a_step_cached_here_holds_its_compilers_bytes(self):
        client = self.client()
        self.write("src/a.cu", "int x;\n")
        keys = []
        for release, body in (("old", "12.2"), ("new", "12.3"), ("copy", "12.2")):
            compiler = self.write(f"{release}/gcc", f"#!/bin/sh\n# gcc {body}\n")
            os.chmod(compiler, 0o755)
            keys.append(client.base_key(self.preprocess("b1", path=os.path.dirname(compiler))[0]))
        self.assertNotEqual(keys[0], keys[1])  # another gcc at the same name: another key
        self.assertEqual(keys[0], keys[2])  # the same bytes elsewhere: the same key


if __name__ == "__main__":
    unittest.main()
