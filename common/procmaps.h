/* Reading code addresses, for the raw stack capture (common/rawcap.c: the
 * crash handler's own process, async-signal-safe, and the watcher's
 * other one):
 *  - a line of /proc/PID/maps;
 *  - whether the instruction before a word of a stack is a call, so that
 *    the word is a return address.
 * No allocation, no stdio, no locale: header-only and signal-safe. */
#ifndef DLTRACE_PROCMAPS_H
#define DLTRACE_PROCMAPS_H

#include <stddef.h>
#include <stdint.h>

/* One mapping: "lo-hi perms off dev inode path". */
struct dlt_maps_line {
	uint64_t lo, hi, off;
	int exec;	  /* perms has x */
	const char *path; /* into the line; "" for none (anonymous, [stack]) */
};

static inline uint64_t dlt_maps_hex(const char **s)
{
	uint64_t v = 0;
	for (;; (*s)++) {
		char c = **s;
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return v;
		v = v * 16 + (uint64_t)d;
	}
}

/* 0 when line (no newline) is a mapping, with m filled; -1 otherwise.
 * m->path is "" unless the mapping is of a file (a path from "/"). */
static inline int dlt_maps_parse(const char *l, struct dlt_maps_line *m)
{
	m->lo = dlt_maps_hex(&l);
	if (*l++ != '-')
		return -1;
	m->hi = dlt_maps_hex(&l);
	if (*l++ != ' ' || l[0] == '\0' || l[1] == '\0' || l[2] == '\0' ||
	    l[3] == '\0')
		return -1;
	m->exec = l[2] == 'x';
	l += 4;
	if (*l++ != ' ')
		return -1;
	m->off = dlt_maps_hex(&l);
	/* The device and the inode, then the path. */
	for (int field = 0; field < 2 && *l; field++) {
		while (*l == ' ')
			l++;
		while (*l && *l != ' ')
			l++;
	}
	while (*l == ' ')
		l++;
	m->path = *l == '/' ? l : "";
	return 0;
}

/* The 8 bytes before a return address, as read from the process: on
 * x86-64 e8 rel32, or ff /2 in one of its encodings (2 to 7 bytes); on
 * AArch64 BL, BLR and the pointer-authenticated BLRA* (the 4 bytes before
 * it, in b[4..7]). */
static inline int dlt_is_after_call(const uint8_t b[8])
{
#if defined(__aarch64__)
	uint32_t insn = (uint32_t)b[4] | (uint32_t)b[5] << 8 |
			(uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
	return (insn & 0xfc000000u) == 0x94000000u ||
	       (insn & 0xfffffc1fu) == 0xd63f0000u ||
	       (insn & 0xfefff800u) == 0xd63f0800u;
#else
	if (b[3] == 0xe8)
		return 1;
	for (int len = 2; len <= 7; len++) {
		uint8_t op = b[8 - len], modrm = b[8 - len + 1];
		if (op == 0xff && ((modrm >> 3) & 7) == 2)
			return 1;
	}
	return 0;
#endif
}

#endif
