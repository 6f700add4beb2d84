#!/usr/bin/env python3
"""The latency raw-acp or raw-dashboard adds per streamed delta up to the
line or frame *written*, from a scheduler trace taken during
bench/acp_e2e_bench or bench/dashboard_e2e_bench.

Those benches time a line (a frame) when their reading thread gets it.
Between the program's write and that read lies the wake-up of the reader,
which is the system's, not the program's: on a virtual machine whose
processor halted while idle, the hypervisor may take hundreds of
microseconds to run it again. A write to a pipe or a loopback socket wakes
the reader blocked on it, so the scheduler's sched_waking event of the
reading thread marks when the program wrote.

    perf record -q -k CLOCK_MONOTONIC -e sched:sched_waking -a -o out.perf -- \\
        env RAW_BENCH_TIMES=out.times build/bin/acp_e2e_bench 100 10 1000
    bench/written_latency.py out.times out.perf

For each read, the write is the last wake-up of the reader after the
previous read; a read without one (the reader was still busy when the data
came) counts as written when it was read, which can only overstate the
program's share. Prints the p50 and p99 of both figures, and the reader's
wake-ups by how long they took.
"""
import re
import subprocess
import sys


def percentile(values, p):
    """Nearest rank, as bench/process_stats.h does; 0 for no values."""
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    times_path, perf_path = sys.argv[1], sys.argv[2]
    reader = None
    reads = []
    deltas = []  # (grpc_ns, read_ns)
    with open(times_path) as f:
        for row in f:
            fields = row.split()
            if fields[0] == "reader":
                reader = int(fields[1])
            elif fields[0] == "read":
                reads.append(int(fields[1]))
            elif fields[0] == "delta":
                deltas.append((int(fields[1]), int(fields[2])))
    if reader is None or not reads:
        sys.exit(f"{times_path}: no reader or no reads")

    trace = subprocess.run(
        ["perf", "script", "--ns", "-i", perf_path, "-F", "time,trace"],
        check=True, capture_output=True, text=True).stdout
    pattern = re.compile(r"(\d+)\.(\d{9}):\s+comm=.* pid=(\d+) ")
    wakings = []
    for row in trace.splitlines():
        m = pattern.search(row)
        if m and int(m.group(3)) == reader:
            wakings.append(int(m.group(1)) * 1_000_000_000 + int(m.group(2)))
    wakings.sort()
    if not wakings:
        sys.exit(f"{perf_path}: no wake-up of thread {reader}; was it recorded with "
                 "-k CLOCK_MONOTONIC -e sched:sched_waking -a?")

    written_at = {}  # read time -> written time
    wake_us = []
    w = 0
    previous = None
    for read in sorted(reads):
        last = None
        while w < len(wakings) and wakings[w] <= read:
            if previous is None or wakings[w] > previous:
                last = wakings[w]
            w += 1
        written_at[read] = read if last is None else last
        if last is not None:
            wake_us.append((read - last) / 1000)
        previous = read

    read_us = [(read - grpc) / 1000 for grpc, read in deltas]
    written_us = [(written_at[read] - grpc) / 1000 for grpc, read in deltas]
    print(f"deltas: {len(deltas)}, reads: {len(reads)}, "
          f"reads that waited for a wake-up: {len(wake_us)}")
    print(f"added per delta, up to its write: p50 {percentile(written_us, 0.5):.1f} us, "
          f"p99 {percentile(written_us, 0.99):.1f} us")
    print(f"added per delta, up to its read:  p50 {percentile(read_us, 0.5):.1f} us, "
          f"p99 {percentile(read_us, 0.99):.1f} us")
    slow = [u for u in wake_us if u > 100]
    print(f"reader's wake-ups: p50 {percentile(wake_us, 0.5):.1f} us, "
          f"over 100 us: {len(slow)}, longest {max(wake_us, default=0):.1f} us")


if __name__ == "__main__":
    main()
