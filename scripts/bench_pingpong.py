"""What one round trip over a pipe costs between two processes, both on one CPU and on two:
the wake-up parcall's every invocation pays (BENCHMARKS.md section 3). Prints two lines,
`same-cpu MICROSECONDS` and `two-cpus MICROSECONDS`, the median of three runs each.

Run: python3 scripts/bench_pingpong.py [ROUND_TRIPS]
"""

import os
import statistics
import sys
import time


def round_trip_micros(cpus, round_trips):
    """Microseconds per round trip, parent and child each pinned to its CPU in `cpus`."""
    to_child, from_parent = os.pipe()
    to_parent, from_child = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {cpus[1]})
        for _ in range(round_trips):
            os.read(to_child, 1)
            os.write(from_child, b"x")
        os._exit(0)
    os.sched_setaffinity(0, {cpus[0]})
    start = time.perf_counter()
    for _ in range(round_trips):
        os.write(from_parent, b"x")
        os.read(to_parent, 1)
    elapsed = time.perf_counter() - start
    os.waitpid(pid, 0)
    for fd in (to_child, from_parent, to_parent, from_child):
        os.close(fd)
    return elapsed / round_trips * 1e6


def main():
    round_trips = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    allowed = sorted(os.sched_getaffinity(0))
    first = allowed[0]
    second = allowed[1] if len(allowed) > 1 else None
    same = statistics.median(round_trip_micros((first, first), round_trips) for _ in range(3))
    print(f"same-cpu {same:.1f}")
    if second is not None:
        two = statistics.median(
            round_trip_micros((first, second), round_trips) for _ in range(3)
        )
        print(f"two-cpus {two:.1f}")


if __name__ == "__main__":
    main()
