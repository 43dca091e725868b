#!/usr/bin/env python3
"""Checks that the modules of src/ depend on each other in one direction.

Each top-level module of the crate (a file src/NAME.rs or a folder
src/NAME/) has a place in LAYERS, bottom first. A module may use modules
of lower layers and of its own layer's line only if that line lists them
together; it may never use a module of a higher layer. A use is any
`crate::NAME` (or `super::NAME` at the top of the crate) outside comments,
so doc links do not count. Run from anywhere: python3 .ci/layers.py
"""
import pathlib
import re
import sys

# Bottom first. Modules on one line are one layer and may not use each
# other either: a line is a set of independent rooms.
LAYERS = [
    ["fingerprint"],
    ["error"],
    ["options", "dtype"],
    ["read"],
    ["block"],
    ["array"],
    ["de", "ser"],
    ["schema", "records"],
    ["batch"],
    ["frame"],
    ["value"],
    ["file"],
    ["lib"],
]

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"
USE = re.compile(r"\bcrate::([a-z_][a-z0-9_]*)")


def module_of(path):
    rel = path.relative_to(SRC)
    if len(rel.parts) == 1:
        return rel.stem  # src/NAME.rs, or lib
    return rel.parts[0]  # src/NAME/...


def code_lines(text):
    """The lines of `text` with comments removed (// and /* */, not in strings)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for line in text.splitlines():
        out, in_str, i = [], False, 0
        while i < len(line):
            c = line[i]
            if in_str:
                if c == "\\":
                    out.append(line[i : i + 2])
                    i += 2
                    continue
                if c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif line.startswith("//", i):
                break
            out.append(c)
            i += 1
        yield "".join(out)


def main():
    layer = {m: n for n, line in enumerate(LAYERS) for m in line}
    crate_names = {module_of(p) for p in SRC.rglob("*.rs")}
    problems = []
    for name in sorted(crate_names - set(layer)):
        problems.append(f"src/{name}: module has no place in LAYERS of .ci/layers.py")
    for path in sorted(SRC.rglob("*.rs")):
        me = module_of(path)
        if me not in layer:
            continue
        code = "\n".join(code_lines(path.read_text()))
        # `use crate::{a::X, b};` names a and b.
        for group in re.finditer(r"\bcrate::\{", code):
            depth, i, names, word = 1, group.end(), [], ""
            while depth and i < len(code):
                c = code[i]
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                if depth == 1 and (c.isalnum() or c == "_"):
                    word += c
                else:
                    if word and depth >= 1 and code[i - len(word) - 1] in "{, \n":
                        names.append(word)
                    word = ""
                i += 1
            line = code.count("\n", 0, group.start()) + 1
            code += "".join(f"\n//@{line} crate::{n}" for n in names)
        for no, line in enumerate(code.split("\n"), 1):
            if line.startswith("//@"):
                no = int(line[3:].split()[0])
            for used in USE.findall(line):
                if used == me or used not in crate_names:
                    continue  # itself, or a re-export at the crate root
                if used not in layer:
                    continue
                if layer[used] >= layer[me]:
                    problems.append(
                        f"{path.relative_to(SRC.parent)}:{no}: `{me}` uses `{used}`, "
                        f"which is {'in its own layer' if layer[used] == layer[me] else 'above it'}"
                    )
    for p in problems:
        print(p)
    print(f"layers.py: {len(crate_names)} modules, {len(problems)} uses against the layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
