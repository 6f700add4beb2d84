#!/usr/bin/env python3
"""Writes a program's hot-text linker script from a profile and a link map.

Usage: hot_text.py PROGRAM MAP PROFILE... > hot-text.ld

PROGRAM is the linked program (its symbol table gives each function's
address), MAP the GNU ld map of that same link (`-Wl,-Map=...`, which gives
the input section and object file at each address), and each PROFILE a
callgrind output file (`--demangle=no --compress-strings=no`) of a run of the
program. The script names the input sections holding every function the runs
executed, hottest first (by the instructions executed in the function itself),
as one output section inserted before .text.

The patterns avoid anything specific to one machine: a section with a
function's own name (`-ffunction-sections`, or a template instance) is named
alone, since the name is the function's; a section with a generic name
(`.text` of an object compiled without `-ffunction-sections`, such as
Debian's gRPC archives) is named with its archive and member.
"""

import bisect
import collections
import os
import re
import subprocess
import sys

GENERIC = {".text", ".text.unlikely", ".text.startup", ".text.hot", ".text.exit"}


def profile_costs(paths, program_name):
    """Instructions executed in each function of the program, over every run."""
    costs = collections.Counter()
    for path in paths:
        obj = None
        fn = None
        skip_next = False
        with open(path, errors="replace") as f:
            for line in f:
                if skip_next:  # the inclusive cost of a call, not the caller's own
                    skip_next = False
                    continue
                if line.startswith("ob="):
                    obj = line[3:].strip()
                elif line.startswith("fn="):
                    name = re.sub(r"'\d+$", "", line[3:].strip())
                    # Valgrind names no object ("???") for code outside the
                    # program's .text, such as the hot section an earlier
                    # script placed: the symbol table below decides.
                    fn = name if obj and (os.path.basename(obj) == program_name
                                          or obj == "???") else None
                    if fn:
                        costs[fn] += 0
                elif line.startswith("calls="):
                    skip_next = True
                elif fn and line[:1] in "0123456789+-*":
                    parts = line.split()
                    if len(parts) >= 2 and parts[-1].isdigit():
                        costs[fn] += int(parts[-1])
    return costs


def symbol_addresses(program):
    """Every defined function symbol (local ones too) and its addresses."""
    out = subprocess.run(["nm", "--defined-only", program], check=True,
                         capture_output=True, text=True).stdout
    addresses = collections.defaultdict(list)
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            addresses[parts[2]].append(int(parts[0], 16))
    return addresses


def input_sections(map_path):
    """(start, size, section, object) of each input section in the code."""
    sections = []
    in_text = False
    pending = None
    with open(map_path, errors="replace") as f:
        for line in f:
            if re.match(r"^\S", line):
                in_text = line.startswith(".text")
                pending = None
                continue
            if not in_text:
                continue
            m = re.match(r"^ (\.\S+)\s*$", line)
            if m:  # a long section name: its address is on the next line
                pending = m.group(1)
                continue
            m = re.match(r"^ (\.\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
            if m and (m.group(1) or pending):
                name = m.group(1) or pending
                size = int(m.group(3), 16)
                if size:
                    sections.append((int(m.group(2), 16), size, name, m.group(4).strip()))
            pending = None
    sections.sort()
    return sections


def pattern(section, obj):
    if section not in GENERIC:
        return f"*({section})"
    m = re.match(r"^(?:.*/)?([^/(]+\.a)\(([^)]+)\)$", obj)
    if m:
        return f"*{m.group(1)}:{m.group(2)}({section})"
    return f"*{os.path.basename(obj)}({section})"


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    program, map_path, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
    costs = profile_costs(profiles, os.path.basename(program))
    addresses = symbol_addresses(program)
    sections = input_sections(map_path)
    starts = [s[0] for s in sections]
    lines = []
    seen = set()
    placed = 0
    for fn, _ in sorted(costs.items(), key=lambda kv: (-kv[1], kv[0])):
        for address in addresses.get(fn, []):
            i = bisect.bisect_right(starts, address) - 1
            if i < 0 or address >= sections[i][0] + sections[i][1]:
                continue
            _, size, section, obj = sections[i]
            p = pattern(section, obj)
            if p not in seen:
                seen.add(p)
                placed += size
                lines.append("    " + p)
    print(f"/* Written by scripts/hot-text.sh: the code that a profiled scenario ran,\n"
          f"   {len(lines)} input sections, {placed} bytes, hottest first. */")
    print("SECTIONS\n{\n  .text.raw_hot :\n  {")
    print("\n".join(lines))
    print("  }\n}\nINSERT BEFORE .text;")


if __name__ == "__main__":
    main()
