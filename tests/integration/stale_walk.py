#!/usr/bin/env python3
"""Never a stale object, by random walk: a small project is edited step by step
the way users edit (header and source values, device-only branches, comments,
touches, a file restored to an earlier text, or to an older mtime with its
objects removed or beside an edit of a host-only header, a header given a
future mtime, an edit that breaks the build undone with its old mtime, a
new header that shadows another, an include added and
dropped, a changed define, ptxas option, response file, CPATH,
NVCC_APPEND_FLAGS, PTXAS_FLAGS (a variable of nvcc.profile) or the host
compiler behind -ccbin's symlink (g++ or clang++), a kept intermediate or an object deleted, plain `ninja`
between `fastcuda ninja` runs, one object built alone as an IDE does). After
every step FastCuda builds it (as a launcher, `fastcuda build --compdb`, the
CMake module under Ninja, Ninja Multi-Config (Debug and Release in turn) or
Makefiles, or `fastcuda ninja`), and every object it made must equal what
nvcc writes now from the same command: device code (.nv_fatbin or
__nv_relfatbin) and host symbols (nm; the kernels store the values the edits
change, and each TU's host function is named after one), and nothing may be
left in TMPDIR (an interrupted cicc's file). The walk, its seed and the
failing step are printed; the scratch directory is kept on failure.

usage: stale_walk.py FASTCUDA NVCC [--modes M,...] [--steps N] [--seed S]
  modes: launcher graph module module_multi module_make ninja (default: all)"""
import argparse
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
CMAKE_MODES = ("module", "module_multi", "module_make", "ninja")
GENERATORS = {"module_multi": "Ninja Multi-Config", "module_make": "Unix Makefiles"}
CONFIGS = ("Debug", "Release")
TUS = ("a", "b", "c")
ARCHITECTURES = ("80-real;90-virtual", "80-real;86-real")
FIRST_FLAGS = {"extra": None, "lineinfo": False, "rdc": False, "archs": ARCHITECTURES[0], "ptxas_o0": False}
OLD_TIME = time.mktime((2020, 1, 1, 0, 0, 0, 0, 0, -1))
# What every TU's host pass alone reads: its edit rebuilds every object
# (nvcc run whole reruns), but no device pass reads it.
HOST_ONLY = ("#ifndef __CUDA_ARCH__\n#include \"host_only.h\"\n"
             "int CAT(host_only_, HOST_ONLY)() { return 0; }\n#endif\n")


def project_files(mode):
    """The project's first texts, by path under the project directory."""
    files = {
        "inc/common.h": "#define DEV_VALUE 1\n#define HOST_TAG 1\n",
        "inc/arch.h": "#ifdef __CUDA_ARCH__\n#define ARCH_VALUE 1\n#else\n#define ARCH_VALUE 0\n#endif\n",
        "inc/defaults.h": ("#define CAT2(a, b) a##b\n#define CAT(a, b) CAT2(a, b)\n"
                           "#ifndef EXTRA\n#define EXTRA 0\n#endif\n#ifndef RSP\n#define RSP 0\n#endif\n"
                           "#ifndef APPENDED\n#define APPENDED 0\n#endif\n"
                           "#ifdef NDEBUG\n#define CONFIG_VALUE 2\n#else\n#define CONFIG_VALUE 1\n#endif\n"),
        "inc/extra.h": "#define EXTRA_H_VALUE 1\n",
        "inc/host_only.h": "#define HOST_ONLY 1\n",
        "second/shadow.h": "#define SHADOW 1\n",
        "a.cu": ("#include \"common.h\"\n#include \"arch.h\"\n#include \"defaults.h\"\n#define A_VALUE 1\n"
                 "__global__ void ka(int *p) { p[0] = DEV_VALUE; p[1] = ARCH_VALUE; p[2] = A_VALUE; p[3] = EXTRA; }\n"
                 "int CAT(host_a_, HOST_TAG)() { return 0; }\nvoid run_a(int *p) { ka<<<1, 1>>>(p); }\n" + HOST_ONLY),
        "b.cu": ("#include \"common.h\"\n#include \"shadow.h\"\n#include \"defaults.h\"\n"
                 "__global__ void kb(int *p) { p[0] = DEV_VALUE; p[1] = SHADOW; p[2] = RSP; p[3] = CONFIG_VALUE; }\n"
                 "int CAT(host_b_, SHADOW)() { return 0; }\nvoid run_b(int *p) { kb<<<1, 1>>>(p); }\n" + HOST_ONLY),
        "c.cu": ("#include \"defaults.h\"\n#if __has_include(<env.h>)\n#include <env.h>\n#else\n#define ENV_VALUE 0\n"
                 "#endif\n#ifndef EXTRA_H_VALUE\n#define EXTRA_H_VALUE 0\n#endif\n"
                 "__global__ void kc(int *p) { p[0] = ENV_VALUE; p[1] = EXTRA_H_VALUE; p[2] = EXTRA; p[3] = APPENDED; }\n"
                 "int CAT(host_c_, ENV_VALUE)() { return 0; }\nvoid run_c(int *p) { kc<<<1, 1>>>(p); }\n" + HOST_ONLY),
    }
    if mode in CMAKE_MODES:
        files["flags.cmake"] = flags_cmake(FIRST_FLAGS)
        files["CMakeLists.txt"] = (
            "cmake_minimum_required(VERSION 3.25)\nproject(walk LANGUAGES CUDA)\n"
            "include(${CMAKE_SOURCE_DIR}/flags.cmake)\nadd_library(walk STATIC a.cu b.cu c.cu)\n"
            "target_include_directories(walk PRIVATE ${CMAKE_SOURCE_DIR}/inc ${CMAKE_SOURCE_DIR}/first "
            "${CMAKE_SOURCE_DIR}/second)\n")
    else:
        files["o.rsp"] = "-DRSP=1\n"
        files["env1/env.h"] = "#define ENV_VALUE 1\n"
        files["env2/env.h"] = "#define ENV_VALUE 2\n"
    return files


