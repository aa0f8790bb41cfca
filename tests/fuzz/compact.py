#!/usr/bin/env python3
"""Repacks dltrace traces into small fuzzing seeds.

    compact.py [--max-bytes N] OUT IN.dltrace [IN.dltrace...]

A real trace spends up to 64 KiB per chunk and starts its chunks at 4096;
most of those bytes are zeros the fuzzer would waste its mutations on.  The
seed keeps every committed record of the input (and, in a trace of format
2.0, every compact entry), in the same order, with the same thread and
writer, but in chunks of at most 4096 bytes (larger only if one record
needs it) that start right after the 128-byte header, which the format
allows.  A 1.x trace gets fixed 4096-byte chunks; a 2.x one chunks just
as long as what they hold.
Several inputs are written one after the other into OUT: the analyzer's
fuzz target splits its input at each trace header, so that is how a seed
holds several processes (a fork, the ranks of a job).

With --max-bytes, chunks past that size of a trace are dropped (the fuzzer
wants variety, not a million identical records)."""

import argparse
import struct
import sys

HDR = struct.Struct("<8sIHHIIQQQQQIIIIQQ32s")
assert HDR.size == 128
REC = struct.Struct("<IHHQ")
CHUNK = struct.Struct("<IHHQII")
REC_CHUNK, REC_STRING = 1, 2


def chunks(data):
    """(writer, tid, ts, [record bytes]) for each written chunk of a trace."""
    h = HDR.unpack_from(data, 0)
    major, chunk_size, cursor, data_off = h[2], h[5], h[7], h[8]
    end = min(cursor, len(data))
    c = data_off
    while c + CHUNK.size <= end:
        ln, typ, flags, ts, tid, _ = CHUNK.unpack_from(data, c)
        size = chunk_size if major < 2 else ln
        if major >= 2 and (typ != REC_CHUNK or ln < CHUNK.size or ln % 8):
            break
        cend = min(c + size, end)
        if typ == REC_CHUNK and ln == size:
            recs = []
            off = c + CHUNK.size
            while off + 8 <= cend:
                word = struct.unpack_from("<Q", data, off)[0]
                if word == 0:
                    break
                rl = 8 if major >= 2 and word & 7 else word & 0xffffffff
                if rl % 8 or rl < 8 or off + rl > cend:
                    break
                recs.append(data[off:off + rl])
                off += rl
            yield flags, tid, ts, recs
        c += size


def compact(data, max_bytes):
    h = list(HDR.unpack_from(data, 0))
    if h[0] != b"DLTRACE\0":
        raise ValueError("not a dltrace trace")
    v2 = h[2] >= 2
    src = list(chunks(data))
    biggest = max((len(r) for _, _, _, rs in src for r in rs), default=0)
    size = 4096
    while size < biggest + CHUNK.size:
        size += 4096
    out = []
    for writer, tid, ts, recs in src:
        cur = None
        for r in recs:
            if cur is None or len(cur) + len(r) > size:
                if cur is not None:
                    out.append(cur)
                cur = bytearray(CHUNK.pack(size, REC_CHUNK, writer, ts, tid,
                                           len(out)))
            cur += r
        if cur is not None:
            out.append(cur)
    if max_bytes:
        out = out[:max(1, max_bytes // size)]
    if v2:
        # Each chunk as long as what it holds: its CHUNK record says so.
        for c in out:
            struct.pack_into("<I", c, 0, len(c))
        body = b"".join(bytes(c) for c in out)
    else:
        body = b"".join(bytes(c) + bytes(size - len(c)) for c in out)
    h[4] = HDR.size  # header_size
    h[5] = 0 if v2 else size  # chunk_size
    h[8] = HDR.size  # data_offset
    h[7] = HDR.size + len(body)  # alloc_cursor
    return HDR.pack(*h) + body


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-bytes", type=int, default=0)
    ap.add_argument("out")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    blob = b""
    for path in a.inputs:
        with open(path, "rb") as f:
            blob += compact(f.read(), a.max_bytes)
    with open(a.out, "wb") as f:
        f.write(blob)
    return 0


if __name__ == "__main__":
    sys.exit(main())
