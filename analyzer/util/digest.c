/* MD5 and SHA-256 from their specifications (RFC 1321, FIPS 180-4): both
 * take 64-byte blocks and end with the message's length in bits, MD5's
 * words little-endian, SHA-256's big-endian. */
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static uint32_t dlt_rotl(uint32_t x, unsigned s)
{
	return (x << s) | (x >> (32 - s));
}

static uint32_t dlt_rotr(uint32_t x, unsigned s)
{
	return (x >> s) | (x << (32 - s));
}

/* ---- MD5 ---- */

/* RFC 1321 3.4: T[i] = floor(2^32 * abs(sin(i + 1))). */
static const uint32_t dlt_md5_t[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
	0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
	0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
	0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
	0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
	0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

/* The shifts of each round's four steps. */
static const uint8_t dlt_md5_s[4][4] = {
	{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

static void dlt_md5_block(struct dlt_md5 *c, const uint8_t *b)
{
	uint32_t m[16];
	for (int i = 0; i < 16; i++)
		m[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
		       (uint32_t)b[4 * i + 2] << 16 |
		       (uint32_t)b[4 * i + 3] << 24;
	uint32_t a = c->h[0], bb = c->h[1], cc = c->h[2], d = c->h[3];
	for (int i = 0; i < 64; i++) {
		uint32_t f;
		int g;
		switch (i / 16) {
		case 0:
			f = (bb & cc) | (~bb & d);
			g = i;
			break;
		case 1:
			f = (d & bb) | (~d & cc);
			g = (5 * i + 1) % 16;
			break;
		case 2:
			f = bb ^ cc ^ d;
			g = (3 * i + 5) % 16;
			break;
		default:
			f = cc ^ (bb | ~d);
			g = (7 * i) % 16;
			break;
		}
		f += a + dlt_md5_t[i] + m[g];
		a = d;
		d = cc;
		cc = bb;
		bb += dlt_rotl(f, dlt_md5_s[i / 16][i % 4]);
	}
	c->h[0] += a;
	c->h[1] += bb;
	c->h[2] += cc;
	c->h[3] += d;
}

void dlt_md5_init(struct dlt_md5 *c)
{
	memset(c, 0, sizeof(*c));
	c->h[0] = 0x67452301;
	c->h[1] = 0xefcdab89;
	c->h[2] = 0x98badcfe;
	c->h[3] = 0x10325476;
}

/* Feeds n bytes through block() 64 at a time, keeping the rest in buf:
 * the same for both digests. */
#define DLT_DIGEST_UPDATE(c, p, n, block)                                 \
	do {                                                              \
		const uint8_t *in_ = (p);                                 \
		size_t n_ = (n), have_ = (size_t)((c)->len % 64);         \
		(c)->len += n_;                                           \
		if (have_) {                                              \
			size_t take_ = 64 - have_ < n_ ? 64 - have_ : n_; \
			memcpy((c)->buf + have_, in_, take_);             \
			in_ += take_;                                     \
			n_ -= take_;                                      \
			if (have_ + take_ < 64)                           \
				break;                                    \
			block((c), (c)->buf);                             \
		}                                                         \
		for (; n_ >= 64; in_ += 64, n_ -= 64)                     \
			block((c), in_);                                  \
		memcpy((c)->buf, in_, n_);                                \
	} while (0)

void dlt_md5_update(struct dlt_md5 *c, const void *p, size_t n)
{
	DLT_DIGEST_UPDATE(c, p, n, dlt_md5_block);
}

/* The padding both use: 0x80, zeros to 56 bytes of a block, then the
 * length in bits, in the digest's byte order. */
static void dlt_digest_pad(uint8_t pad[72], uint64_t len, int big, size_t *n)
{
	uint64_t bits = len * 8;
	size_t have = (size_t)(len % 64);
	size_t k = have < 56 ? 56 - have : 120 - have;
	memset(pad, 0, 72);
	pad[0] = 0x80;
	for (int i = 0; i < 8; i++)
		pad[k + (size_t)i] =
			(uint8_t)(bits >> (big ? 56 - 8 * i : 8 * i));
	*n = k + 8;
}

void dlt_md5_final(struct dlt_md5 *c, uint8_t out[DLT_MD5_LEN])
{
	uint8_t pad[72];
	size_t n;
	dlt_digest_pad(pad, c->len, 0, &n);
	dlt_md5_update(c, pad, n);
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 4; k++)
			out[4 * i + k] = (uint8_t)(c->h[i] >> (8 * k));
}

/* ---- SHA-256 ---- */

/* FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
static const uint32_t dlt_sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static void dlt_sha256_block(struct dlt_sha256 *c, const uint8_t *b)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
		       (uint32_t)b[4 * i + 2] << 8 | (uint32_t)b[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = dlt_rotr(w[i - 15], 7) ^ dlt_rotr(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = dlt_rotr(w[i - 2], 17) ^ dlt_rotr(w[i - 2], 19) ^
			      (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t v[8];
	memcpy(v, c->h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t e = v[4], a = v[0];
		uint32_t S1 =
			dlt_rotr(e, 6) ^ dlt_rotr(e, 11) ^ dlt_rotr(e, 25);
		uint32_t ch = (e & v[5]) ^ (~e & v[6]);
		uint32_t t1 = v[7] + S1 + ch + dlt_sha256_k[i] + w[i];
		uint32_t S0 =
			dlt_rotr(a, 2) ^ dlt_rotr(a, 13) ^ dlt_rotr(a, 22);
		uint32_t maj = (a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]);
		uint32_t t2 = S0 + maj;
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		c->h[i] += v[i];
}

void dlt_sha256_init(struct dlt_sha256 *c)
{
	/* FIPS 180-4 5.3.3: the fractional parts of the square roots of
	 * the first 8 primes. */
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
				       0xa54ff53a, 0x510e527f, 0x9b05688c,
				       0x1f83d9ab, 0x5be0cd19};
	memset(c, 0, sizeof(*c));
	memcpy(c->h, h0, sizeof(h0));
}

void dlt_sha256_update(struct dlt_sha256 *c, const void *p, size_t n)
{
	DLT_DIGEST_UPDATE(c, p, n, dlt_sha256_block);
}

void dlt_sha256_final(struct dlt_sha256 *c, uint8_t out[DLT_SHA256_LEN])
{
	uint8_t pad[72];
	size_t n;
	dlt_digest_pad(pad, c->len, 1, &n);
	dlt_sha256_update(c, pad, n);
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 4; k++)
			out[4 * i + k] = (uint8_t)(c->h[i] >> (24 - 8 * k));
}

