/* The hashes of the project, in one place.
 *
 * FNV-1a, 64 bits: the hash of the string table, the audit module's memo,
 * NCCL unique ids and cuDNN convolution problems.  Problem ids are stored
 * in traces and compared across runs and machines: never change it.
 *
 * The ELF symbol hashes (DT_GNU_HASH and DT_HASH), fixed by the ELF and GNU
 * ABIs: the shim looks symbols up in mapped objects with them and the
 * analyzer in files on disk. */
#ifndef DLTRACE_HASH_H
#define DLTRACE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define DLT_FNV_OFFSET 1469598103934665603ull
#define DLT_FNV_PRIME 1099511628211ull

static inline uint64_t dlt_fnv1a_more(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= DLT_FNV_PRIME;
	}
	return h;
}

static inline uint64_t dlt_fnv1a(const void *p, size_t n)
{
	return dlt_fnv1a_more(DLT_FNV_OFFSET, p, n);
}

static inline uint64_t dlt_fnv1a_str(const char *s)
{
	uint64_t h = DLT_FNV_OFFSET;
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= DLT_FNV_PRIME;
	}
	return h;
}

/* DT_GNU_HASH's function (Bernstein's, h * 33 + c from 5381). */
static inline uint32_t dlt_gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = h * 33 + *p;
	return h;
}

/* DT_HASH's function, the System V ABI's. */
static inline uint32_t dlt_sysv_hash(const char *s)
{
	uint32_t h = 0, g;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h = (h << 4) + *p;
		g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

#endif
