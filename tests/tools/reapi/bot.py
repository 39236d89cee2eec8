#!/usr/bin/env python3
"""A test tool, not part of FastCuda: a bot for BuildGrid's Bots API (there
are no buildbox tools for Debian 12 or on PyPI), for
tests/integration/reapi_steps.sh. It takes one lease at a time and runs its
action without a sandbox in a fresh temporary directory: the inputs come from
the CAS, the outputs, stdout and stderr go back to it, so that every file a
step reads or writes travels through the server. Each action run appends
`ran ARGV0-BASENAME OUTPUTS...` to the log file.

With --hold SECONDS it says `bot: holding lease ID` on stdout when it takes
a lease and waits that long before running it, silent to the server: the
test kills it there, as a machine lost while it holds a step.

With --busy SECONDS its first action takes that much longer (a long
step), the bot talking to the server meanwhile as for any action.

While it runs an action it keeps calling UpdateBotSession (the lease
ACTIVE): the server takes a bot silent past its keepalive for lost, and a
step longer than that (a heavy cicc) would otherwise lose its bot, and the
next bot, for good. Where the server has dropped its session all the same,
it opens a new one.

With --timings FILE it appends a line per action: when the bot took its
lease, the seconds it spent fetching the inputs, running the tool and
sending the outputs, when it reported the result (time.time()), the
tool's name and its first output: what a worker spends beside the tool,
and when, beside the client's records of the same steps
(bench/remote_build.sh).

With --token-file FILE it sends `authorization: Bearer TOKEN`, the file's
text, with every call (a server that checks JWTs).

usage: bot.py --remote URL --log FILE [--instance NAME] [--workdir DIR] [--hold SECONDS] [--busy SECONDS]
              [--token-file FILE] [--timings FILE]
"""
import argparse
import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2, bots_pb2_grpc
from buildgrid.server.client.cas import download, upload
from buildgrid.server.client.channel import setup_channel

PENDING, ACTIVE, COMPLETED, CANCELLED = 1, 2, 4, 5  # bots_pb2.LeaseState
BOT_OK = 1  # bots_pb2.BotStatus.OK
# The server long-polls UpdateBotSession for 80% of this (and assigns no lease
# where that is under 3 s); it must stay well under the server's
# bot-session-keepalive-timeout, past which a silent bot is taken for lost and
# its lease requeued.
POLL_S = 5


def run_action(channel, instance, action, workroot, log, timing):
    """Runs `action`, putting in `timing` the tool's name and the seconds its
    inputs, its run and its outputs took."""
    root = tempfile.mkdtemp(prefix="action-", dir=workroot)
    try:
        start = time.time()
        with download(channel, instance=instance) as dl:
            command = dl.get_message(action.command_digest, re_pb2.Command())
            dl.download_directory(action.input_root_digest, root)
        timing["inputs"] = time.time() - start
        cwd = os.path.join(root, command.working_directory)
        outputs = list(command.output_paths) or list(command.output_files) + list(command.output_directories)
        for path in outputs:  # REAPI: the worker makes the outputs' directories
            os.makedirs(os.path.dirname(os.path.join(cwd, path)) or cwd, exist_ok=True)
        env = {e.name: e.value for e in command.environment_variables}
        start = time.time()
        try:
            proc = subprocess.run(list(command.arguments), cwd=cwd, env=env, capture_output=True,
                                  stdin=subprocess.DEVNULL, timeout=action.timeout.seconds or None)
            exit_code, out, err = proc.returncode, proc.stdout, proc.stderr
        except OSError as e:
            exit_code, out, err = 127, b"", f"bot: {e}\n".encode()
        except subprocess.TimeoutExpired as e:
            exit_code, out, err = 124, e.stdout or b"", (e.stderr or b"") + b"bot: timeout\n"
        timing["run"], timing["tool"] = time.time() - start, os.path.basename(command.arguments[0])
        timing["output"] = outputs[0] if outputs else "-"
        with open(log, "a") as f:
            f.write(f"ran {os.path.basename(command.arguments[0])} {' '.join(outputs)}\n")
        start = time.time()

        result = re_pb2.ActionResult(exit_code=exit_code)
        with upload(channel, instance=instance) as up:
            result.stdout_digest.CopyFrom(up.put_blob(io.BytesIO(out)))
            result.stderr_digest.CopyFrom(up.put_blob(io.BytesIO(err)))
            for path in outputs:
                full = os.path.join(cwd, path)
                if os.path.isfile(full):
                    digest = up.upload_file(full, queue=False)
                    result.output_files.add(path=path, digest=digest, is_executable=os.access(full, os.X_OK))
            up.flush()
        timing["outputs"] = time.time() - start
        return result
    finally:
        shutil.rmtree(root, ignore_errors=True)


