/* MD5 (RFC 1321) and SHA-256 (FIPS 180-4), written here: the digests
 * package managers record for the files they install (dpkg's md5sums,
 * pip's RECORD, conda's paths_data), so that the analyzer can tell a file
 * still as its package installed it from one changed since, without a
 * crypto library.  Not for anything that needs to resist an attacker. */
#ifndef DLTRACE_DIGEST_H
#define DLTRACE_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define DLT_MD5_LEN 16
#define DLT_SHA256_LEN 32

struct dlt_md5 {
	uint32_t h[4];
	uint64_t len; /* bytes so far */
	uint8_t buf[64];
};

struct dlt_sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
};

void dlt_md5_init(struct dlt_md5 *c);
void dlt_md5_update(struct dlt_md5 *c, const void *p, size_t n);
void dlt_md5_final(struct dlt_md5 *c, uint8_t out[DLT_MD5_LEN]);

void dlt_sha256_init(struct dlt_sha256 *c);
void dlt_sha256_update(struct dlt_sha256 *c, const void *p, size_t n);
void dlt_sha256_final(struct dlt_sha256 *c, uint8_t out[DLT_SHA256_LEN]);

/* Both digests of the file at path, read once: 0, or -1 with errno. */
int dlt_digest_file(const char *path, uint8_t md5[DLT_MD5_LEN],
		    uint8_t sha256[DLT_SHA256_LEN]);

/* n bytes as lower-case hex into buf (2n + 1 bytes). */
void dlt_digest_hex(const uint8_t *d, size_t n, char *buf);
/* n bytes as URL-safe base64 without padding (pip's RECORD) into buf
 * (4 * n / 3 + 4 bytes). */
void dlt_digest_b64url(const uint8_t *d, size_t n, char *buf);

#endif
