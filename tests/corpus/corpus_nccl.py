"""Ranks of the fake NCCL (tests/fakes/nccl.c, the real ABI) driven from
Python through ctypes, started by launch_env.sh with RANK and WORLD_SIZE.

The library is CORPUS_NCCL_LIB (the runner points it at the build's
tests/fakes/nccl/libnccl.so.2, or a rank's own copy); rank 0 publishes the
unique id in CORPUS_TMP/nccl-id, the others wait for it.  Collectives wait
for every rank (FAKE_NCCL_COLL_SYNC=1, set by the runner), as on a GPU.
"""
import ctypes
import os
import time

NCCL_FLOAT32 = 7
NCCL_SUM = 0


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


class Nccl:
    def __init__(self):
        self.rank = int(os.environ["RANK"])
        self.world = int(os.environ["WORLD_SIZE"])
        truth = os.environ.get("CORPUS_TRUTH")
        if truth:
            with open(os.path.join(truth, "rank-%d.pid" % self.rank),
                      "w") as f:
                f.write("%d\n" % os.getpid())
        self.lib = ctypes.CDLL(os.environ["CORPUS_NCCL_LIB"])
        v = ctypes.c_int(0)
        self.lib.ncclGetVersion(ctypes.byref(v))
        self.version = v.value
        self.comm = ctypes.c_void_p()
        n = 1024
        self.send = (ctypes.c_float * n)()
        self.recv = (ctypes.c_float * n)()
        self.count = n
        self.lib.ncclCommInitRank.argtypes = [
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, UniqueId,
            ctypes.c_int]
        self.lib.ncclAllReduce.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
            ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]

    def unique_id(self):
        path = os.path.join(os.environ["CORPUS_TMP"], "nccl-id")
        uid = UniqueId()
        if self.rank == 0:
            self.lib.ncclGetUniqueId(ctypes.byref(uid))
            with open(path + ".tmp", "wb") as f:
                f.write(bytes(uid))
            os.rename(path + ".tmp", path)
            return uid
        for _ in range(6000):
            if os.path.exists(path):
                with open(path, "rb") as f:
                    ctypes.memmove(ctypes.byref(uid), f.read(128), 128)
                return uid
            time.sleep(0.01)
        raise SystemExit("no NCCL id in %s" % path)

    def init_rank(self, uid, nranks=None):
        rc = self.lib.ncclCommInitRank(ctypes.byref(self.comm),  # CULPRIT-ALT(nccl_wrong_nranks)
                                       nranks or self.world, uid, self.rank)
        if rc != 0:
            raise SystemExit("ncclCommInitRank: %d" % rc)

    def all_reduce(self):
        rc = self.lib.ncclAllReduce(self.send, self.recv, self.count,
                                    NCCL_FLOAT32, NCCL_SUM, self.comm, None)
        if rc != 0:
            raise SystemExit("ncclAllReduce: %d" % rc)

    def destroy(self):
        self.lib.ncclCommDestroy(self.comm)
