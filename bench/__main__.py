from __future__ import annotations

import importlib
import pkgutil
import sys

import bench


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))
    wanted = [a for a in argv if not a.startswith("-")]
    chosen = [n for n in names if not wanted or n.removeprefix("bench_") in wanted or n in wanted]
    if not chosen:
        print(f"no benchmark named {wanted}; known: {[n.removeprefix('bench_') for n in names]}")
        return 2
    rc = 0
    for name in chosen:
        print(f"=== {name.removeprefix('bench_')} ===", flush=True)
        mod = importlib.import_module(f"bench.{name}")
        rc |= int(mod.main([a for a in argv if a.startswith("-")]) or 0)
        print(flush=True)
    return rc


raise SystemExit(main(sys.argv[1:]))
