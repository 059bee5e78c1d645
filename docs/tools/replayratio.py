#!/usr/bin/env python3
"""Replay against decoding, whole process, as docs/performance.md measures it.

    python3 docs/tools/replayratio.py ROUNDS BIN[,BIN...] FILE

Each round runs `BIN decode FILE --stats` (the first binary's), then each
binary's `replay FILE --batch`, in turns, so that a change in the machine's
load falls on all of them alike. Each run's CPU time (user and system, all
threads) is read from `perf stat -e task-clock`. Printed: the median and the
least of each, and their ratio to decoding's median and least. Needs perf
(linux-perf).
"""
import statistics
import subprocess
import sys


def cpu_ms(args):
    r = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock"] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit("%s failed (exit %d):\n%s" % (" ".join(args), r.returncode, r.stderr))
    for line in r.stderr.splitlines():
        if "task-clock" in line:
            value = line.split(",")[0]
            try:
                return float(value)
            except ValueError:
                raise SystemExit("perf stat did not count %s: %r" % (" ".join(args), value))
    raise SystemExit("perf stat said no task-clock:\n" + r.stderr)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    rounds, bins, path = int(sys.argv[1]), sys.argv[2].split(","), sys.argv[3]
    decode, replay = [], {b: [] for b in bins}
    for _ in range(rounds):
        decode.append(cpu_ms([bins[0], "decode", path, "--stats"]))
        for b in bins:
            replay[b].append(cpu_ms([b, "replay", path, "--batch"]))
    med, least = statistics.median(decode), min(decode)
    print("decode --stats  median %.0f  least %.0f cpu-ms" % (med, least))
    for b in bins:
        m, q = statistics.median(replay[b]), min(replay[b])
        print("%s replay --batch  median %.0f (%.2fx)  least %.0f (%.2fx)" % (b, m, m / med, q, q / least))


if __name__ == "__main__":
    main()