def flags_cmake(flags):
    """The project's flags as CMake sets them (flags.cmake, included before
    the target is made)."""
    text = f'set(CMAKE_CUDA_ARCHITECTURES "{flags["archs"]}")\n'
    if flags["extra"] is not None:
        text += f"add_compile_definitions(EXTRA={flags['extra']})\n"
    if flags["lineinfo"]:
        text += "add_compile_options(-lineinfo)\n"
    if flags["rdc"]:
        text += "set(CMAKE_CUDA_SEPARABLE_COMPILATION ON)\n"
    if flags["ptxas_o0"]:
        text += "add_compile_options(--ptxas-options=-O0)\n"
    return text


def flags_of_cmake(text):
    """The flags a flags.cmake text sets (flags_cmake's inverse)."""
    extra = re.search(r"EXTRA=(\d+)", text)
    return {"extra": int(extra.group(1)) if extra else None, "lineinfo": "-lineinfo" in text,
            "rdc": "SEPARABLE_COMPILATION ON" in text, "ptxas_o0": "--ptxas-options=-O0" in text,
            "archs": re.search(r'CMAKE_CUDA_ARCHITECTURES "([^"]*)"', text).group(1)}


def nvcc_flags(flags):
    """The same flags as an nvcc command's words."""
    words = []
    for arch in flags["archs"].split(";"):
        number, kind = arch.split("-")
        code = f"sm_{number}" if kind == "real" else f"compute_{number}"
        words += ["-gencode", f"arch=compute_{number},code={code}"]
    if flags["extra"] is not None:
        words.append(f"-DEXTRA={flags['extra']}")
    if flags["lineinfo"]:
        words.append("-lineinfo")
    if flags["rdc"]:
        words.append("-rdc=true")
    if flags["ptxas_o0"]:
        words.append("--ptxas-options=-O0")
    return words


def run(argv, cwd, env=None, check=True):
    result = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} (in {cwd}) failed with {result.returncode}:\n{result.stdout[-4000:]}")
    return result


def device_code(obj, scratch):
    out = os.path.join(scratch, "section.bin")
    run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", "--only-section=__nv_relfatbin", obj, out], scratch)
    with open(out, "rb") as f:
        return f.read()


def host_symbols(obj, scratch):
    # nvcc names a TU's static initializer after its temporary file (other on
    # every run); FastCuda's stable temporaries give it NAME.cudafe1.cpp
    text = run(["nm", obj], scratch).stdout
    return re.sub(r"_GLOBAL__sub_I_tmpxft_[0-9a-f]*_[0-9a-f]*_[0-9]*_", "_GLOBAL__sub_I_", text)


