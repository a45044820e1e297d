"""What a sandbox's CPU share does to the rest of the machine: 44 busy children in one sandbox, with and without
its control group.

Both ways in this run, the same sandbox (``detect("required")``) runs 44 processes that each spin for
``--seconds``, while a bystander outside the sandbox (another student's grading, say) spins too: once with the
sandbox's control groups (its CPU quota ``Limits.cpus``, and one group's weight against every other process),
once with the per-process limits alone (what a machine without cgroups gives). Printed for each: the CPUs the
children used, the CPU the bystander got, the machine's runnable tasks (``/proc/loadavg``'s fourth field,
sampled every 50 ms: what the load average averages) and the 1-minute load average after; then the ratios.

A benchmark, not a test: it asserts nothing. It loads the machine for about twice ``--seconds``.

    python benchmarks/bench_sandbox_limits.py [--seconds S] [--children N]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import threading
import time

from workbook.grading import cgroups, sandbox

BUSY = (
    "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"
    "print(time.process_time())"
)
SPAWN = (
    "import json, subprocess, sys\n"
    "children = [subprocess.Popen([sys.executable, '-c', {busy!r}], stdout=subprocess.PIPE)\n"
    "            for _ in range({children})]\n"
    "print(json.dumps(sum(float(child.communicate()[0] or 0) for child in children)))"
)


def runnable() -> int:
    """The machine's runnable tasks now (the numerator of ``/proc/loadavg``'s fourth field), this sampler excluded."""
    with open("/proc/loadavg") as handle:
        return int(handle.read().split()[3].split("/")[0]) - 1


def busy_sandbox(isolation: sandbox.Isolation, children: int, seconds: float) -> dict[str, float]:
    """Run ``children`` busy processes in one sandbox beside a busy bystander outside it; what each got."""
    samples: list[int] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.05):
            samples.append(runnable())

    code = SPAWN.format(busy=BUSY.format(seconds=seconds), children=children)
    with sandbox.private_dir(isolation) as work:
        argv = sandbox.wrap(isolation, [sys.executable, "-c", code], workdir=work)
        start = time.monotonic()
        sandboxed = subprocess.Popen(argv, cwd=work, stdout=subprocess.PIPE, text=True)
        time.sleep(min(2.0, seconds / 4))  # the children have started
        sampler = threading.Thread(target=sample)
        sampler.start()
        bystander = subprocess.run(
            [sys.executable, "-c", BUSY.format(seconds=seconds / 2)], capture_output=True, text=True, check=True
        )
        stop.set()
        sampler.join()
        used = json.loads(sandboxed.communicate()[0].strip().splitlines()[-1])
        wall = time.monotonic() - start
    return {
        "children's CPUs": used / wall,
        "bystander's CPU": float(bystander.stdout) / (seconds / 2),
        "runnable (mean)": statistics.mean(samples),
        "load after": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--children", type=int, default=44)
    args = parser.parse_args()
    limited = sandbox.detect("required")
    if "cpu" not in limited.cgroups.controllers:
        sys.exit(f"no cpu cgroup for sandboxes here: {limited.cgroups.missing}")
    unlimited = dataclasses.replace(limited, cgroups=cgroups.NONE)
    print(limited.describe())
    print(
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; {args.children} busy children for "
        f"{args.seconds:g} s in one sandbox"
    )
    results = {
        "per-sandbox cgroup": busy_sandbox(limited, args.children, args.seconds),
        "per-process limits only": busy_sandbox(unlimited, args.children, args.seconds),
    }
    for name, figures in results.items():
        print(f"{name:>24}: " + ", ".join(f"{key} {value:.2f}" for key, value in figures.items()))
    group, none = results["per-sandbox cgroup"], results["per-process limits only"]
    print(
        "ratios (cgroup / none): "
        + ", ".join(f"{key} {group[key] / max(none[key], 1e-9):.2f}" for key in ("children's CPUs", "bystander's CPU"))
    )


if __name__ == "__main__":
    main()
