#!/usr/bin/env python3
"""Every source file compiles on its own: each project name it uses is
declared in a header it includes, directly or through the headers those
include.

The builds of tests/run_all.sh are unity builds (each target one file),
where a missing #include hides behind an earlier file's; the README's demo
builds file by file, and broke on one (ninja-gen/fragment.cc used dyndep.h's
LookupDyndepText without including it). A compiler finds this exactly at the
price of a second build; this finds it in a second, from the names that
project headers declare at namespace scope (functions, types, constants) and
the names each file uses outside comments and strings, not as a member
(`.Name`, `->Name`, `Class::Name`).

usage: check_includes.py FASTCUDA_SOURCE_DIR
"""
import os
import re
import sys

ROOTS = ("src", "ninja-gen", "tests")
TOKEN = re.compile(
    r'R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"'  # raw string
    r'|"(?:\\.|[^"\\\n])*"'  # string
    r"|'(?:\\.|[^'\\\n])*'"  # character
    r"|//[^\n]*|/\*.*?\*/"  # comments
    r"|^[ \t]*#[^\n]*(?:\\\n[^\n]*)*"  # preprocessor lines
    r"|(?P<word>[A-Za-z_]\w*)|(?P<punct>::|->|[{}();=.<>,])",
    re.S | re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TYPE_KEYWORDS = {"struct", "class", "enum", "union"}
PROJECT_NAME = re.compile(r"k?[A-Z]\w*$")  # the style's functions, types and constants


def tokens(text):
    """The words and punctuation of C++ text, without comments, strings and
    preprocessor lines: (kind, text) pairs."""
    for match in TOKEN.finditer(text):
        if match.group("word"):
            yield "word", match.group("word")
        elif match.group("punct"):
            yield "punct", match.group("punct")


def declared_names(text):
    """Names declared at namespace scope: a function's name before its '(',
    a type after struct/class/enum/using, a constant before '=' or '{'."""
    names = set()
    scopes = []  # True for a namespace's brace
    parens = 0
    previous = (None, None)  # the token before: (kind, text)
    pending_namespace = False
    for kind, text_ in tokens(text):
        at_namespace_scope = all(scopes) and parens == 0
        if kind == "word":
            if text_ == "namespace":
                pending_namespace = True
            if at_namespace_scope and previous[1] in TYPE_KEYWORDS | {"using"}:
                names.add(text_)
        elif text_ == "{":
            if at_namespace_scope and previous[0] == "word" and not pending_namespace:
                names.add(previous[1])  # a constant's braced initializer, or a definition's body
            scopes.append(pending_namespace)
            pending_namespace = False
        elif text_ == "}":
            if scopes:
                scopes.pop()
        elif text_ == "(":
            if at_namespace_scope and previous[0] == "word":
                names.add(previous[1])
            parens += 1
        elif text_ == ")":
            parens = max(parens - 1, 0)
        elif text_ in ("=", ";") and at_namespace_scope and previous[0] == "word":
            names.add(previous[1])
            pending_namespace = False
        previous = (kind, text_)
    return {name for name in names if PROJECT_NAME.match(name)}


def used_names(text):
    """Names used other than as a member or through a class."""
    names = set()
    before = [("punct", ";"), ("punct", ";")]  # the two tokens before
    for token in tokens(text):
        kind, word = token
        if kind == "word":
            member = before[1][1] in (".", "->")
            through_class = before[1][1] == "::" and before[0][0] == "word" and before[0][1] != "fastcuda"
            if not member and not through_class:
                names.add(word)
        before = [before[1], token]
    return names


def main(source_dir):
    os.chdir(source_dir)
    files = {}
    for root in ROOTS:
        for directory, _, names in os.walk(root):
            for name in names:
                if name.endswith((".h", ".cc")):
                    path = os.path.join(directory, name)
                    with open(path, encoding="utf-8") as f:
                        files[path] = f.read()
    includes = {path: [i for i in INCLUDE.findall(text) if i in files] for path, text in files.items()}
    declared = {path: declared_names(text) for path, text in files.items()}
    declared_in = {}
    for path, names in declared.items():
        if path.endswith(".h"):
            for name in names:
                declared_in.setdefault(name, set()).add(path)

    def reachable(path):
        seen, stack = set(), [path]
        while stack:
            for included in includes[stack.pop()]:
                if included not in seen:
                    seen.add(included)
                    stack.append(included)
        return seen

    missing = 0
    for path, text in sorted(files.items()):
        visible = reachable(path) | {path}
        for name in sorted(used_names(text) - declared[path]):
            headers = declared_in.get(name)
            if headers and not headers & visible:
                print(f"{path} uses {name}, declared in {', '.join(sorted(headers))}, which it does not include")
                missing += 1
    print(f"includes: {len(files)} files, {missing} names used without their header")
    return 1 if missing or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