/* ---- files and text ---- */

int dlt_digest_file(const char *path, uint8_t md5[DLT_MD5_LEN],
		    uint8_t sha256[DLT_SHA256_LEN])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct dlt_md5 m;
	struct dlt_sha256 s;
	dlt_md5_init(&m);
	dlt_sha256_init(&s);
	uint8_t buf[65536];
	ssize_t got;
	while ((got = read(fd, buf, sizeof(buf))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		dlt_md5_update(&m, buf, (size_t)got);
		dlt_sha256_update(&s, buf, (size_t)got);
	}
	close(fd);
	dlt_md5_final(&m, md5);
	dlt_sha256_final(&s, sha256);
	return 0;
}

void dlt_digest_hex(const uint8_t *d, size_t n, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = hex[d[i] >> 4];
		buf[2 * i + 1] = hex[d[i] & 15];
	}
	buf[2 * n] = '\0';
}

void dlt_digest_b64url(const uint8_t *d, size_t n, char *buf)
{
	static const char a[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
		"wxyz0123456789-_";
	size_t k = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)d[i + 1] << 8;
		if (i + 2 < n)
			v |= d[i + 2];
		/* 1 byte left: 2 characters; 2 bytes: 3; else 4. */
		size_t chars = i + 2 < n ? 4 : i + 1 < n ? 3 : 2;
		for (size_t j = 0; j < chars; j++)
			buf[k++] = a[(v >> (18 - 6 * j)) & 63];
	}
	buf[k] = '\0';
}
