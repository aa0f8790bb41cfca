"""The fault corpus: one entry per fault kind, run under each launcher in
`launchers` (spawn, torchrun, env, single: torch/gloo; nccl: the fake NCCL
driven through ctypes, ranks started as by `env`).

Keys:
  kind       the fault
  script     cases/<script>.py
  launchers  where it applies
  world      ranks of the job
  codes      the error finding code(s) that say it (first is preferred)
  culprit    rank number, "worker of rank R", or None (no culprit)
  cause      words, any of which in the finding's cause says it right
  line       True: the `# CULPRIT` line of the script (and `# CULPRIT-ALT`
             lines) is where the culprit is; False: no Python line expected
  timeout    --hang-timeout in seconds (the watcher's threshold is 1 s)
  skip_ranks ranks never started; rank_env: {rank: "VAR=value ..."}
  required   launchers on which the case must be right (corpus_ci)
  ci         launchers run by the CI subset
  checks     extra checks: quiet_signals (no warning/error about the
             SIGINT/SIGTERM that follow dltrace's own ending), msg160
             (every finding's message's first line <= 160 characters)
  setup      what the runner prepares: cgroup (a memory cgroup, root),
             nccl_copy (a second NCCL, another version, for rank 1)
  why        what truly happens, said in the docs' table
"""

TORCH3 = ["spawn", "torchrun", "env"]