def action_of(channel, instance, lease):
    action = re_pb2.Action()
    if lease.payload.Is(re_pb2.Action.DESCRIPTOR):
        lease.payload.Unpack(action)
        return action
    digest = re_pb2.Digest()
    lease.payload.Unpack(digest)
    with download(channel, instance=instance) as dl:
        return dl.get_message(digest, action)


def new_session(stub, instance):
    session = bots_pb2.BotSession(bot_id=f"{socket.gethostname()}-{os.getpid()}", status=BOT_OK)
    # Under 3.75 s the server does not long-poll for a first lease (it waits
    # for 80% of the deadline, and not under 3 s): the session comes at once.
    session = stub.CreateBotSession(bots_pb2.CreateBotSessionRequest(parent=instance, bot_session=session),
                                    timeout=3.5)
    print(f"bot: session {session.name}", flush=True)
    return session


def keep_alive(stub, session, done):
    """Until done is set, tells the server every POLL_S / 2 that the bot
    still holds its lease (at capacity, the call returns at once)."""
    while not done.wait(POLL_S / 2):
        try:
            stub.UpdateBotSession(bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session),
                                  timeout=POLL_S)
        except Exception as e:  # the next call, or the result's, says more
            print(f"bot: keeping its lease: {e!r}", file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--remote", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--instance", default="")
    ap.add_argument("--workdir", default=tempfile.gettempdir())
    ap.add_argument("--hold", type=float, default=0)
    ap.add_argument("--busy", type=float, default=0)
    ap.add_argument("--token-file")
    ap.add_argument("--timings")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    channel, _ = setup_channel(a.remote, auth_token=a.token_file)
    stub = bots_pb2_grpc.BotsStub(channel)
    session = new_session(stub, a.instance)
    while True:
        for lease in session.leases:
            if lease.state not in (PENDING, ACTIVE):
                continue
            if a.hold:
                print(f"bot: holding lease {lease.id}", flush=True)
                time.sleep(a.hold)
            taken, timing = time.time(), {}
            lease.state = ACTIVE
            beat, done = bots_pb2.BotSession(), threading.Event()
            beat.CopyFrom(session)  # its own copy: the lease below changes as the thread sends
            beating = threading.Thread(target=keep_alive, args=(stub, beat, done), daemon=True)
            beating.start()
            try:
                time.sleep(a.busy)
                a.busy = 0
                result = run_action(channel, a.instance, action_of(channel, a.instance, lease), a.workdir, a.log,
                                    timing)
                lease.status.code = 0
                lease.result.Pack(result)
            except Exception as e:  # the server reports it to the client
                lease.status.code = 13  # INTERNAL
                lease.status.message = f"bot: {e!r}"
                print(f"bot: lease {lease.id} failed: {e!r}", file=sys.stderr, flush=True)
            finally:
                done.set()
                beating.join()
            lease.state = COMPLETED
            if a.timings and "outputs" in timing:
                with open(a.timings, "a") as f:  # the result goes with the next UpdateBotSession
                    f.write(f"{taken:.3f} {timing['inputs']:.3f} {timing['run']:.3f} {timing['outputs']:.3f} "
                            f"{time.time():.3f} {timing['tool']} {timing['output']}\n")
        keep = [lease for lease in session.leases if lease.state != CANCELLED]
        del session.leases[:]
        session.leases.extend(keep)
        try:
            session = stub.UpdateBotSession(bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session),
                                            timeout=POLL_S)
        except Exception as e:  # the long poll's deadline, or the server away a while: ask again
            code = str(getattr(e, "code", lambda: "")())
            if "DEADLINE_EXCEEDED" not in code:
                print(f"bot: UpdateBotSession: {e!r}", file=sys.stderr, flush=True)
                time.sleep(1)
            if "INVALID_ARGUMENT" in code or "NOT_FOUND" in code:  # its session closed: a new one
                session = new_session(stub, a.instance)


if __name__ == "__main__":
    main()
