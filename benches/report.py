#!/usr/bin/env python3
"""Turns the results of `cargo bench --bench compare` into docs/benchmarks.md
(tables) and docs/benchmarks.svg (a grouped bar chart).

    cargo bench --bench compare
    python3 benches/report.py

Reads target/criterion/<dataset>/<direction>_<library>/new/{benchmark,estimates,sample}.json
and target/kiln-bench/sizes.json (both under $CARGO_TARGET_DIR if set).
Standard library only. Works on a partial run: what was not measured is
shown as a dash.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import subprocess
import sys

DATASETS = ["log", "mesh", "savegame", "network", "points", "tensors"]
DESCRIPTIONS = {
    "log": "10,000 web-server log records (IPv4 as [u8; 4], strings, u16, u64)",
    "mesh": "125,000 triangles, four [f32; 3]-like structs each, as a Vec of structs",
    "savegame": "500 players: nested structs, enums with payloads, options, small vectors",
    "network": "10,000 packets of small events; one event in 1,000 has a 4-64 KiB payload",
    "points": "1,000,000 Point { x: i32, y: i32 }",
    "tensors": "Vec<f32> of 4 MiB",
}
DIRECTIONS = [
    "serialize",
    "serialize-slice",
    "deserialize",
    "deserialize-reader",
    "deserialize-borrowed",
]
DIRECTION_NAMES = {
    "serialize": "serialize (reused Vec)",
    "serialize-slice": "serialize into a slice (to_slice)",
    "deserialize": "deserialize, owned, from slice",
    "deserialize-reader": "deserialize, owned, from io::Read",
    "deserialize-borrowed": "deserialize, borrowed, from slice",
}
LIBS = [
    "kiln",
    "bincode",
    "postcard",
    "rmp-serde",
    "serde_json",
    "bitcode-serde",
    "bitcode",
    "wincode",
    "rkyv",
]
COLORS = {
    "kiln": "#d9480f",
    "bincode": "#1c7ed6",
    "postcard": "#37b24d",
    "rmp-serde": "#ae3ec9",
    "serde_json": "#868e96",
    "bitcode-serde": "#99e9f2",
    "bitcode": "#1098ad",
    "wincode": "#f59f00",
    "rkyv": "#5f3dc4",
}


def target_dir():
    return os.environ.get("CARGO_TARGET_DIR", "target")


def load_results(criterion_dir, stat):
    """{(dataset, direction, lib): {"time": seconds, "bytes": throughput bytes}}"""
    results = {}
    pattern = os.path.join(criterion_dir, "*", "*", "new", "benchmark.json")
    for path in glob.glob(pattern):
        folder = os.path.dirname(path)
        with open(path) as f:
            bench = json.load(f)
        parts = bench.get("full_id", "").split("/")
        if len(parts) != 3:
            continue
        dataset, direction, lib = parts
        if dataset not in DATASETS:
            continue  # the other benches: see load_others
        if stat == "min":
            with open(os.path.join(folder, "sample.json")) as f:
                sample = json.load(f)
            ns = min(t / i for t, i in zip(sample["times"], sample["iters"]))
        else:
            with open(os.path.join(folder, "estimates.json")) as f:
                ns = json.load(f)[stat]["point_estimate"]
        throughput = bench.get("throughput") or {}
        results[(dataset, direction, lib)] = {
            "time": ns / 1e9,
            "bytes": throughput.get("Bytes") or throughput.get("BytesDecimal"),
            "mtime": os.path.getmtime(path),
        }
    return results


OTHERS = {
    ("vec_", "struct_"): "Numeric blocks (`cargo bench --bench block`): one sequence of numbers, written and read, against a memory copy",
    ("batch",): "A million Points (`cargo bench --bench batch`): bare and framed batches against a hand-written loop",
    ("single-point",): "One Point, bare and framed (`cargo bench --bench batch`)",
    ("value-",): "Reading without the Rust type (`cargo bench --bench value`): `Value` and JSON against the typed path and serde_json",
    ("file-",): "Kiln files (`cargo bench --bench file`): a million log events appended and read across frames beside a bare batch; a mapped shard of 1,000 3x224x224 f32 images beside safetensors",
    ("arrays",): "Shaped arrays (`cargo bench --bench arrays`): a 3x224x224 f32 image and a 224x224 u8 mask in one record",
}


def load_others(criterion_dir, stat):
    """{group: [(bench, seconds)]} for the benches other than `compare`'s."""
    groups = {}
    pattern = os.path.join(criterion_dir, "**", "new", "benchmark.json")
    for path in sorted(glob.glob(pattern, recursive=True)):
        with open(path) as f:
            bench = json.load(f)
        group = bench.get("group_id", "")
        if group in DATASETS:
            continue
        with open(os.path.join(os.path.dirname(path), "estimates.json")) as f:
            ns = json.load(f)[stat if stat != "min" else "median"]["point_estimate"]
        name = "/".join(x for x in (bench.get("function_id"), bench.get("value_str")) if x)
        groups.setdefault(group, []).append((name, ns / 1e9))
    return groups