CASES = [
    dict(kind="never_starts", script="plain_job", launchers=["spawn", "env"],
         world=2, skip_ranks=[1], codes=["MISSING_RANK", "JOB_HANG",
                                         "INIT_HANG"],
         culprit=1, cause=["missing", "never"], line=False,
         ci=["env"],
         why="rank 1 is never started; rank 0 waits in the rendezvous"),
    dict(kind="never_starts", script="plain_job", launchers=["single"],
         world=2, codes=["MISSING_RANK", "JOB_HANG", "INIT_HANG"],
         culprit=1, cause=["missing", "never"], line=False,
         required=["single"], ci=["single"], checks=["one_error"],
         why="the issue's case 2: only rank 0 of 2 is started, "
             "init_method tcp://, rank=0, world_size=2"),
    dict(kind="never_starts", script="plain_job", launchers=["torchrun"],
         world=2, torchrun_args=["--nnodes", "2", "--node_rank", "0",
                                 "--nproc_per_node", "1",
                                 "--master_addr", "127.0.0.1"],
         codes=["MISSING_RANK", "JOB_HANG", "INIT_HANG"],
         culprit=1, cause=["missing", "never"], line=False,
         why="torchrun --nnodes 2 with node 1 never started: the agent "
             "waits in its rendezvous, no rank runs"),
    dict(kind="never_init", script="never_init", launchers=TORCH3, world=2,
         codes=["JOB_HANG", "INIT_HANG"], culprit=1,
         cause=["not waiting"], line=True, ci=["env"],
         why="rank 1 sleeps in prepare() before init_process_group"),
    dict(kind="sleep_before_collective", script="sleep_before_collective",
         launchers=TORCH3, world=2, codes=["JOB_HANG"], culprit=1,
         cause=["not waiting"], line=True,
         required=["spawn", "torchrun"], ci=["spawn", "torchrun"],
         checks={"spawn": ["one_error", "quiet_signals"],
                 "torchrun": ["msg160"]},
         why="the issue's cases 1, 3 (spawn) and 4 (torchrun): rank 1 "
             "sleeps in load_batch before the second all_reduce"),
    dict(kind="other_collective", script="other_collective",
         launchers=TORCH3, world=3, codes=["JOB_HANG"], culprit=1,
         cause=["other collective", "different places"], line=True,
         why="rank 1 calls broadcast, ranks 0 and 2 all_reduce"),
    dict(kind="tensor_size", script="tensor_size", launchers=["spawn", "env"],
         world=2, codes=["CRASH"], culprit=0, cause=["SIGABRT"],
         line=True,
         why="rank 1 all_reduces 8 numbers, rank 0 four: gloo aborts "
             "rank 0 (gloo::EnforceNotMet, SIGABRT); no hang"),
    dict(kind="gil_held", script="gil_held", launchers=TORCH3, world=2,
         codes=["JOB_HANG"], culprit=1, cause=["not waiting"], line=True,
         why="rank 1 blocks in a C function called with the GIL held "
             "(ctypes.PyDLL(None).sleep)"),
    dict(kind="sigstop", script="sigstop", launchers=TORCH3, world=2,
         codes=["JOB_HANG"], culprit=1, cause=["stopped", "SIGSTOP"],
         line=True, ci=["env"],
         why="rank 1 sends itself SIGSTOP before the second all_reduce"),
    dict(kind="oom_killed", script="oom", launchers=TORCH3, world=2,
         codes=["OOM_KILL"], culprit=1, cause=["out-of-memory", "OOM",
                                               "memory"],
         # Killed while it allocates (it runs, it does not wait): the
         # watcher reads stacks of waiting threads, so no line is known.
         line=False, setup=["cgroup"],
         why="rank 1 moves itself into a 256 MiB memory cgroup and "
             "allocates until the kernel kills it"),
    dict(kind="segfault", script="segfault", launchers=TORCH3, world=2,
         codes=["CRASH"], culprit=1, cause=["SIGSEGV"], line=True,
         ci=["env"], why="rank 1 reads address 0 (ctypes.string_at(0))"),
    dict(kind="exit_early", script="exit_early", launchers=TORCH3, world=2,
         codes=["RANK_EXIT", "JOB_HANG", "CRASH"], culprit=1,
         cause=["ended", "exit"],
         # Its line is not known: sys.exit unwinds the interpreter before
         # the process exits, and dltrace hooks no Python code.
         line=False,
         why="rank 1 calls sys.exit(3) before the second all_reduce"),
    dict(kind="exception", script="exception", launchers=TORCH3, world=2,
         codes=["RANK_EXIT", "JOB_HANG", "CRASH"], culprit=1,
         cause=["ended", "exception", "exit"],
         # The traceback goes to the rank's stderr; dltrace hooks no
         # Python code, so the line is not known.
         line=False,
         why="rank 1 raises RuntimeError in step()"),
    dict(kind="dataloader_deadlock", script="dataloader_deadlock",
         launchers=TORCH3, world=2, codes=["JOB_HANG"],
         culprit="worker of rank 1", cause=["not waiting"], line=True,
         why="rank 1's DataLoader worker waits for ever in __getitem__"),
    dict(kind="lock_held", script="lock_held", launchers=TORCH3, world=2,
         codes=["JOB_HANG"], culprit=1, cause=["not waiting"], line=True,
         why="rank 1's main thread waits for a lock its other thread "
             "holds while it sleeps"),
    dict(kind="busy_loop", script="busy_loop", launchers=TORCH3, world=2,
         codes=["JOB_HANG"], culprit=1, cause=["running", "not waiting"],
         line=True, why="rank 1 computes for ever, never waits"),
    dict(kind="pipe_read", script="pipe_read", launchers=TORCH3, world=2,
         codes=["JOB_HANG"], culprit=1, cause=["not waiting"], line=True,
         ci=["env"], why="rank 1 reads a pipe nobody writes to"),
    dict(kind="stuck_in_destroy", script=None, launchers=TORCH3 + ["nccl"],
         world=2, codes=["JOB_HANG"], culprit=1, cause=[], line=False,
         skip_reason="not applicable: gloo's destroy_process_group (torch "
                     "1.13) only drops the process group and never waits "
                     "for peers, and the fake NCCL's ncclCommFinalize/"
                     "ncclCommDestroy return at once; a real NCCL's "
                     "destroy can hang, which this machine cannot run",
         why="no real way here"),
    dict(kind="subgroup_barrier", script="subgroup_barrier",
         launchers=TORCH3, world=3, codes=["JOB_HANG"], culprit=0,
         cause=["other collective", "behind", "different places"],
         line=True,
         # The issue's kind: "a rank that blocks in barrier() with a
         # subgroup", here rank 0, while ranks 1 and 2 wait in all_reduce
         # (rank 1 skipped the barrier).  Which side the program meant is
         # not in the trace (a group's members are not recorded), so the
         # verdict names the rank in the other collective, the odd one.
         why="new_group([0,1]); rank 0 blocks in the subgroup's barrier, "
             "rank 1 skipped it and waits in all_reduce with rank 2"),
    dict(kind="new_group_missing", script="new_group_missing",
         launchers=TORCH3, world=3, codes=["JOB_HANG"], culprit=2,
         cause=["not waiting"], line=True,
         why="rank 2 sleeps before new_group; 0 and 1 wait in it"),
    dict(kind="checkpoint_fifo", script="checkpoint_fifo",
         launchers=TORCH3, world=2, codes=["JOB_HANG"], culprit=0,
         cause=["not waiting"], line=True,
         why="rank 0 opens a FIFO nobody reads to write its checkpoint; "
             "rank 1 waits in barrier"),
    dict(kind="wrong_world_size", script="plain_job",
         launchers=["spawn", "env"], world=2, rank_env={1: "WORLD_SIZE=3"},
         codes=["RANK_MISMATCH", "JOB_HANG", "INIT_HANG"], culprit=1,
         cause=["WORLD_SIZE", "size", "mismatch"],
         # gloo raises in init_process_group at once and the rank exits:
         # no wait to read its place from, and no hook in Python code.
         line=False,
         why="rank 1 is started with WORLD_SIZE=3 (world_size=3 under "
             "spawn)"),
    dict(kind="wrong_master_port", script="plain_job",
         launchers=TORCH3, world=2, rank_env={1: "MASTER_PORT={port2}"},
         codes=["INIT_HANG", "JOB_HANG"], culprit=1,
         cause=["port", "connect", "MASTER_PORT"], line=True,
         why="rank 1 is given another MASTER_PORT, where nobody listens"),
    # ---- the fake NCCL, ranks in Python through ctypes -------------------
    dict(kind="nccl_never_starts", script="nccl_job", launchers=["nccl"],
         world=3, skip_ranks=[2], codes=["MISSING_RANK", "INIT_HANG"],
         culprit=2, cause=["missing", "never"], line=False, ci=["nccl"],
         why="rank 2 of 3 is never started; 0 and 1 wait in "
             "ncclCommInitRank"),
    dict(kind="nccl_never_init", script="nccl_never_init",
         launchers=["nccl"], world=3,
         codes=["JOB_HANG", "MISSING_RANK", "INIT_HANG"], culprit=2,
         cause=["not waiting", "never"], line=True, ci=["nccl"],
         why="rank 2 sleeps before ncclCommInitRank"),
    dict(kind="nccl_behind", script="nccl_behind", launchers=["nccl"],
         world=3, codes=["JOB_HANG"], culprit=2, cause=["behind"],
         line=True, ci=["nccl"],
         why="rank 2 makes one ncclAllReduce less, then reads a pipe"),
    dict(kind="nccl_other_version", script="nccl_job", launchers=["nccl"],
         world=3, codes=["ENV_DIFFERS"], culprit=1,
         cause=["NCCL", "version"], line=False, setup=["nccl_copy"],
         rank_env={1: "CORPUS_NCCL_LIB={nccl_copy} FAKE_NCCL_VERSION=22703"},
         why="rank 1 loads another copy of NCCL, version 2.27.3 (the "
             "others 2.28.9); the fake completes all the same"),
    dict(kind="nccl_wrong_nranks", script="nccl_job", launchers=["nccl"],
         world=3, rank_env={2: "WORLD_SIZE=4"},
         codes=["RANK_MISMATCH", "INIT_HANG", "MISSING_RANK"], culprit=2,
         cause=["nranks", "size", "mismatch"], line=True,
         why="rank 2 calls ncclCommInitRank with nranks 4, the others 3"),
]