def nvcc_words(command):
    """The words of an nvcc command from a compile database, from nvcc on
    (a launcher in front dropped), without the dependency file options, whose
    file belongs to the build."""
    words = shlex.split(command)
    while words and os.path.basename(words[0]) != "nvcc":
        words.pop(0)
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in ("-MD", "-MMD"):
            continue
        elif word in ("-MT", "-MF"):
            skip = True
        else:
            kept.append(word)
    return kept


def with_output(words, output):
    i = words.index("-o")
    return words[:i + 1] + [output] + words[i + 2:]


class Walk:
    def __init__(self, mode, fastcuda, nvcc, scratch, rng, log):
        self.mode, self.fastcuda, self.nvcc, self.rng, self.log = mode, fastcuda, nvcc, rng, log
        self.dir = os.path.join(scratch, mode)
        self.proj = os.path.join(self.dir, "proj")
        self.build = os.path.join(self.dir, "build")
        self.refs = os.path.join(self.dir, "refs")
        self.files = project_files(mode)
        self.earlier = {path: [] for path in self.files}
        self.flags = dict(FIRST_FLAGS)
        self.cpath = "env1"
        self.appended = None
        self.ptxas_flags = None  # PTXAS_FLAGS, which nvcc.profile appends to ptxas's options
        self.host_compiler = shutil.which("g++")  # what cc/c++, which -ccbin names, links to
        self.early_host = False
        self.config = CONFIGS[0]
        self.reference_cache = {}
        self.values = 1
        for d in (self.proj, self.build, self.refs):
            os.makedirs(d, exist_ok=True)
        for path in self.files:
            self.write(path, self.files[path], remember=False)
        os.makedirs(os.path.join(self.proj, "first"), exist_ok=True)
        self.env = dict(os.environ)
        if mode in CMAKE_MODES:
            self.configure()
        else:
            self.link_host_compiler()

    # -- the project ---------------------------------------------------
    def write(self, path, text, remember=True, mtime=None):
        if remember and path in self.files:
            self.earlier.setdefault(path, []).append(self.files[path])
        self.files[path] = text
        if path == "flags.cmake":  # an earlier text restored brings its flags back
            self.flags = flags_of_cmake(text)
        full = os.path.join(self.proj, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
        if mtime is not None:
            os.utime(full, (mtime, mtime))

    def remove(self, path):
        self.files.pop(path, None)
        os.remove(os.path.join(self.proj, path))

    def new_value(self):
        self.values += 1
        return self.values

    def set_define(self, path, name, value):
        text, count = re.subn(rf"#define {name} \d+", f"#define {name} {value}", self.files[path], count=1)
        assert count == 1, (path, name)
        self.write(path, text)

    def configure(self):
        args = ["cmake", "-S", self.proj, "-B", self.build, "-DCMAKE_CUDA_ARCHITECTURES=80-real",
                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", f"-DCMAKE_CUDA_COMPILER={self.nvcc}"]
        args += ["-G", GENERATORS.get(self.mode, "Ninja")]
        if self.mode != "ninja":
            args += [f"-DCMAKE_PROJECT_INCLUDE={SOURCE_DIR}/cmake/FastCuda.cmake",
                     f"-DFASTCUDA_EXECUTABLE={self.fastcuda}"]
        run(args, self.dir)

    # -- the commands --------------------------------------------------
    def commands(self, every_config=False):
        """(directory, nvcc words, object) of every TU, as built now (in the
        configuration built now, or in every one)."""
        if self.mode in CMAKE_MODES:
            with open(os.path.join(self.build, "compile_commands.json")) as f:
                entries = json.load(f)
            out = []
            for entry in entries:
                words = nvcc_words(entry["command"])
                if self.mode == "module_multi" and not every_config and \
                        f'-DCMAKE_INTDIR="{self.config}"' not in words:
                    continue
                obj = os.path.join(entry["directory"], words[words.index("-o") + 1])
                out.append((entry["directory"], words, obj))
            return sorted(out, key=lambda c: c[2])
        flags = [self.nvcc] + nvcc_flags(self.flags) + ["-Iinc", "-Ifirst", "-Isecond", "--options-file", "o.rsp",
                                                        "-ccbin", "cc/c++"]
        return [(self.proj, flags + ["-c", f"{tu}.cu", "-o", f"{tu}.o"], os.path.join(self.proj, f"{tu}.o"))
                for tu in TUS]

    def step_env(self):
        env = dict(self.env)
        env["FASTCUDA_EARLY_HOST"] = "on" if self.early_host else "off"
        if self.mode not in CMAKE_MODES:
            env["CPATH"] = os.path.join(self.proj, self.cpath)
            env.pop("NVCC_APPEND_FLAGS", None)
            if self.appended is not None:
                env["NVCC_APPEND_FLAGS"] = f"-DAPPENDED={self.appended}"
            env.pop("PTXAS_FLAGS", None)
            if self.ptxas_flags is not None:
                env["PTXAS_FLAGS"] = self.ptxas_flags
        return env

    def build_commands(self, only=None, plain_ninja=False):
        """(directory, argv) of each command that builds every TU (or
        `only`), in turn: a launcher call per TU, else one build."""
        if self.mode == "launcher":
            return [(directory, [self.fastcuda] + words) for directory, words, _ in self.commands()]
        if self.mode == "graph":
            entries = [{"directory": d, "file": w[w.index("-c") + 1], "command": shlex.join(w)}
                       for d, w, _ in self.commands()]
            with open(os.path.join(self.dir, "db.json"), "w") as f:
                json.dump(entries, f)
            return [(self.dir, [self.fastcuda, "build", "--compdb", "db.json", "--out", self.build])]
        if self.mode == "ninja":
            target = [os.path.relpath(only, self.build)] if only else []
            ninja = ["ninja"] if plain_ninja else [self.fastcuda, "ninja"]
            return [(self.dir, ninja + ["-C", self.build] + target)]
        argv = ["cmake", "--build", self.build]
        if self.mode == "module_multi":
            argv += ["--config", self.config]
        if only and self.mode != "module_make":
            argv += ["--target", os.path.relpath(only, self.build)]
        return [(self.dir, argv)]

    def build_all(self, only=None, interrupt_after=None):
        """Builds every TU (or `only`); with `interrupt_after`, a build
        interrupted (SIGINT to its process group, as Ctrl-C) that many
        seconds in, then the build."""
        if interrupt_after is not None:
            self.interrupted_build(interrupt_after)
        plain_ninja = self.mode == "ninja" and self.rng.random() < 0.25
        if plain_ninja:
            self.log("  (plain ninja)")
        for directory, argv in self.build_commands(only, plain_ninja):
            run(argv, directory, self.step_env())

    def interrupted_build(self, seconds):
        """One of the build's commands (a launcher call, or the build),
        interrupted after `seconds`."""
        commands = self.build_commands()
        directory, argv = self.rng.choice(commands) if self.mode == "launcher" else commands[0]
        process = subprocess.Popen(argv, cwd=directory, env=self.step_env(), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGINT)
            process.wait()

    def reference(self, directory, words):
        """nvcc's object from `words` now, made once for the texts it can read
        (every file but the other TUs' sources), their mtimes where ptxas
        writes line information, CPATH and NVCC_APPEND_FLAGS."""
        readable = sorted((path, text) for path, text in self.files.items()
                          if not path.endswith(".cu") or any(w == path or w.endswith("/" + path) for w in words))
        # ptxas writes the sources' mtimes into the line table. The command's
        # words say whether it asks for one: flags.cmake restored to an
        # earlier text can hold -lineinfo where the walk's flags do not.
        if "-lineinfo" in words:
            readable = [(path, text, os.stat(os.path.join(self.proj, path)).st_mtime_ns) for path, text in readable]
        key = hashlib.sha256(json.dumps([words, self.cpath, self.appended, self.ptxas_flags, self.host_compiler,
                                         readable]).encode()).hexdigest()
        if key not in self.reference_cache:
            ref = os.path.join(self.refs, f"{key[:16]}.o")
            run(with_output(words, ref), directory, self.step_env())
            self.reference_cache[key] = ref
        return self.reference_cache[key]

    def stale_objects(self, only=None):
        """The objects that differ from nvcc's now (or are missing)."""
        stale = []
        for directory, words, obj in self.commands():
            if only and obj != only:
                continue
            if not os.path.exists(obj):
                stale.append(f"{obj}: missing")
                continue
            ref = self.reference(directory, words)
            if device_code(obj, self.dir) != device_code(ref, self.dir):
                stale.append(f"{obj}: device code differs from nvcc's")
            elif host_symbols(obj, self.dir) != host_symbols(ref, self.dir):
                stale.append(f"{obj}: host symbols differ from nvcc's")
        return stale

    def left_in_tmpdir(self):
        """What the build left in TMPDIR (an interrupted cicc's file, a
        stopped dryrun's directory), but the temporaries of an nvcc run
        whole (a fallback, CMake's own calls), which nvcc stopped as it
        starts leaves without FastCuda too."""
        return [f"left in TMPDIR: {name}" for name in os.listdir(self.env["TMPDIR"])
                if not name.startswith("tmpxft_")]

    def comparison_fails(self):
        """Nothing, where the comparison finds an object of another TU in
        each object's place (a check that cannot fail checks nothing)."""
        objects = self.objects()
        saved = {obj: (open(obj, "rb").read(), os.stat(obj)) for obj in objects}
        try:
            for obj, other in zip(objects, objects[1:] + objects[:1]):
                shutil.copyfile(other, obj)
            missed = len(objects) - len(self.stale_objects())
        finally:
            for obj, (data, stat) in saved.items():
                with open(obj, "wb") as f:
                    f.write(data)
                os.utime(obj, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        return [f"the comparison took {missed} objects of other TUs for nvcc's"] if missed else []

    def objects(self, every_config=False):
        return [obj for _, _, obj in self.commands(every_config)]

    def remove_objects(self):
        for obj in self.objects(every_config=True):
            if os.path.exists(obj):
                os.remove(obj)

    # -- the edits -----------------------------------------------------
    def edits(self):
        edits = [self.dev_value, self.host_tag, self.arch_value, self.source_value, self.comment, self.touch,
                 self.earlier_text, self.older_mtime, self.older_mtime_beside_host_edit, self.future_mtime,
                 self.failing_edit_undone, self.shadow, self.extra_include, self.extra_h, self.define,
                 self.lineinfo, self.relocatable, self.architectures, self.ptxas_option,
                 self.remove_object, self.toggle_early_host, self.nothing]
        if self.mode in ("launcher", "graph"):
            edits += [self.response_file, self.switch_cpath, self.env_header, self.append_flags,
                      self.ptxas_flags_variable, self.switch_host_compiler]
        if self.mode != "launcher":
            edits.append(self.remove_intermediate)
        return edits

    def dev_value(self):
        self.set_define("inc/common.h", "DEV_VALUE", self.new_value())
        return "common.h: a new DEV_VALUE"

    def host_tag(self):
        self.set_define("inc/common.h", "HOST_TAG", self.new_value())
        return "common.h: a new HOST_TAG (a host function's name)"

    def arch_value(self):
        self.set_define("inc/arch.h", "ARCH_VALUE", self.new_value())  # the first, the device branch's
        return "arch.h: a new value in the #ifdef __CUDA_ARCH__ branch"

    def source_value(self):
        self.set_define("a.cu", "A_VALUE", self.new_value())
        return "a.cu: a new A_VALUE"

    def comment(self):
        path = self.rng.choice(sorted(p for p in self.files if p.endswith((".h", ".cu"))))
        self.write(path, self.files[path] + f"// comment {self.new_value()}\n")
        return f"{path}: a comment added"

    def touch(self):
        path = self.rng.choice(sorted(p for p in self.files if p.endswith((".h", ".cu"))))
        os.utime(os.path.join(self.proj, path))
        return f"{path}: touched"

    def restorable(self):
        return sorted(p for p, texts in self.earlier.items()
                      if p in self.files and any(t != self.files[p] for t in texts))

    def restore_earlier(self, mtime=None):
        """Gives a file that had another text one of its earlier texts (with
        `mtime`); its path, or None where none had."""
        paths = self.restorable()
        if not paths:
            return None
        path = self.rng.choice(paths)
        self.write(path, self.rng.choice([t for t in self.earlier[path] if t != self.files[path]]), mtime=mtime)
        return path

    def earlier_text(self):
        path = self.restore_earlier()
        if path is None:
            return self.comment()
        return f"{path}: an earlier text restored (mtime now)"

    def older_mtime(self):
        path = self.restore_earlier(OLD_TIME)
        if path is None:
            return self.comment()
        if self.mode == "launcher":
            return f"{path}: an earlier text restored with a 2020 mtime"
        self.remove_objects()
        return f"{path}: an earlier text restored with a 2020 mtime, the objects removed"

    def older_mtime_beside_host_edit(self):
        path = self.restore_earlier(OLD_TIME)
        if path is None:
            return self.comment()
        self.set_define("inc/host_only.h", "HOST_ONLY", self.new_value())
        return f"{path}: an earlier text restored with a 2020 mtime; host_only.h edited"

    def future_mtime(self):
        path = self.rng.choice(sorted(p for p in self.files if p.endswith(".h")))
        future = time.time() + 3600
        os.utime(os.path.join(self.proj, path), (future, future))
        return f"{path}: given an mtime an hour ahead, unchanged"

    def failing_edit_undone(self):
        """A header edit that fails the build, then the header as it was,
        mtime too (cp -p of a saved copy)."""
        path = self.rng.choice(["inc/common.h", "inc/arch.h", "inc/defaults.h"])
        full = os.path.join(self.proj, path)
        before, good = os.stat(full), self.files[path]
        self.write(path, good + "int broken = ;\n", remember=False)
        try:
            self.build_all()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(f"a build with a broken {path} succeeded")
        self.write(path, good, remember=False, mtime=before.st_mtime)
        return f"{path}: an edit that fails the build, then undone with its old mtime"

    def shadow(self):
        if "first/shadow.h" in self.files:
            self.remove("first/shadow.h")
            return "first/shadow.h removed (second/shadow.h seen again)"
        self.write("first/shadow.h", f"#define SHADOW {self.new_value()}\n")
        if self.mode == "launcher":
            return "first/shadow.h created, shadowing second/shadow.h"
        self.remove_objects()  # no depfile names a file that did not exist: plain nvcc builds miss it too
        return "first/shadow.h created, shadowing second/shadow.h, the objects removed"

    def extra_include(self):
        line = "#include \"extra.h\"\n"
        text = self.files["c.cu"]
        self.write("c.cu", text.replace(line, "") if line in text else line + text)
        return "c.cu: #include \"extra.h\" " + ("dropped" if line in text else "added")

    def extra_h(self):
        self.set_define("inc/extra.h", "EXTRA_H_VALUE", self.new_value())
        return "extra.h: a new value"

    def set_flag(self, name, value):
        self.flags[name] = value
        if self.mode in CMAKE_MODES:
            self.write("flags.cmake", flags_cmake(self.flags))

    def define(self):
        dropped = self.flags["extra"] is not None and self.rng.random() < 0.4
        self.set_flag("extra", None if dropped else self.new_value())
        return "-DEXTRA " + ("dropped" if dropped else f"set to {self.flags['extra']}")

    def lineinfo(self):
        self.set_flag("lineinfo", not self.flags["lineinfo"])
        return "-lineinfo " + ("added" if self.flags["lineinfo"] else "dropped")

    def relocatable(self):
        self.set_flag("rdc", not self.flags["rdc"])
        return "relocatable device code " + ("on" if self.flags["rdc"] else "off")

    def architectures(self):
        self.set_flag("archs", ARCHITECTURES[1 - ARCHITECTURES.index(self.flags["archs"])])
        return f"architectures {self.flags['archs']}"

    def ptxas_option(self):
        self.set_flag("ptxas_o0", not self.flags["ptxas_o0"])
        return "--ptxas-options=-O0 " + ("added" if self.flags["ptxas_o0"] else "dropped")

    def append_flags(self):
        dropped = self.appended is not None and self.rng.random() < 0.4
        self.appended = None if dropped else self.new_value()
        return "NVCC_APPEND_FLAGS " + ("unset" if dropped else f"-DAPPENDED={self.appended}")

    def response_file(self):
        self.write("o.rsp", f"-DRSP={self.new_value()}\n")
        return "o.rsp: a new -DRSP"

    def ptxas_flags_variable(self):
        self.ptxas_flags = "-O1" if self.ptxas_flags is None else None
        return "PTXAS_FLAGS " + ("unset" if self.ptxas_flags is None else self.ptxas_flags)

    def switch_host_compiler(self):
        clang = shutil.which("clang++")
        if clang is None:
            return self.nothing()
        gcc = shutil.which("g++")
        self.host_compiler = clang if self.host_compiler == gcc else gcc
        self.link_host_compiler()
        return f"cc/c++ now links to {self.host_compiler}"

    def link_host_compiler(self):
        link = os.path.join(self.proj, "cc", "c++")
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(self.host_compiler, link)

    def switch_cpath(self):
        self.cpath = "env2" if self.cpath == "env1" else "env1"
        return f"CPATH now {self.cpath}"

    def env_header(self):
        path = self.rng.choice(["env1/env.h", "env2/env.h"])
        self.set_define(path, "ENV_VALUE", self.new_value())
        return f"{path}: a new value"

    def remove_object(self):
        obj = self.rng.choice(self.objects())
        if os.path.exists(obj):
            os.remove(obj)
        return f"{os.path.basename(obj)} removed"

    def remove_intermediate(self):
        kept = []
        for root, _, names in os.walk(self.build):
            if "CMakeFiles" in root:
                continue  # CMake's own compiler checks
            kept += [os.path.join(root, n) for n in names
                     if re.search(r"\.(ii|ptx|cubin|fatbin|fatbin\.c|stub\.c|cudafe1\.cpp|module_id)$", n)]
        if not kept:
            return self.remove_object()
        victim = self.rng.choice(sorted(kept))
        os.remove(victim)
        return f"an intermediate removed: {os.path.relpath(victim, self.build)}"

    def toggle_early_host(self):
        self.early_host = not self.early_host
        return "FASTCUDA_EARLY_HOST=" + ("on" if self.early_host else "off")

    def switch_config(self):
        self.config = CONFIGS[1 - CONFIGS.index(self.config)]
        return f"the {self.config} configuration built from now"

    def nothing(self):
        return "nothing changed"


def walk_mode(mode, args, scratch):
    rng = random.Random(f"{args.seed}-{mode}")
    lines = []

    def log(line):
        lines.append(line)
        if args.verbose:
            print(line, flush=True)

    walk = Walk(mode, args.fastcuda, args.nvcc, scratch, rng, log)
    log(f"{mode}: seed {args.seed}")
    for step in range(args.steps + 1):
        what = "the first build" if step == 0 else rng.choice(walk.edits())()
        only, interrupt_after = None, None
        if step and mode == "module_multi" and rng.random() < 0.3:
            what += "; " + walk.switch_config()
        if step and mode in ("module", "module_multi", "ninja") and rng.random() < 0.2:
            only = rng.choice(walk.objects())
            what += f"; built alone: {os.path.basename(only)}"
        if step and rng.random() < 0.15:
            interrupt_after = round(rng.uniform(0.3, 4), 1)
            what += f"; a build interrupted after {interrupt_after} s first"
        log(f"  step {step}: {what}")
        try:
            walk.build_all(only, interrupt_after)
            stale = walk.stale_objects(only) + walk.left_in_tmpdir()
            if step == 0 and not stale:
                stale = walk.comparison_fails()
        except RuntimeError as error:
            stale = [f"the build failed: {error}"]
        if stale:
            print("\n".join(lines))
            print("\n".join(f"    STALE {s}" for s in stale))
            return False
    if not args.verbose:
        print("\n".join(lines))
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fastcuda")
    parser.add_argument("nvcc")
    parser.add_argument("--modes", default="launcher,graph,module,module_multi,module_make,ninja")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--seed", default=str(random.randrange(1 << 30)))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    args.fastcuda, args.nvcc = os.path.realpath(args.fastcuda), os.path.abspath(args.nvcc)
    base = os.environ.get("FASTCUDA_TEST_SCRATCH", os.getcwd())
    scratch = os.path.realpath(tempfile.mkdtemp(prefix="stale_walk.", dir=base))
    os.environ["FASTCUDA_STEP_HISTORY"] = os.path.join(scratch, "step-times")
    # what FastCuda's steps (or nvcc) leave in TMPDIR, even when interrupted, is a failure
    os.environ["TMPDIR"] = os.path.join(scratch, "tmp")
    os.makedirs(os.environ["TMPDIR"])
    results = {}
    for mode in args.modes.split(","):
        start = time.time()
        results[mode] = walk_mode(mode, args, scratch)
        print(f"{'PASS' if results[mode] else 'FAIL'} {mode}: {args.steps} steps, seed {args.seed} "
              f"({time.time() - start:.0f} s)", flush=True)
    failed = [m for m, ok in results.items() if not ok]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    if failed:
        print(f"kept: {scratch}")
        return 1
    shutil.rmtree(scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