def fmt_time(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_rate(bytes_per_s):
    if bytes_per_s >= 1e9:
        return f"{bytes_per_s / 1e9:.2f} GB/s"
    return f"{bytes_per_s / 1e6:.0f} MB/s"


def fmt_size(n):
    return f"{n:,}"


def machine():
    model, cores, mem = platform.processor() or "unknown CPU", os.cpu_count(), None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    mem = int(line.split()[1]) // (1024 * 1024)
                    break
    except OSError:
        pass
    parts = [model, f"{cores} cores"]
    if mem:
        parts.append(f"{mem} GiB RAM")
    parts.append(f"{platform.system()} {platform.release()}")
    return ", ".join(parts)


def rustc_version():
    try:
        return subprocess.run(
            ["rustc", "-V"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "rustc (unknown version)"


def ordered(keys, order):
    return [k for k in order if k in keys] + sorted(k for k in keys if k not in order)


def speedup(results, dataset, direction, lib):
    """How many times faster Kiln is than `lib` (>1: Kiln faster)."""
    k = results.get((dataset, direction, "kiln"))
    o = results.get((dataset, direction, lib))
    if not k or not o:
        return None
    return o["time"] / k["time"]


def markdown(results, sizes, stat, when, others, release=None, release_others=None, release_args="",
             notes=(), one_unit=None, one_unit_args=""):
    datasets = ordered({d for d, _, _ in results} | set(sizes), DATASETS)
    libs = ordered({l for _, _, l in results}, LIBS)
    peers = [l for l in libs if l != "kiln"]
    out = []
    w = out.append
    w("# Benchmarks\n")
    w("<!-- Generated by `python3 benches/report.py`; do not edit by hand. -->\n")
    w(f"- Machine: {machine()}")
    w(f"- Compiler: {rustc_version()}, `[profile.bench]` with `lto = true`, `codegen-units = 1`")
    w(f"- Measured: {when} (UTC)")
    if release:
        w("- Command: `cargo bench`, then the same with `CARGO_TARGET_DIR=target/release-profile")
        w("  CARGO_PROFILE_BENCH_LTO=false CARGO_PROFILE_BENCH_CODEGEN_UNITS=16`"
          + (f" and `-- {release_args}`" if release_args else "") + ", then")
        w("  `python3 benches/report.py --release-criterion-dir target/release-profile/criterion`")
    else:
        w("- Command: `cargo bench && python3 benches/report.py`")
    w(f"- Statistic: criterion's {stat} time per operation.")
    for note in notes:
        w("- " + note)
    w("- Throughput is the size of the **Kiln** encoding divided by the time, for every")
    w("  library, so throughputs compare exactly as times do. 1 MB = 10^6 bytes.")
    w("- Settings: bincode 2 `config::standard()` (serde API), postcard defaults, rmp-serde")
    w("  `encode::write` (structs as arrays), serde_json compact. Every serializer writes into a")
    w("  reused `Vec<u8>`; readers read a `&[u8]` through `io::Read` (postcard with a reused")
    w("  scratch buffer).")
    w("- bitcode-serde: `bitcode::serialize`/`deserialize`; `serialize` returns a new `Vec` on")
    w("  every call. bitcode: its derive, through a reused `bitcode::Buffer` (the bytes stay in")
    w("  the buffer). wincode: its derive, `Configuration::default()` (fixed-width integers) with")
    w("  the preallocation limit disabled. rkyv 0.8: validated (`from_bytes`), writing into a")
    w("  reused `AlignedVec` and reading from an aligned copy; its deserialize-borrowed cell is")
    w("  `rkyv::access` (validation, in place, no value built): not the same work as the other")
    w("  cells of that line. bitcode, bitcode-serde and rkyv have no `io::Read` path (no")
    w("  deserialize-reader cells); on network, serde_json and both bitcodes cannot borrow bytes.\n")

    w("## Kiln's speed-up over each library\n")
    w("Time of the library divided by Kiln's time, in the same run (above 1: Kiln is faster).\n")
    w("| dataset | direction | " + " | ".join(peers) + " |")
    w("|---|---|" + "---:|" * len(peers))
    for d in datasets:
        for direction in DIRECTIONS:
            if (d, direction, "kiln") not in results:
                continue
            cells = []
            for p in peers:
                s = speedup(results, d, direction, p)
                cells.append("–" if s is None else f"{s:.2f}×")
            w(f"| {d} | {direction} | " + " | ".join(cells) + " |")
    w("")

    if release:
        w("## Under cargo's default release profile\n")
        w("The same benches built as most users build: `cargo build --release` defaults")
        w("(`lto = false`, 16 codegen units), in a second run right after the first. Kiln's")
        w("time in each profile, the fastest library of the release run, and Kiln's speed-up")
        w("over each library in that run.\n")
        rlibs = ordered({l for _, _, l in release}, LIBS)
        rpeers = [l for l in rlibs if l != "kiln"]
        w("| dataset | direction | kiln, LTO | kiln, release | fastest, release | " + " | ".join(rpeers) + " |")
        w("|---|---|---:|---:|---|" + "---:|" * len(rpeers))
        for d in datasets:
            for direction in DIRECTIONS:
                k = release.get((d, direction, "kiln"))
                if not k:
                    continue
                kl = results.get((d, direction, "kiln"))
                cands = [(r["time"], l) for (dd, di, l), r in release.items() if dd == d and di == direction]
                t, best = min(cands)
                cells = []
                for p in rpeers:
                    sp = speedup(release, d, direction, p)
                    cells.append("–" if sp is None else f"{sp:.2f}×")
                w(f"| {d} | {direction} | {fmt_time(kl['time']) if kl else '–'} | {fmt_time(k['time'])} "
                  f"| {best} {fmt_time(t)} | " + " | ".join(cells) + " |")
        w("")

    if one_unit:
        w("## With one codegen unit, without LTO\n")
        w("Cargo's default release profile splits a crate into 16 codegen units, and serde's")
        w("`Vec<T>` loop lands in another unit than your type's derived `deserialize`, which")
        w("holds Kiln's inlined reading code: the compiler then calls it once per element and")
        w("copies every value back through memory. With `codegen-units = 1` in your")
        w("`[profile.release]` (no LTO, a slower build) the two meet in one function, as with")
        newest = max(r["mtime"] for r in one_unit.values())
        at = datetime.datetime.fromtimestamp(newest, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
        w("LTO. A third run, in a target directory of its own, ended " + at + " (UTC):")
        w("`CARGO_PROFILE_BENCH_LTO=false CARGO_PROFILE_BENCH_CODEGEN_UNITS=1 cargo bench --bench compare`"
          + (f" with `-- {one_unit_args}`" if one_unit_args else "") + ". Read rows only;")
        w("the last column is the fastest other library of that run (its time / Kiln's).\n")
        w("| dataset | direction | kiln, LTO | kiln, release | kiln, one unit | fastest other, one unit |")
        w("|---|---|---:|---:|---:|---|")
        for d in datasets:
            for direction in DIRECTIONS:
                k = one_unit.get((d, direction, "kiln"))
                if not k or not direction.startswith("deserialize"):
                    continue
                kl = results.get((d, direction, "kiln"))
                kr = (release or {}).get((d, direction, "kiln"))
                f = fastest(one_unit, d, direction, set(LIBS))
                other = "–" if not f else f"{f[1]} {fmt_time(f[0])} ({f[0] / k['time']:.2f}×)"
                w(f"| {d} | {direction} | {fmt_time(kl['time']) if kl else '–'} "
                  f"| {fmt_time(kr['time']) if kr else '–'} | {fmt_time(k['time'])} | {other} |")
        w("")

    if others:
        w("## Blocks, batches, single records and arrays\n")
        for keys, title in OTHERS.items():
            groups = sorted(g for g in others if g.startswith(keys))
            if not groups:
                continue
            w(f"### {title}\n")
            if release_others:
                w("| group | benchmark | time, LTO | time, release |")
                w("|---|---|---:|---:|")
            else:
                w("| group | benchmark | time |")
                w("|---|---|---:|")
            for g in groups:
                rel = dict((release_others or {}).get(g, []))
                for name, secs in others[g]:
                    if release_others:
                        r = rel.get(name)
                        w(f"| {g} | {name} | {fmt_time(secs)} | {fmt_time(r) if r else '–'} |")
                    else:
                        w(f"| {g} | {name} | {fmt_time(secs)} |")
            w("")

    w("## Encoded sizes (bytes)\n")
    size_libs = ordered({l for s in sizes.values() for l in s}, LIBS)
    if sizes:
        w("| dataset | " + " | ".join(size_libs) + " |")
        w("|---|" + "---:|" * len(size_libs))
        for d in ordered(set(sizes), DATASETS):
            row = []
            for l in size_libs:
                n = sizes[d].get(l)
                k = sizes[d].get("kiln")
                if n is None:
                    row.append("–")
                elif l == "kiln" or not k:
                    row.append(fmt_size(n))
                else:
                    row.append(f"{fmt_size(n)} ({n / k:.2f}×)")
            w(f"| {d} | " + " | ".join(row) + " |")
        w("\nIn brackets: size relative to Kiln. Kiln writes fixed-width numbers (no varints),")
        w("so it is larger where bincode, postcard, rmp-serde and bitcode shrink small integers,")
        w("and equal on floats; wincode's default configuration writes fixed-width integers and")
        w("`u64` lengths, and rkyv adds relative pointers and alignment padding.\n")
    else:
        w("No `target/kiln-bench/sizes.json` found.\n")

    w("## Times and throughput per dataset\n")
    for d in datasets:
        w(f"### {d}\n")
        if d in DESCRIPTIONS:
            w(DESCRIPTIONS[d] + ".\n")
        w("| direction | " + " | ".join(libs) + " |")
        w("|---|" + "---:|" * len(libs))
        for direction in DIRECTIONS:
            row, any_cell = [], False
            for l in libs:
                r = results.get((d, direction, l))
                if not r:
                    row.append("–")
                    continue
                any_cell = True
                cell = fmt_time(r["time"])
                if r["bytes"]:
                    cell += f"<br>{fmt_rate(r['bytes'] / r['time'])}"
                row.append(cell)
            if any_cell:
                w(f"| {DIRECTION_NAMES[direction]} | " + " | ".join(row) + " |")
        w("")
    w("![Throughput per library and dataset](benchmarks.svg)\n")
    return "\n".join(out)


SERDE_LIBS = {"kiln", "bincode", "postcard", "rmp-serde", "serde_json", "bitcode-serde"}


def fastest(results, dataset, direction, among):
    """(time, library) of the fastest of `among` on a row, or None."""
    cands = [(r["time"], l) for (d, di, l), r in results.items()
             if d == dataset and di == direction and l in among and l != "kiln"]
    return min(cands) if cands else None


def readme_table(results, release):
    """The README's table: Kiln against the fastest serde format and the
    fastest library of all, in each profile (ratio: their time / Kiln's)."""
    out = []
    w = out.append
    w("| dataset | direction | Kiln, LTO | fastest other serde format | fastest other library "
      "| Kiln, release | fastest other, release |")
    w("|---|---|---:|---|---|---:|---|")
    datasets = ordered({d for d, _, _ in results}, DATASETS)
    every = set(LIBS)
    for d in datasets:
        for direction in DIRECTIONS:
            k = results.get((d, direction, "kiln"))
            if not k:
                continue
            cells = [d, direction, fmt_time(k["time"])]
            for among in (SERDE_LIBS, every):
                f = fastest(results, d, direction, among)
                cells.append("–" if not f else f"{f[1]} {f[0] / k['time']:.2f}×")
            kr = (release or {}).get((d, direction, "kiln"))
            cells.append(fmt_time(kr["time"]) if kr else "–")
            f = fastest(release or {}, d, direction, every) if kr else None
            cells.append("–" if not f else f"{f[1]} {f[0] / kr['time']:.2f}×")
            w("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def svg(results, when):
    """Two panels (serialize; deserialize owned from a slice), a group of
    bars per dataset, one bar per library; log scale, labelled."""
    import math

    datasets = ordered({d for d, _, _ in results}, DATASETS)
    libs = ordered({l for _, _, l in results}, LIBS)
    panels = [("serialize", "Serialize into a reused Vec&lt;u8&gt;"),
              ("deserialize", "Deserialize (owned) from a slice")]
    rates = [r["bytes"] / r["time"] for r in results.values() if r["bytes"]]
    if not rates or not datasets:
        return None
    lo = 10 ** math.floor(math.log10(min(rates) / 1e6))
    hi = 10 ** math.ceil(math.log10(max(rates) / 1e6))
    bar, gap = 14, 22
    group_w = bar * len(libs) + gap
    left, top, panel_h, panel_gap = 70, 60, 230, 80
    width = left + group_w * len(datasets) + 20
    height = top + len(panels) * (panel_h + panel_gap) + 20

    def y_of(rate_mb, y0):
        frac = (math.log10(rate_mb) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        return y0 + panel_h - frac * panel_h

    s = []
    a = s.append
    a(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
      f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">')
    a(f'<rect width="{width}" height="{height}" fill="white"/>')
    a(f'<text x="{left}" y="20" font-size="14" font-weight="bold">Throughput (MB/s of Kiln-encoded '
      f'bytes, log scale; higher is faster)</text>')
    x = left
    for lib in libs:
        a(f'<rect x="{x}" y="32" width="10" height="10" fill="{COLORS.get(lib, "#000")}"/>')
        a(f'<text x="{x + 14}" y="41">{lib}</text>')
        x += 14 + 8 * len(lib) + 16
    # On the title's line: nine libraries' legend reaches the right edge.
    a(f'<text x="{width - 10}" y="20" text-anchor="end" fill="#555">{when} UTC</text>')
    for pi, (direction, title) in enumerate(panels):
        y0 = top + pi * (panel_h + panel_gap) + 20
        a(f'<text x="{left}" y="{y0 - 8}" font-size="12" font-weight="bold">{title}</text>')
        decade = lo
        while decade <= hi:
            y = y_of(decade, y0)
            a(f'<line x1="{left}" x2="{width - 20}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
            label = f"{decade:g}" if decade < 1000 else f"{decade / 1000:g}k"
            a(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
            decade *= 10
        for di, d in enumerate(datasets):
            gx = left + di * group_w + gap / 2
            for li, lib in enumerate(libs):
                r = results.get((d, direction, lib))
                if not r or not r["bytes"]:
                    continue
                mb = r["bytes"] / r["time"] / 1e6
                y = y_of(mb, y0)
                bx = gx + li * bar
                a(f'<rect x="{bx:.1f}" y="{y:.1f}" width="{bar - 2}" height="{y0 + panel_h - y:.1f}" '
                  f'fill="{COLORS.get(lib, "#000")}"><title>{d} {direction} {lib}: '
                  f'{mb:.0f} MB/s</title></rect>')
                a(f'<text transform="translate({bx + bar / 2 + 3:.1f},{y - 3:.1f}) rotate(-90)" '
                  f'font-size="8">{mb:.0f}</text>')
            a(f'<text x="{gx + bar * len(libs) / 2:.1f}" y="{y0 + panel_h + 14}" '
              f'text-anchor="middle">{d}</text>')
        a(f'<line x1="{left}" x2="{width - 20}" y1="{y0 + panel_h}" y2="{y0 + panel_h}" stroke="#333"/>')
    a("</svg>")
    return "\n".join(s) + "\n"


PYTHON_HEADING = """
## From Python

The Python package (`python/`) against the formats Python programs use, in one
process on the same data, on this machine: `python3 benches/python/bench.py`
(best of 15 runs per figure). Kiln's rows read through the Rust decoder; the
others are msgpack's C extension, orjson, json, pickle, fastavro and safetensors.

"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--criterion-dir", default=os.path.join(target_dir(), "criterion"))
    parser.add_argument("--sizes", default=os.path.join(target_dir(), "kiln-bench", "sizes.json"))
    parser.add_argument("--out-dir", default="docs")
    parser.add_argument("--stat", choices=["median", "mean", "min"], default="median",
                        help="time per operation to report (min: fastest sample)")
    parser.add_argument("--release-criterion-dir", default=None,
                        help="criterion results of the same benches under cargo's default release profile")
    parser.add_argument("--release-args", default="",
                        help="the criterion options the release-profile run was given, "
                             "named in the Command line")
    parser.add_argument("--one-unit-criterion-dir", default=None,
                        help="criterion results of `compare` built with codegen-units = 1 and no LTO")
    parser.add_argument("--one-unit-args", default="",
                        help="the criterion options the one-unit run was given")
    parser.add_argument("--note", action="append", default=[],
                        help="a line for the list at the top (what was unusual about the runs)")
    parser.add_argument("--python", default=None,
                        help="the output of benches/python/bench.py, added as the section "
                             "'From Python'")
    parser.add_argument("--readme-table", action="store_true",
                        help="print the README's summary table instead of writing docs/")
    args = parser.parse_args()

    results = load_results(args.criterion_dir, args.stat)
    if not results:
        sys.exit(f"no results under {args.criterion_dir}; run `cargo bench --bench compare` first")
    sizes = {}
    if os.path.exists(args.sizes):
        with open(args.sizes) as f:
            sizes = json.load(f)
    newest = max(r["mtime"] for r in results.values())
    when = datetime.datetime.fromtimestamp(newest, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")

    if args.readme_table:
        release = load_results(args.release_criterion_dir, args.stat) if args.release_criterion_dir else None
        print(readme_table(results, release))
        return

    os.makedirs(args.out_dir, exist_ok=True)
    md_path = os.path.join(args.out_dir, "benchmarks.md")
    with open(md_path, "w") as f:
        release = release_others = None
        if args.release_criterion_dir:
            release = load_results(args.release_criterion_dir, args.stat)
            release_others = load_others(args.release_criterion_dir, args.stat)
        one_unit = None
        if args.one_unit_criterion_dir:
            one_unit = load_results(args.one_unit_criterion_dir, args.stat)
        f.write(markdown(results, sizes, args.stat, when, load_others(args.criterion_dir, args.stat),
                         release, release_others, args.release_args, args.note, one_unit,
                         args.one_unit_args))
        if args.python:
            with open(args.python) as py:
                f.write(PYTHON_HEADING + py.read())
    chart = svg(results, when)
    svg_path = os.path.join(args.out_dir, "benchmarks.svg")
    if chart:
        with open(svg_path, "w") as f:
            f.write(chart)
    print(f"wrote {md_path} and {svg_path} from {len(results)} results")


if __name__ == "__main__":
    main()
