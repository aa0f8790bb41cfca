# What Python stacks cost the watchdog (scripts/bench.sh, not a test):
# THREADS threads wait on an Event ten calls deep, the main thread sleeps;
# run under dltrace with DLTRACE_WATCHDOG=1.  Prints the watchdog thread's
# own CPU time (its per-thread CPU clock) after 7 s, which covers the first
# stall reports (STALL, STACK and PYSTACK of every thread at the 5 s
# threshold), and per second over the SECONDS after that.
#
#   dltrace -o DIR -- python3 py_wd_cost.py [THREADS [SECONDS]]
import os
import sys
import threading
import time

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 64
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 8.0
never = threading.Event()


def deep(k):
    if k == 0:
        never.wait()
    else:
        deep(k - 1)


def watchdog_clock():
    """The CPU clock of the thread named dltrace-wd, or None."""
    for tid in os.listdir("/proc/self/task"):
        with open("/proc/self/task/%s/comm" % tid) as f:
            if f.read().strip() == "dltrace-wd":
                # The kernel's encoding of a thread's CPU clock, as
                # pthread_getcpuclockid makes it.
                return (~int(tid) << 3) | 6
    return None


for _ in range(THREADS):
    threading.Thread(target=deep, args=(10,), daemon=True).start()
time.sleep(7)
clk = watchdog_clock()
if clk is None:
    print("no watchdog thread (run under dltrace with DLTRACE_WATCHDOG=1)")
    sys.exit(1)
first = time.clock_gettime(clk)
time.sleep(SECONDS)
later = time.clock_gettime(clk)
print("watchdog thread: %.2f ms in the first 7 s, %.3f ms/s after "
      "(%d threads waiting in Python, %.0f s)"
      % (first * 1e3, (later - first) * 1e3 / SECONDS, THREADS, SECONDS))
