# A process whose threads wait in Python code, for tests/test_pystack.c:
# the main thread sleeps inside nested functions (one called through C),
# a worker thread waits on
# an Event, a third waits on it 21 calls deep (a record larger than a
# shallow one), each for SECONDS.  It prints "ready PID" when the others
# wait; the test finds each wait's line by the comment that marks it.
import os
import sys
import threading
import time

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
started = threading.Event()
started_deep = threading.Event()
never = threading.Event()


def worker_wait():
    started.set()
    never.wait(SECONDS)  # WORKER_WAIT


def worker_main():
    worker_wait()


def deep(k):
    if k == 0:
        started_deep.set()
        never.wait(SECONDS)  # DEEP_WAIT
    else:
        deep(k - 1)


def inner_sleep():
    print("ready %d" % os.getpid(), flush=True)
    time.sleep(SECONDS)  # MAIN_SLEEP


def middle(_=None):
    inner_sleep()


def outer():
    # middle is called from C (map's next), not by the interpreter's own
    # call: its frame is one C entered, which the walk marks.
    list(map(middle, [0]))


t = threading.Thread(target=worker_main, name="waiter", daemon=True)
t.start()
threading.Thread(target=deep, args=(20,), name="deep", daemon=True).start()
started.wait()
started_deep.wait()
outer()
