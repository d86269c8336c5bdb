"""Benchmarks: `./run.sh bench [NAME ...]` runs every bench/bench_*.py (or the named ones).

Each module has `main(argv) -> int` and prints its figures side by side with a baseline it
measures in the same run, so a figure is always read against this machine, today.
"""
