// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the RPC-over-RDMA Version 1 wire codec.
 *
 * Expected wire images are built word by word here, independently of the
 * encoder, so the decoder and the encoder are both checked against
 * RFC 8166 rather than only against each other.  Every buffer handed to
 * the codec is malloc()ed at its exact size so that AddressSanitizer
 * catches a read or write one byte past the end.
 *
 * "test_wire --gen-corpus DIR" writes the fuzzer's seed corpus instead
 * of running the tests.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <asm/byteorder.h>
#include "nfsrdma/wire.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define WB_MAX_WORDS	4096
#define TEST_XID	0xc0ffee01U
#define TEST_CREDITS	128U

/* A wire image under construction, in host-order words. */
struct wb {
	size_t n;
	u32 w[WB_MAX_WORDS];
};

struct ctx {
	struct nfsrdma_wire_hdr h;	/* built by the test */
	struct nfsrdma_wire_hdr d;	/* decoded */
	struct nfsrdma_wire_hdr d2;	/* decoded again */
	struct wb b;
};

static int setup(void **state)
{
	*state = calloc(1, sizeof(struct ctx));
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

/* Wire image helpers */

static void wb_put(struct wb *b, u32 v)
{
	assert_true(b->n < WB_MAX_WORDS);
	b->w[b->n++] = v;
}

static size_t wb_len(const struct wb *b)
{
	return b->n * 4;
}

static void wb_seg(struct wb *b, u32 handle, u32 length, u64 offset)
{
	wb_put(b, handle);
	wb_put(b, length);
	wb_put(b, (u32)(offset >> 32));
	wb_put(b, (u32)offset);
}

static void wb_fixed(struct wb *b, u32 vers, u32 proc)
{
	wb_put(b, TEST_XID);
	wb_put(b, vers);
	wb_put(b, TEST_CREDITS);
	wb_put(b, proc);
}

static void wb_read(struct wb *b, u32 pos, u32 handle, u32 length,
		    u64 offset)
{
	wb_put(b, 1);
	wb_put(b, pos);
	wb_seg(b, handle, length, offset);
}

/* Exactly @len bytes of the image, big-endian, in a fresh allocation. */
static u8 *wb_bytes(const struct wb *b, size_t len)
{
	u8 *buf = malloc(len ? len : 1);
	size_t i;

	assert_non_null(buf);
	assert_true(len <= wb_len(b));
	for (i = 0; i < len; i++)
		buf[i] = (u8)(b->w[i / 4] >> (24 - 8 * (i % 4)));
	return buf;
}

static int wb_decode_len(struct nfsrdma_wire_hdr *h, const struct wb *b,
			 size_t len)
{
	u8 *buf = wb_bytes(b, len);
	int ret = nfsrdma_wire_decode(h, buf, len);

	/* Whatever happened, the header never claims more than it got. */
	assert_true(h->hdr_len <= len);
	free(buf);
	return ret;
}

static int wb_decode(struct nfsrdma_wire_hdr *h, const struct wb *b)
{
	return wb_decode_len(h, b, wb_len(b));
}

/* Header builders */

static void h_init(struct nfsrdma_wire_hdr *h, u32 proc)
{
	memset(h, 0, sizeof(*h));
	h->xid = cpu_to_be32(TEST_XID);
	h->vers = NFSRDMA_WIRE_VERSION;
	h->credits = TEST_CREDITS;
	h->proc = proc;
}

static u32 h_pool_used(const struct nfsrdma_wire_hdr *h)
{
	u32 i, used = 0;

	for (i = 0; i < h->nr_write; i++)
		used += h->write[i].nr_segs;
	if (h->has_reply)
		used += h->reply.nr_segs;
	return used;
}

static void h_read(struct nfsrdma_wire_hdr *h, u32 pos, u32 handle,
		   u32 length, u64 offset)
{
	struct nfsrdma_wire_read_seg *rs;

	assert_true(h->nr_read < NFSRDMA_WIRE_MAX_READ_SEGS);
	rs = &h->read[h->nr_read++];
	rs->position = pos;
	rs->seg.handle = handle;
	rs->seg.length = length;
	rs->seg.offset = offset;
}

static struct nfsrdma_wire_chunk *h_write(struct nfsrdma_wire_hdr *h)
{
	struct nfsrdma_wire_chunk *c;

	assert_true(h->nr_write < NFSRDMA_WIRE_MAX_WRITE_CHUNKS);
	c = &h->write[h->nr_write];
	c->first = h_pool_used(h);
	c->nr_segs = 0;
	h->nr_write++;
	return c;
}

static struct nfsrdma_wire_chunk *h_reply(struct nfsrdma_wire_hdr *h)
{
	h->reply.first = h_pool_used(h);
	h->reply.nr_segs = 0;
	h->has_reply = true;
	return &h->reply;
}

/* Segments go to the chunk opened last, keeping the pool contiguous. */
static void h_seg(struct nfsrdma_wire_hdr *h, struct nfsrdma_wire_chunk *c,
		  u32 handle, u32 length, u64 offset)
{
	u32 used = h_pool_used(h);
	struct nfsrdma_wire_seg *s;

	assert_int_equal(c->first + c->nr_segs, used);
	assert_true(used < NFSRDMA_WIRE_MAX_SEGS);
	s = &h->segs[used];
	s->handle = handle;
	s->length = length;
	s->offset = offset;
	c->nr_segs++;
}

/* Oracle: RFC 8166 section 4 layout of @h, written independently. */

static void wb_chunk(struct wb *b, const struct nfsrdma_wire_hdr *h,
		     const struct nfsrdma_wire_chunk *c)
{
	u32 i;

	wb_put(b, c->nr_segs);
	for (i = 0; i < c->nr_segs; i++) {
		const struct nfsrdma_wire_seg *s = &h->segs[c->first + i];

		wb_seg(b, s->handle, s->length, s->offset);
	}
}

static void wb_hdr(struct wb *b, const struct nfsrdma_wire_hdr *h)
{
	u32 i;

	wb_put(b, be32_to_cpu(h->xid));
	wb_put(b, h->vers);
	wb_put(b, h->credits);
	wb_put(b, h->proc);
	if (h->proc == NFSRDMA_WIRE_PROC_MSGP) {
		wb_put(b, h->msgp_align);
		wb_put(b, h->msgp_thresh);
	}
	if (h->proc == NFSRDMA_WIRE_PROC_MSG ||
	    h->proc == NFSRDMA_WIRE_PROC_NOMSG ||
	    h->proc == NFSRDMA_WIRE_PROC_MSGP) {
		for (i = 0; i < h->nr_read; i++)
			wb_read(b, h->read[i].position, h->read[i].seg.handle,
				h->read[i].seg.length, h->read[i].seg.offset);
		wb_put(b, 0);
		for (i = 0; i < h->nr_write; i++) {
			wb_put(b, 1);
			wb_chunk(b, h, &h->write[i]);
		}
		wb_put(b, 0);
		wb_put(b, h->has_reply);
		if (h->has_reply)
			wb_chunk(b, h, &h->reply);
	}
	if (h->proc == NFSRDMA_WIRE_PROC_ERROR) {
		wb_put(b, h->err);
		if (h->err == NFSRDMA_WIRE_ERR_VERS) {
			wb_put(b, h->vers_low);
			wb_put(b, h->vers_high);
		}
	}
}

/* Comparison of the members a message actually uses */

static void assert_seg_equal(const struct nfsrdma_wire_seg *a,
			     const struct nfsrdma_wire_seg *b)
{
	assert_int_equal(a->handle, b->handle);
	assert_int_equal(a->length, b->length);
	assert_int_equal(a->offset, b->offset);
}

static void assert_chunk_equal(const struct nfsrdma_wire_hdr *ha,
			       const struct nfsrdma_wire_chunk *a,
			       const struct nfsrdma_wire_hdr *hb,
			       const struct nfsrdma_wire_chunk *b)
{
	u32 i;

	assert_int_equal(a->nr_segs, b->nr_segs);
	for (i = 0; i < a->nr_segs; i++)
		assert_seg_equal(&nfsrdma_wire_chunk_segs(ha, a)[i],
				 &nfsrdma_wire_chunk_segs(hb, b)[i]);
}

static void assert_hdr_equal(const struct nfsrdma_wire_hdr *a,
			     const struct nfsrdma_wire_hdr *b)
{
	u32 i;

	assert_int_equal(a->xid, b->xid);
	assert_int_equal(a->vers, b->vers);
	assert_int_equal(a->credits, b->credits);
	assert_int_equal(a->proc, b->proc);
	if (a->proc == NFSRDMA_WIRE_PROC_MSGP) {
		assert_int_equal(a->msgp_align, b->msgp_align);
		assert_int_equal(a->msgp_thresh, b->msgp_thresh);
	}
	if (a->proc == NFSRDMA_WIRE_PROC_MSG ||
	    a->proc == NFSRDMA_WIRE_PROC_NOMSG ||
	    a->proc == NFSRDMA_WIRE_PROC_MSGP) {
		assert_int_equal(a->nr_read, b->nr_read);
		for (i = 0; i < a->nr_read; i++) {
			assert_int_equal(a->read[i].position,
					 b->read[i].position);
			assert_seg_equal(&a->read[i].seg, &b->read[i].seg);
		}
		assert_int_equal(a->nr_write, b->nr_write);
		for (i = 0; i < a->nr_write; i++)
			assert_chunk_equal(a, &a->write[i], b, &b->write[i]);
		assert_int_equal(a->has_reply, b->has_reply);
		if (a->has_reply)
			assert_chunk_equal(a, &a->reply, b, &b->reply);
	}
	if (a->proc == NFSRDMA_WIRE_PROC_ERROR) {
		assert_int_equal(a->err, b->err);
		if (a->err == NFSRDMA_WIRE_ERR_VERS) {
			assert_int_equal(a->vers_low, b->vers_low);
			assert_int_equal(a->vers_high, b->vers_high);
		}
	}
}

static int expected_decode_ret(u32 proc)
{
	if (proc == NFSRDMA_WIRE_PROC_MSGP || proc == NFSRDMA_WIRE_PROC_DONE)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * The full check for a valid header @h: it encodes to exactly the oracle
 * image, the image decodes back to @h with hdr_len covering the image
 * (with and without an inline body behind it), and decode then encode
 * gives the same bytes again.
 */
static void check_valid(struct ctx *t)
{
	size_t len, i;
	u8 *want, *got;
	int ret;

	t->b.n = 0;
	wb_hdr(&t->b, &t->h);
	len = wb_len(&t->b);
	want = wb_bytes(&t->b, len);

	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), len);
	got = malloc(len);
	assert_non_null(got);
	assert_int_equal(nfsrdma_wire_encode(got, len, &t->h), len);
	assert_memory_equal(got, want, len);

	ret = expected_decode_ret(t->h.proc);
	assert_int_equal(wb_decode(&t->d, &t->b), ret);
	assert_int_equal(t->d.hdr_len, len);
	assert_hdr_equal(&t->h, &t->d);

	memset(got, 0, len);
	assert_int_equal(nfsrdma_wire_encode(got, len, &t->d), len);
	assert_memory_equal(got, want, len);
	free(got);
	free(want);

	/* An inline RPC message after the header is not part of it. */
	for (i = 0; i < 3; i++)
		wb_put(&t->b, 0xdead0000 + (u32)i);
	assert_int_equal(wb_decode(&t->d2, &t->b), ret);
	assert_int_equal(t->d2.hdr_len, len);
	assert_hdr_equal(&t->h, &t->d2);
	t->b.n -= 3;
}

/*
 * Fill @h with one combination of lists.  @lists bit 0 adds a Read list
 * of two chunks, bit 1 a Write list of two chunks, bit 2 a Reply chunk.
 */
static void h_combo(struct nfsrdma_wire_hdr *h, u32 proc, unsigned int lists)
{
	struct nfsrdma_wire_chunk *c;
	/* A NOMSG Call carries its message in a Position-zero chunk. */
	u32 pos = proc == NFSRDMA_WIRE_PROC_NOMSG ? 0 : 64;

	h_init(h, proc);
	if (proc == NFSRDMA_WIRE_PROC_MSGP) {
		h->msgp_align = 1024;
		h->msgp_thresh = 4096;
	}
	if (lists & 1) {
		h_read(h, pos, 0x100, 4096, 0x7f0000001000ULL);
		h_read(h, pos, 0x101, 100, 0x7f0000002000ULL);
		h_read(h, pos + 4196, 0x102, 8192, 0x7f0000010000ULL);
	}
	if (lists & 2) {
		c = h_write(h);
		h_seg(h, c, 0x200, 65536, 0xffff888000000000ULL);
		h_seg(h, c, 0x201, 65536, 0xffff888000010000ULL);
		c = h_write(h);
		h_seg(h, c, 0x202, 512, 0x1000);
	}
	if (lists & 4) {
		c = h_reply(h);
		h_seg(h, c, 0x300, 1024, 0);
		h_seg(h, c, 0x301, 1024, 0x400);
		h_seg(h, c, 0x302, 2048, 0x800);
	}
}

/* Round trips */

static void test_golden_msg(void **state)
{
	/* Literal RFC 8166 image; no helper is involved in building it. */
	static const u8 img[] = {
		0x11, 0x22, 0x33, 0x44,	/* xid */
		0x00, 0x00, 0x00, 0x01,	/* vers */
		0x00, 0x00, 0x00, 0x20,	/* credits */
		0x00, 0x00, 0x00, 0x00,	/* RDMA_MSG */
		0x00, 0x00, 0x00, 0x01,	/* read entry present */
		0x00, 0x00, 0x00, 0x80,	/* position 128 */
		0xaa, 0xbb, 0xcc, 0xdd,	/* handle */
		0x00, 0x00, 0x10, 0x00,	/* length 4096 */
		0x01, 0x23, 0x45, 0x67,	/* offset, high word */
		0x89, 0xab, 0xcd, 0xef,	/* offset, low word */
		0x00, 0x00, 0x00, 0x00,	/* end of Read list */
		0x00, 0x00, 0x00, 0x01,	/* write chunk present */
		0x00, 0x00, 0x00, 0x01,	/* one segment */
		0x00, 0x00, 0x00, 0x07,	/* handle */
		0x00, 0x00, 0x00, 0x00,	/* length 0 */
		0xff, 0xff, 0xff, 0xff,	/* offset U64_MAX */
		0xff, 0xff, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x00,	/* end of Write list */
		0x00, 0x00, 0x00, 0x00,	/* no Reply chunk */
		0xde, 0xad, 0xbe, 0xef,	/* inline RPC message */
	};
	struct ctx *t = *state;
	size_t hlen = sizeof(img) - 4;
	u8 *buf = malloc(sizeof(img));
	const struct nfsrdma_wire_seg *s;

	memcpy(buf, img, sizeof(img));
	assert_int_equal(nfsrdma_wire_decode(&t->d, buf, sizeof(img)), 0);
	assert_int_equal(t->d.hdr_len, hlen);
	assert_memory_equal(&t->d.xid, img, 4);
	assert_int_equal(t->d.vers, 1);
	assert_int_equal(t->d.credits, 32);
	assert_int_equal(t->d.proc, NFSRDMA_WIRE_PROC_MSG);
	assert_int_equal(t->d.nr_read, 1);
	assert_int_equal(t->d.read[0].position, 128);
	assert_int_equal(t->d.read[0].seg.handle, 0xaabbccdd);
	assert_int_equal(t->d.read[0].seg.length, 4096);
	assert_int_equal(t->d.read[0].seg.offset, 0x0123456789abcdefULL);
	assert_int_equal(t->d.nr_write, 1);
	assert_int_equal(t->d.write[0].nr_segs, 1);
	s = nfsrdma_wire_chunk_segs(&t->d, &t->d.write[0]);
	assert_int_equal(s->handle, 7);
	assert_int_equal(s->length, 0);
	assert_int_equal(s->offset, UINT64_MAX);
	assert_false(t->d.has_reply);
	/* The Read chunk at 128 needs 128 inline bytes in front of it. */
	assert_int_equal(nfsrdma_wire_check_inline(&t->d, 4,
						   NFSRDMA_WIRE_DIR_CALL),
			 -EINVAL);
	assert_int_equal(nfsrdma_wire_check_inline(&t->d, 128,
						   NFSRDMA_WIRE_DIR_CALL), 0);

	memset(buf, 0, sizeof(img));
	assert_int_equal(nfsrdma_wire_encode(buf, hlen, &t->d), hlen);
	assert_memory_equal(buf, img, hlen);
	free(buf);
}

static void test_roundtrip_combos(void **state)
{
	static const u32 procs[] = {
		NFSRDMA_WIRE_PROC_MSG,
		NFSRDMA_WIRE_PROC_NOMSG,
		NFSRDMA_WIRE_PROC_MSGP,
	};
	struct ctx *t = *state;
	unsigned int p, lists;

	for (p = 0; p < 3; p++) {
		for (lists = 0; lists < 8; lists++) {
			if (procs[p] == NFSRDMA_WIRE_PROC_NOMSG && !lists)
				continue;	/* test_nomsg_empty */
			h_combo(&t->h, procs[p], lists);
			check_valid(t);
		}
	}
}

static void test_roundtrip_done(void **state)
{
	struct ctx *t = *state;

	h_init(&t->h, NFSRDMA_WIRE_PROC_DONE);
	check_valid(t);
	assert_int_equal(t->d.hdr_len, NFSRDMA_WIRE_FIXED_SIZE);
}

static void test_roundtrip_errors(void **state)
{
	struct ctx *t = *state;

	h_init(&t->h, NFSRDMA_WIRE_PROC_ERROR);
	t->h.err = NFSRDMA_WIRE_ERR_CHUNK;
	check_valid(t);
	assert_int_equal(t->d.hdr_len, NFSRDMA_WIRE_ERR_CHUNK_SIZE);

	t->h.err = NFSRDMA_WIRE_ERR_VERS;
	t->h.vers_low = 1;
	t->h.vers_high = 1;
	check_valid(t);
	assert_int_equal(t->d.hdr_len, NFSRDMA_WIRE_ERR_VERS_SIZE);

	t->h.vers_low = 0;
	t->h.vers_high = UINT32_MAX;
	check_valid(t);
}

static void test_roundtrip_offsets(void **state)
{
	static const u64 offs[] = {
		0, 1, 0xffffffffULL, 0x100000000ULL, 0x0123456789abcdefULL,
		UINT64_MAX - 1, UINT64_MAX,
	};
	struct ctx *t = *state;
	struct nfsrdma_wire_chunk *c;
	size_t i;

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	c = h_write(&t->h);
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		h_read(&t->h, 8, (u32)i, 1, offs[i]);
		h_seg(&t->h, c, (u32)i, 1, offs[i]);
	}
	check_valid(t);
}

/* Zero-length segments and empty chunks are legal; see wire-codec.rst. */
static void test_roundtrip_zero_lengths(void **state)
{
	struct ctx *t = *state;
	struct nfsrdma_wire_chunk *c;

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	h_read(&t->h, 4, 1, 0, 0);
	h_write(&t->h);			/* zero segments */
	c = h_write(&t->h);
	h_seg(&t->h, c, 2, 0, 0);	/* one segment of length zero */
	h_reply(&t->h);			/* present, zero segments */
	check_valid(t);
}

static void test_roundtrip_positions(void **state)
{
	struct ctx *t = *state;

	/* Equal positions form one chunk; a later one starts another. */
	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	h_read(&t->h, 8, 1, 10, 0);
	h_read(&t->h, 8, 2, 10, 0);
	h_read(&t->h, 12, 3, 10, 0);
	h_read(&t->h, UINT32_MAX - 3, 4, 3, 0);	/* ends at U32_MAX */
	check_valid(t);
}

/* Truncation and short buffers */

static void build_valid_set(struct nfsrdma_wire_hdr *h, unsigned int n)
{
	/* 0..23: combos, 24: DONE, 25: ERR_CHUNK, 26: ERR_VERS */
	if (n < 24) {
		u32 proc = n / 8;

		if (proc == NFSRDMA_WIRE_PROC_NOMSG && !(n % 8))
			h_combo(h, proc, 4);
		else
			h_combo(h, proc, n % 8);
		return;
	}
	if (n == 24) {
		h_init(h, NFSRDMA_WIRE_PROC_DONE);
		return;
	}
	h_init(h, NFSRDMA_WIRE_PROC_ERROR);
	h->err = n == 25 ? NFSRDMA_WIRE_ERR_CHUNK : NFSRDMA_WIRE_ERR_VERS;
	h->vers_low = 1;
	h->vers_high = 1;
}

#define VALID_SET_SIZE 27

static void test_truncated_every_length(void **state)
{
	struct ctx *t = *state;
	unsigned int n;
	size_t len;

	for (n = 0; n < VALID_SET_SIZE; n++) {
		build_valid_set(&t->h, n);
		t->b.n = 0;
		wb_hdr(&t->b, &t->h);
		assert_int_equal(wb_decode(&t->d, &t->b),
				 expected_decode_ret(t->h.proc));
		for (len = 0; len < wb_len(&t->b); len++) {
			assert_int_equal(wb_decode_len(&t->d, &t->b, len),
					 -EMSGSIZE);
			assert_int_equal(t->d.hdr_len, 0);
		}
	}
}

static void test_encode_short_buffer(void **state)
{
	struct ctx *t = *state;
	unsigned int n;
	size_t len, size, i;
	u8 *buf;

	for (n = 0; n < VALID_SET_SIZE; n++) {
		build_valid_set(&t->h, n);
		size = (size_t)nfsrdma_wire_hdr_size(&t->h);
		for (len = 0; len < size; len++) {
			buf = malloc(len ? len : 1);
			memset(buf, 0xa5, len);
			assert_int_equal(nfsrdma_wire_encode(buf, len, &t->h),
					 -EMSGSIZE);
			for (i = 0; i < len; i++)
				assert_int_equal(buf[i], 0xa5);
			free(buf);
		}
	}
}

/* Fixed fields, version and procedure */

static void test_short_prefix(void **state)
{
	struct ctx *t = *state;
	size_t len;

	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_DONE);
	for (len = 0; len < NFSRDMA_WIRE_FIXED_SIZE; len++)
		assert_int_equal(wb_decode_len(&t->d, &t->b, len), -EMSGSIZE);
	assert_int_equal(nfsrdma_wire_decode(&t->d, NULL, 0), -EMSGSIZE);
}

static void test_bad_version(void **state)
{
	static const u32 vers[] = { 0, 2, 0x01000000, UINT32_MAX };
	struct ctx *t = *state;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vers); i++) {
		t->b.n = 0;
		wb_fixed(&t->b, vers[i], NFSRDMA_WIRE_PROC_MSG);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		assert_int_equal(wb_decode(&t->d, &t->b), -EPROTONOSUPPORT);
		assert_int_equal(be32_to_cpu(t->d.xid), TEST_XID);
		assert_int_equal(t->d.vers, vers[i]);
		assert_int_equal(t->d.credits, TEST_CREDITS);
		assert_int_equal(t->d.err, 0);
		assert_int_equal(t->d.hdr_len, 0);

		/* The three-word prefix alone is enough to answer ERR_VERS. */
		assert_int_equal(wb_decode_len(&t->d, &t->b,
					       NFSRDMA_WIRE_PREFIX_SIZE),
				 -EPROTONOSUPPORT);
		assert_int_equal(be32_to_cpu(t->d.xid), TEST_XID);
	}
}

static void test_foreign_err_vers(void **state)
{
	struct ctx *t = *state;

	/* A version-2 peer refusing us still uses the fixed ERR_VERS layout. */
	wb_fixed(&t->b, 2, NFSRDMA_WIRE_PROC_ERROR);
	wb_put(&t->b, NFSRDMA_WIRE_ERR_VERS);
	wb_put(&t->b, 2);
	wb_put(&t->b, 3);
	assert_int_equal(wb_decode(&t->d, &t->b), -EPROTONOSUPPORT);
	assert_int_equal(t->d.proc, NFSRDMA_WIRE_PROC_ERROR);
	assert_int_equal(t->d.err, NFSRDMA_WIRE_ERR_VERS);
	assert_int_equal(t->d.vers_low, 2);
	assert_int_equal(t->d.vers_high, 3);
	assert_int_equal(t->d.hdr_len, NFSRDMA_WIRE_ERR_VERS_SIZE);

	/* Truncated, or an inverted range: nothing beyond the prefix. */
	assert_int_equal(wb_decode_len(&t->d, &t->b, wb_len(&t->b) - 1),
			 -EPROTONOSUPPORT);
	assert_int_equal(t->d.err, 0);
	assert_int_equal(t->d.hdr_len, 0);
	t->b.w[5] = 4;
	assert_int_equal(wb_decode(&t->d, &t->b), -EPROTONOSUPPORT);
	assert_int_equal(t->d.err, 0);

	/* A foreign ERR_CHUNK is not version-independent. */
	t->b.w[4] = NFSRDMA_WIRE_ERR_CHUNK;
	assert_int_equal(wb_decode(&t->d, &t->b), -EPROTONOSUPPORT);
	assert_int_equal(t->d.err, 0);
}

static void test_bad_proc(void **state)
{
	static const u32 procs[] = { 5, 6, 0x80000000, UINT32_MAX };
	struct ctx *t = *state;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(procs); i++) {
		t->b.n = 0;
		wb_fixed(&t->b, 1, procs[i]);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);
		assert_int_equal(be32_to_cpu(t->d.xid), TEST_XID);
	}
}

static void test_msgp_done_refused(void **state)
{
	struct ctx *t = *state;

	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSGP);
	wb_put(&t->b, 0x1000);
	wb_put(&t->b, 0x2000);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	assert_int_equal(wb_decode(&t->d, &t->b), -EOPNOTSUPP);
	assert_int_equal(t->d.proc, NFSRDMA_WIRE_PROC_MSGP);
	assert_int_equal(t->d.msgp_align, 0x1000);
	assert_int_equal(t->d.msgp_thresh, 0x2000);
	assert_int_equal(t->d.hdr_len, NFSRDMA_WIRE_MIN_MSG_SIZE + 8);
	assert_int_equal(nfsrdma_wire_check_inline(&t->d, 0,
						   NFSRDMA_WIRE_DIR_CALL),
			 -EOPNOTSUPP);

	/* A malformed MSGP reports the malformation, not the procedure. */
	t->b.w[6] = 2;
	assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);
	t->b.n = 5;
	assert_int_equal(wb_decode(&t->d, &t->b), -EMSGSIZE);

	t->b.n = 0;
	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_DONE);
	assert_int_equal(wb_decode(&t->d, &t->b), -EOPNOTSUPP);
	assert_int_equal(t->d.proc, NFSRDMA_WIRE_PROC_DONE);
	assert_int_equal(t->d.hdr_len, NFSRDMA_WIRE_FIXED_SIZE);
	assert_int_equal(nfsrdma_wire_check_inline(&t->d, 0,
						   NFSRDMA_WIRE_DIR_CALL),
			 -EOPNOTSUPP);
}

static void test_bad_error_code(void **state)
{
	static const u32 errs[] = { 0, 3, UINT32_MAX };
	struct ctx *t = *state;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		t->b.n = 0;
		wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_ERROR);
		wb_put(&t->b, errs[i]);
		wb_put(&t->b, 1);
		wb_put(&t->b, 1);
		assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);
	}

	t->b.n = 0;
	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_ERROR);
	wb_put(&t->b, NFSRDMA_WIRE_ERR_VERS);
	wb_put(&t->b, 2);
	wb_put(&t->b, 1);
	assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);
}

/* Discriminators */

static void test_discriminators(void **state)
{
	static const u32 bad[] = { 2, 3, 0x100, UINT32_MAX };
	struct ctx *t = *state;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* first Read list entry */
		t->b.n = 0;
		wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
		wb_put(&t->b, bad[i]);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);

		/* second Read list entry */
		t->b.n = 0;
		wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
		wb_read(&t->b, 0, 1, 1, 0);
		wb_put(&t->b, bad[i]);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);

		/* Write list */
		t->b.n = 0;
		wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
		wb_put(&t->b, 0);
		wb_put(&t->b, bad[i]);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);

		/* Reply chunk */
		t->b.n = 0;
		wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		wb_put(&t->b, bad[i]);
		wb_put(&t->b, 0);
		assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);
	}
}

static void test_nomsg_empty(void **state)
{
	struct ctx *t = *state;

	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_NOMSG);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);

	h_init(&t->h, NFSRDMA_WIRE_PROC_NOMSG);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
}

/* Read positions */

static void test_read_position_alignment(void **state)
{
	static const u32 pos[] = { 1, 2, 3, 5, 4097, UINT32_MAX };
	struct ctx *t = *state;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pos); i++) {
		t->b.n = 0;
		wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
		wb_read(&t->b, pos[i], 1, 0, 0);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		wb_put(&t->b, 0);
		assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);

		h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
		h_read(&t->h, pos[i], 1, 0, 0);
		assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
	}
}

static void test_read_position_decreasing(void **state)
{
	struct ctx *t = *state;

	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
	wb_read(&t->b, 8, 1, 4, 0);
	wb_read(&t->b, 4, 2, 4, 0);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);

	/* A later chunk may not slip back behind an earlier one either. */
	t->b.n = 0;
	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
	wb_read(&t->b, 8, 1, 4, 0);
	wb_read(&t->b, 16, 2, 4, 0);
	wb_read(&t->b, 8, 3, 4, 0);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	h_read(&t->h, 8, 1, 4, 0);
	h_read(&t->h, 4, 2, 4, 0);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
}

/* Chunk lengths */

static void read_chunk(struct ctx *t, u32 pos, u32 len_a, u32 len_b)
{
	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	h_read(&t->h, pos, 1, len_a, 0);
	if (len_b)
		h_read(&t->h, pos, 2, len_b, 0);
	t->b.n = 0;
	wb_hdr(&t->b, &t->h);
}

static void test_read_chunk_length(void **state)
{
	struct ctx *t = *state;

	read_chunk(t, 0, UINT32_MAX, 0);
	check_valid(t);
	read_chunk(t, 0, 0x80000000U, 0x7fffffffU);
	check_valid(t);

	read_chunk(t, 0, UINT32_MAX, 1);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);
	read_chunk(t, 0, 0x80000000U, 0x80000000U);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);

	/* position + length must stay inside a 32-bit XDR stream */
	read_chunk(t, 4, UINT32_MAX - 4, 0);
	check_valid(t);
	read_chunk(t, 4, UINT32_MAX - 3, 0);
	assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
	read_chunk(t, UINT32_MAX - 3, 2, 2);
	assert_int_equal(wb_decode(&t->d, &t->b), -EINVAL);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
}

static void write_and_reply(struct ctx *t, u32 wa, u32 wb, u32 ra, u32 rb)
{
	struct nfsrdma_wire_chunk *c;

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	c = h_write(&t->h);
	h_seg(&t->h, c, 1, wa, 0);
	h_seg(&t->h, c, 2, wb, 0);
	c = h_reply(&t->h);
	h_seg(&t->h, c, 3, ra, 0);
	h_seg(&t->h, c, 4, rb, 0);
	t->b.n = 0;
	wb_hdr(&t->b, &t->h);
}

static void test_write_reply_chunk_length(void **state)
{
	struct ctx *t = *state;

	write_and_reply(t, UINT32_MAX, 0, UINT32_MAX, 0);
	check_valid(t);
	write_and_reply(t, 0x80000000U, 0x7fffffffU, 0x7fffffffU, 0x80000000U);
	check_valid(t);

	write_and_reply(t, UINT32_MAX, 1, 1, 1);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);
	write_and_reply(t, 1, 1, 0x80000000U, 0x80000000U);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);
}

/* Count limits */

static void test_read_limits(void **state)
{
	struct ctx *t = *state;
	u32 i;

	/* one Read chunk at the segment limit, then one past it */
	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	for (i = 0; i < NFSRDMA_WIRE_MAX_CHUNK_SEGS; i++)
		h_read(&t->h, 8, i, 4096, (u64)i << 12);
	check_valid(t);
	h_read(&t->h, 8, i, 4096, (u64)i << 12);
	t->b.n = 0;
	wb_hdr(&t->b, &t->h);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);

	/* the whole Read list at its limit, spread over two chunks */
	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	for (i = 0; i < NFSRDMA_WIRE_MAX_CHUNK_SEGS; i++)
		h_read(&t->h, 8, i, 4096, 0);
	while (t->h.nr_read < NFSRDMA_WIRE_MAX_READ_SEGS)
		h_read(&t->h, 16, 0, 4, 0);
	check_valid(t);

	/* one entry more cannot even be represented in the struct */
	t->b.n = 0;
	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
	for (i = 0; i <= NFSRDMA_WIRE_MAX_READ_SEGS; i++)
		wb_read(&t->b, 8 + 4 * (i / 8), i, 4, 0);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	t->h.nr_read = NFSRDMA_WIRE_MAX_READ_SEGS + 1;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);
}

static void test_write_chunk_seg_limit(void **state)
{
	struct ctx *t = *state;
	struct nfsrdma_wire_chunk *c;
	u32 i;

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	c = h_write(&t->h);
	for (i = 0; i < NFSRDMA_WIRE_MAX_CHUNK_SEGS; i++)
		h_seg(&t->h, c, i, 4096, (u64)i << 12);
	check_valid(t);

	h_seg(&t->h, c, i, 4096, (u64)i << 12);
	t->b.n = 0;
	wb_hdr(&t->b, &t->h);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);

	/* same for the Reply chunk */
	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	c = h_reply(&t->h);
	for (i = 0; i < NFSRDMA_WIRE_MAX_CHUNK_SEGS; i++)
		h_seg(&t->h, c, i, 4096, 0);
	check_valid(t);
	h_seg(&t->h, c, i, 4096, 0);
	t->b.n = 0;
	wb_hdr(&t->b, &t->h);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);
}

static void test_write_chunk_count_limit(void **state)
{
	struct ctx *t = *state;
	struct nfsrdma_wire_chunk *c;
	u32 i;

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	for (i = 0; i < NFSRDMA_WIRE_MAX_WRITE_CHUNKS; i++) {
		c = h_write(&t->h);
		h_seg(&t->h, c, i, 512, 0);
	}
	check_valid(t);

	t->b.n = 0;
	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
	wb_put(&t->b, 0);
	for (i = 0; i <= NFSRDMA_WIRE_MAX_WRITE_CHUNKS; i++) {
		wb_put(&t->b, 1);
		wb_put(&t->b, 1);
		wb_seg(&t->b, i, 512, 0);
	}
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);

	t->h.nr_write = NFSRDMA_WIRE_MAX_WRITE_CHUNKS + 1;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);
}

/* @extra segments beyond a full chunk, in a second Write chunk or the Reply */
static void pool_image(struct ctx *t, u32 extra, bool in_reply)
{
	u32 i;

	t->b.n = 0;
	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
	wb_put(&t->b, 0);
	wb_put(&t->b, 1);
	wb_put(&t->b, NFSRDMA_WIRE_MAX_CHUNK_SEGS);
	for (i = 0; i < NFSRDMA_WIRE_MAX_CHUNK_SEGS; i++)
		wb_seg(&t->b, i, 4096, 0);
	if (!in_reply) {
		wb_put(&t->b, 1);
		wb_put(&t->b, extra);
		for (i = 0; i < extra; i++)
			wb_seg(&t->b, i, 4096, 0);
	}
	wb_put(&t->b, 0);
	wb_put(&t->b, in_reply);
	if (in_reply) {
		wb_put(&t->b, extra);
		for (i = 0; i < extra; i++)
			wb_seg(&t->b, i, 4096, 0);
	}
}

static void test_segment_pool_limit(void **state)
{
	u32 room = NFSRDMA_WIRE_MAX_SEGS - NFSRDMA_WIRE_MAX_CHUNK_SEGS;
	struct ctx *t = *state;

	pool_image(t, room, false);
	assert_int_equal(wb_decode(&t->d, &t->b), 0);
	assert_int_equal(t->d.write[1].first, NFSRDMA_WIRE_MAX_CHUNK_SEGS);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->d), wb_len(&t->b));
	pool_image(t, room + 1, false);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);

	pool_image(t, room, true);
	assert_int_equal(wb_decode(&t->d, &t->b), 0);
	assert_int_equal(nfsrdma_wire_hdr_size(&t->d), wb_len(&t->b));
	pool_image(t, room + 1, true);
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
}

/* The encoder polices what a caller may have built by hand. */
static void test_encode_chunk_refs(void **state)
{
	struct ctx *t = *state;

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	t->h.nr_write = 2;
	t->h.write[0].first = 0;
	t->h.write[0].nr_segs = 200;
	t->h.write[1].first = 0;
	t->h.write[1].nr_segs = 200;	/* shared entries: 400 on the wire */
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -E2BIG);

	t->h.nr_write = 1;
	t->h.write[0].first = NFSRDMA_WIRE_MAX_SEGS + 1;
	t->h.write[0].nr_segs = 0;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
	t->h.write[0].first = NFSRDMA_WIRE_MAX_SEGS;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h),
			 nfsrdma_wire_chunks_size(0, 1, 0, false, 0));
	t->h.write[0].first = 100;
	t->h.write[0].nr_segs = 200;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
	t->h.write[0].first = UINT32_MAX;
	t->h.write[0].nr_segs = 2;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	t->h.has_reply = true;
	t->h.reply.first = NFSRDMA_WIRE_MAX_SEGS - 1;
	t->h.reply.nr_segs = 2;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
}

/* Counts judged before any loop runs */

static void test_count_vs_bytes(void **state)
{
	struct ctx *t = *state;
	u32 i;

	/* a count of 10 with three segments' worth of bytes behind it */
	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
	wb_put(&t->b, 0);
	wb_put(&t->b, 1);
	wb_put(&t->b, 10);
	for (i = 0; i < 3; i++)
		wb_seg(&t->b, i, 1, 0);
	assert_int_equal(wb_decode(&t->d, &t->b), -EMSGSIZE);
	assert_int_equal(t->d.nr_write, 0);

	/* huge counts are over the limit, whatever follows */
	t->b.w[6] = UINT32_MAX;
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
	t->b.w[6] = NFSRDMA_WIRE_MAX_CHUNK_SEGS + 1;
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);

	/* a Reply chunk count with no bytes at all behind it */
	t->b.n = 0;
	wb_fixed(&t->b, 1, NFSRDMA_WIRE_PROC_MSG);
	wb_put(&t->b, 0);
	wb_put(&t->b, 0);
	wb_put(&t->b, 1);
	wb_put(&t->b, 5);
	assert_int_equal(wb_decode(&t->d, &t->b), -EMSGSIZE);
	assert_false(t->d.has_reply);
	t->b.w[7] = 0x10000000;
	assert_int_equal(wb_decode(&t->d, &t->b), -E2BIG);
}

/* Size helpers */

static void test_chunks_size(void **state)
{
	struct ctx *t = *state;

	assert_int_equal(nfsrdma_wire_chunks_size(0, 0, 0, false, 0),
			 NFSRDMA_WIRE_MIN_MSG_SIZE);
	assert_int_equal(nfsrdma_wire_chunks_size(0, 0, 0, true, 0),
			 NFSRDMA_WIRE_MIN_MSG_SIZE + 4);

	h_combo(&t->h, NFSRDMA_WIRE_PROC_MSG, 7);
	assert_int_equal(nfsrdma_wire_chunks_size(3, 2, 3, true, 3),
			 nfsrdma_wire_hdr_size(&t->h));

	assert_int_equal(nfsrdma_wire_chunks_size(NFSRDMA_WIRE_MAX_READ_SEGS,
						  NFSRDMA_WIRE_MAX_WRITE_CHUNKS,
						  NFSRDMA_WIRE_MAX_SEGS -
						  NFSRDMA_WIRE_MAX_CHUNK_SEGS,
						  true,
						  NFSRDMA_WIRE_MAX_CHUNK_SEGS),
			 NFSRDMA_WIRE_MAX_HDR_SIZE - 8);

	assert_int_equal(nfsrdma_wire_chunks_size(NFSRDMA_WIRE_MAX_READ_SEGS + 1,
						  0, 0, false, 0), 0);
	assert_int_equal(nfsrdma_wire_chunks_size(0,
						  NFSRDMA_WIRE_MAX_WRITE_CHUNKS + 1,
						  0, false, 0), 0);
	assert_int_equal(nfsrdma_wire_chunks_size(0, 0, 1, false, 0), 0);
	assert_int_equal(nfsrdma_wire_chunks_size(0, 1,
						  NFSRDMA_WIRE_MAX_CHUNK_SEGS + 1,
						  false, 0), 0);
	assert_int_equal(nfsrdma_wire_chunks_size(0, 0, 0, false, 1), 0);
	assert_int_equal(nfsrdma_wire_chunks_size(0, 0, 0, true,
						  NFSRDMA_WIRE_MAX_CHUNK_SEGS + 1),
			 0);
	assert_int_equal(nfsrdma_wire_chunks_size(0, 2,
						  NFSRDMA_WIRE_MAX_SEGS, true, 1),
			 0);
	assert_int_equal(nfsrdma_wire_chunks_size(UINT32_MAX, UINT32_MAX,
						  UINT32_MAX, true, UINT32_MAX),
			 0);
}

static void test_encode_validation(void **state)
{
	struct ctx *t = *state;

	h_combo(&t->h, NFSRDMA_WIRE_PROC_MSG, 7);
	t->h.vers = 2;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EPROTONOSUPPORT);
	t->h.vers = 1;
	t->h.proc = 5;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);

	h_init(&t->h, NFSRDMA_WIRE_PROC_ERROR);
	t->h.err = 3;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
	t->h.err = 0;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
	t->h.err = NFSRDMA_WIRE_ERR_VERS;
	t->h.vers_low = 2;
	t->h.vers_high = 1;
	assert_int_equal(nfsrdma_wire_hdr_size(&t->h), -EINVAL);
	assert_int_equal(nfsrdma_wire_encode(t->b.w, sizeof(t->b.w), &t->h),
			 -EINVAL);
}

/* RDMA_ERROR builders */

static void test_err_vers_encode(void **state)
{
	static const u8 want[] = {
		0xc0, 0xff, 0xee, 0x01, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x04,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x01,
	};
	struct ctx *t = *state;
	__be32 xid = cpu_to_be32(TEST_XID);
	size_t len;
	u8 *buf;

	for (len = 0; len < sizeof(want); len++) {
		buf = malloc(len ? len : 1);
		assert_int_equal(nfsrdma_wire_encode_err_vers(buf, len, xid,
							      5, 1, 1),
				 -EMSGSIZE);
		free(buf);
	}
	buf = malloc(sizeof(want));
	assert_int_equal(nfsrdma_wire_encode_err_vers(buf, sizeof(want), xid,
						      5, 2, 1), -EINVAL);
	assert_int_equal(nfsrdma_wire_encode_err_vers(buf, sizeof(want), xid,
						      5, 1, 1),
			 NFSRDMA_WIRE_ERR_VERS_SIZE);
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(nfsrdma_wire_decode(&t->d, buf, sizeof(want)), 0);
	assert_int_equal(t->d.xid, xid);
	assert_int_equal(t->d.credits, 5);
	assert_int_equal(t->d.proc, NFSRDMA_WIRE_PROC_ERROR);
	assert_int_equal(t->d.err, NFSRDMA_WIRE_ERR_VERS);
	assert_int_equal(t->d.vers_low, 1);
	assert_int_equal(t->d.vers_high, 1);
	assert_int_equal(nfsrdma_wire_check_inline(&t->d, 0,
						   NFSRDMA_WIRE_DIR_REPLY), 0);
	free(buf);
}

typedef int (*small_encoder)(void *buf, size_t buflen, __be32 xid,
			     u32 credits);

/*
 * @enc writes exactly @want (for XID TEST_XID and @credits) into a buffer
 * that size, refuses every shorter one, and its output decodes; the
 * decoded header is left in t->d.
 */
static void check_small_encoder(struct ctx *t, small_encoder enc,
				u32 credits, const u8 *want, size_t size)
{
	__be32 xid = cpu_to_be32(TEST_XID);
	size_t len;
	u8 *buf;

	for (len = 0; len < size; len++) {
		buf = malloc(len ? len : 1);
		assert_int_equal(enc(buf, len, xid, credits), -EMSGSIZE);
		free(buf);
	}
	buf = malloc(size);
	assert_int_equal(enc(buf, size, xid, credits), (int)size);
	assert_memory_equal(buf, want, size);
	assert_int_equal(nfsrdma_wire_decode(&t->d, buf, size), 0);
	assert_int_equal(t->d.hdr_len, size);
	free(buf);
}

static void test_plain_encode(void **state)
{
	static const u8 want[] = {
		0xc0, 0xff, 0xee, 0x01, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,
	};
	struct ctx *t = *state;

	check_small_encoder(t, nfsrdma_wire_encode_plain, 5, want,
			    NFSRDMA_WIRE_MIN_MSG_SIZE);
	assert_int_equal(t->d.proc, NFSRDMA_WIRE_PROC_MSG);
	assert_int_equal(t->d.credits, 5);
	assert_int_equal(t->d.nr_read + t->d.nr_write + t->d.has_reply, 0);
}

static void test_err_chunk_encode(void **state)
{
	static const u8 want[] = {
		0xc0, 0xff, 0xee, 0x01, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04,
		0x00, 0x00, 0x00, 0x02,
	};
	struct ctx *t = *state;

	check_small_encoder(t, nfsrdma_wire_encode_err_chunk, 0, want,
			    NFSRDMA_WIRE_ERR_CHUNK_SIZE);
	assert_int_equal(t->d.err, NFSRDMA_WIRE_ERR_CHUNK);
}

/* Inline consistency */

static void test_check_inline_call(void **state)
{
	struct ctx *t = *state;
	struct nfsrdma_wire_chunk *c;
	const enum nfsrdma_wire_dir call = NFSRDMA_WIRE_DIR_CALL;

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 100, call), 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, call), -EINVAL);
	h_read(&t->h, 100, 1, 4096, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 100, call), 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 96, call), -EINVAL);
	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	h_read(&t->h, 0, 1, 4096, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 100, call), -EINVAL);

	h_init(&t->h, NFSRDMA_WIRE_PROC_NOMSG);
	h_read(&t->h, 0, 1, 4096, 0);
	h_read(&t->h, 200, 2, 8192, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, call), 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 4, call), -EINVAL);
	h_init(&t->h, NFSRDMA_WIRE_PROC_NOMSG);
	h_read(&t->h, 8, 1, 4096, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, call), -EINVAL);
	h_init(&t->h, NFSRDMA_WIRE_PROC_NOMSG);
	c = h_reply(&t->h);
	h_seg(&t->h, c, 1, 4096, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, call), -EINVAL);

	h_init(&t->h, NFSRDMA_WIRE_PROC_ERROR);
	t->h.err = NFSRDMA_WIRE_ERR_CHUNK;
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, call), -EINVAL);
	t->h.proc = 9;
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, call), -EINVAL);
}

static void test_check_inline_reply(void **state)
{
	struct ctx *t = *state;
	struct nfsrdma_wire_chunk *c;
	const enum nfsrdma_wire_dir reply = NFSRDMA_WIRE_DIR_REPLY;

	h_init(&t->h, NFSRDMA_WIRE_PROC_MSG);
	c = h_write(&t->h);
	h_seg(&t->h, c, 1, 4096, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 64, reply), 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, reply), -EINVAL);
	h_read(&t->h, 8, 1, 4096, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 64, reply), -EINVAL);

	h_init(&t->h, NFSRDMA_WIRE_PROC_NOMSG);
	c = h_reply(&t->h);
	h_seg(&t->h, c, 1, 4096, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, reply), 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 8, reply), -EINVAL);
	h_read(&t->h, 0, 1, 4096, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, reply), -EINVAL);
	h_init(&t->h, NFSRDMA_WIRE_PROC_NOMSG);
	c = h_write(&t->h);
	h_seg(&t->h, c, 1, 4096, 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, reply), -EINVAL);

	h_init(&t->h, NFSRDMA_WIRE_PROC_ERROR);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0, reply), 0);
	assert_int_equal(nfsrdma_wire_check_inline(&t->h, 0,
						   (enum nfsrdma_wire_dir)7),
			 -EINVAL);
}

/* RFC 8797 private data */

static int pdata_decode_len(struct nfsrdma_wire_cm_pdata *pd, const u8 *img,
			    size_t len)
{
	u8 *buf = malloc(len ? len : 1);
	int ret;

	memcpy(buf, img, len);
	ret = nfsrdma_wire_decode_cm_pdata(pd, buf, len);
	free(buf);
	return ret;
}

static void assert_pdata_defaults(const struct nfsrdma_wire_cm_pdata *pd)
{
	assert_int_equal(pd->send_size, NFSRDMA_WIRE_DEFAULT_INLINE);
	assert_int_equal(pd->recv_size, NFSRDMA_WIRE_DEFAULT_INLINE);
	assert_false(pd->remote_inv);
}

static void test_pdata_golden(void **state)
{
	static const u8 min[] = { 0xf6, 0xab, 0x0e, 0x18, 1, 0, 0, 0 };
	static const u8 max[] = { 0xf6, 0xab, 0x0e, 0x18, 1, 1, 0xff, 3 };
	struct nfsrdma_wire_cm_pdata pd = {
		.send_size = 1024, .recv_size = 1024, .remote_inv = false,
	};
	u8 *buf = malloc(NFSRDMA_WIRE_CM_PDATA_SIZE);
	size_t len;

	(void)state;
	assert_int_equal(nfsrdma_wire_encode_cm_pdata(buf, 8, &pd), 8);
	assert_memory_equal(buf, min, 8);
	memset(&pd, 0xff, sizeof(pd));
	assert_int_equal(nfsrdma_wire_decode_cm_pdata(&pd, buf, 8), 0);
	assert_int_equal(pd.send_size, 1024);
	assert_int_equal(pd.recv_size, 1024);
	assert_false(pd.remote_inv);

	pd.send_size = 256 * 1024;
	pd.recv_size = 4096;
	pd.remote_inv = true;
	assert_int_equal(nfsrdma_wire_encode_cm_pdata(buf, 8, &pd), 8);
	assert_memory_equal(buf, max, 8);
	memset(&pd, 0, sizeof(pd));
	assert_int_equal(nfsrdma_wire_decode_cm_pdata(&pd, buf, 8), 0);
	assert_int_equal(pd.send_size, NFSRDMA_WIRE_MAX_INLINE);
	assert_int_equal(pd.recv_size, 4096);
	assert_true(pd.remote_inv);
	free(buf);

	for (len = 0; len < NFSRDMA_WIRE_CM_PDATA_SIZE; len++) {
		buf = malloc(len ? len : 1);
		memset(buf, 0x5a, len);
		assert_int_equal(nfsrdma_wire_encode_cm_pdata(buf, len, &pd),
				 -EMSGSIZE);
		for (size_t i = 0; i < len; i++)
			assert_int_equal(buf[i], 0x5a);
		free(buf);
	}
}

static void test_pdata_all_octets(void **state)
{
	struct nfsrdma_wire_cm_pdata pd;
	u8 img[8] = { 0xf6, 0xab, 0x0e, 0x18, 1, 0, 0, 0 };
	u8 out[8];
	unsigned int v;

	(void)state;
	for (v = 0; v < 256; v++) {
		img[5] = v & 1;
		img[6] = (u8)v;
		img[7] = (u8)(255 - v);
		assert_int_equal(pdata_decode_len(&pd, img, 8), 0);
		assert_int_equal(pd.send_size, (v + 1) * 1024);
		assert_int_equal(pd.recv_size, (256 - v) * 1024);
		assert_int_equal(pd.remote_inv, v & 1);
		assert_int_equal(nfsrdma_wire_encode_cm_pdata(out, 8, &pd), 8);
		assert_memory_equal(out, img, 8);
	}
}

static void test_pdata_absent(void **state)
{
	static const u8 img[8] = { 0xf6, 0xab, 0x0e, 0x18, 1, 1, 7, 7 };
	struct nfsrdma_wire_cm_pdata pd;
	u8 foreign[8];
	size_t len, i;

	(void)state;
	for (len = 0; len < sizeof(img); len++) {
		memset(&pd, 0xff, sizeof(pd));
		assert_int_equal(pdata_decode_len(&pd, img, len), -ENODATA);
		assert_pdata_defaults(&pd);
	}
	memset(&pd, 0xff, sizeof(pd));
	assert_int_equal(nfsrdma_wire_decode_cm_pdata(&pd, NULL, 0), -ENODATA);
	assert_pdata_defaults(&pd);

	/* any change to the format identifier makes it someone else's */
	for (i = 0; i < 4; i++) {
		memcpy(foreign, img, sizeof(img));
		foreign[i] ^= 0x01;
		assert_int_equal(pdata_decode_len(&pd, foreign, 8), -ENODATA);
		assert_pdata_defaults(&pd);
	}
	memcpy(foreign, img, sizeof(img));
	foreign[0] = 0x18;
	foreign[1] = 0x0e;
	foreign[2] = 0xab;
	foreign[3] = 0xf6;	/* byte-swapped identifier */
	assert_int_equal(pdata_decode_len(&pd, foreign, 8), -ENODATA);
	assert_pdata_defaults(&pd);

	memcpy(foreign, img, sizeof(img));
	foreign[4] = 0;
	assert_int_equal(pdata_decode_len(&pd, foreign, 8), -EPROTONOSUPPORT);
	assert_pdata_defaults(&pd);
	foreign[4] = 2;
	assert_int_equal(pdata_decode_len(&pd, foreign, 8), -EPROTONOSUPPORT);
	assert_pdata_defaults(&pd);
}

static void test_pdata_padding_and_reserved(void **state)
{
	struct nfsrdma_wire_cm_pdata pd;
	u8 img[56];

	(void)state;
	/* The CM may hand over more than 8 bytes; the rest is not ours. */
	memset(img, 0xee, sizeof(img));
	img[0] = 0xf6;
	img[1] = 0xab;
	img[2] = 0x0e;
	img[3] = 0x18;
	img[4] = 1;
	img[5] = 0xfe;		/* reserved bits set, I bit clear */
	img[6] = 3;
	img[7] = 31;
	assert_int_equal(pdata_decode_len(&pd, img, sizeof(img)), 0);
	assert_false(pd.remote_inv);
	assert_int_equal(pd.send_size, 4096);
	assert_int_equal(pd.recv_size, 32768);
	img[5] = 0xff;
	assert_int_equal(pdata_decode_len(&pd, img, sizeof(img)), 0);
	assert_true(pd.remote_inv);
}

static void test_pdata_encode_invalid(void **state)
{
	static const u32 bad[] = {
		0, 1, 1023, 1025, 1536, 4095, 262143, 262145, 263168,
		UINT32_MAX,
	};
	struct nfsrdma_wire_cm_pdata pd = {
		.send_size = 1024, .recv_size = 1024,
	};
	u8 buf[8];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		pd.send_size = bad[i];
		pd.recv_size = 1024;
		assert_int_equal(nfsrdma_wire_encode_cm_pdata(buf, 8, &pd),
				 -EINVAL);
		pd.send_size = 1024;
		pd.recv_size = bad[i];
		assert_int_equal(nfsrdma_wire_encode_cm_pdata(buf, 8, &pd),
				 -EINVAL);
	}
}

static void test_struct_size(void **state)
{
	(void)state;
	print_message("sizeof(struct nfsrdma_wire_hdr) = %zu bytes\n",
		      sizeof(struct nfsrdma_wire_hdr));
	assert_true(sizeof(struct nfsrdma_wire_hdr) <= 11 * 1024);
	assert_int_equal(NFSRDMA_WIRE_MAX_HDR_SIZE, 10760);
}

/* Seed corpus for the fuzzer */

static int gen_write(const char *dir, const char *name, const u8 *buf,
		     size_t len)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		return -1;
	}
	ok = fwrite(buf, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int gen_hdr(const char *dir, const char *name,
		   const struct nfsrdma_wire_hdr *h, size_t body)
{
	static u8 buf[NFSRDMA_WIRE_MAX_HDR_SIZE + 64];
	int len = nfsrdma_wire_encode(buf, sizeof(buf), h);

	if (len < 0 || (size_t)len + body > sizeof(buf))
		return -1;
	memset(buf + len, 0x42, body);
	return gen_write(dir, name, buf, (size_t)len + body);
}

static int gen_corpus(const char *dir)
{
	static const char *const combo_names[] = {
		"msg_inline", "msg_read", "msg_write", "msg_read_write",
		"msg_reply", "msg_read_reply", "msg_write_reply", "msg_all",
	};
	static struct nfsrdma_wire_hdr h;
	struct nfsrdma_wire_cm_pdata pd;
	struct nfsrdma_wire_chunk *c;
	u8 raw[56];
	int err = 0;
	u32 i;

	for (i = 0; i < 8; i++) {
		h_combo(&h, NFSRDMA_WIRE_PROC_MSG, i);
		err |= gen_hdr(dir, combo_names[i], &h, 16);
	}
	h_combo(&h, NFSRDMA_WIRE_PROC_NOMSG, 1);
	err |= gen_hdr(dir, "nomsg_call", &h, 0);
	h_combo(&h, NFSRDMA_WIRE_PROC_NOMSG, 5);
	err |= gen_hdr(dir, "nomsg_call_reply", &h, 0);
	h_combo(&h, NFSRDMA_WIRE_PROC_NOMSG, 4);
	err |= gen_hdr(dir, "nomsg_reply", &h, 0);
	h_combo(&h, NFSRDMA_WIRE_PROC_NOMSG, 2);
	err |= gen_hdr(dir, "nomsg_write", &h, 0);
	h_combo(&h, NFSRDMA_WIRE_PROC_MSGP, 7);
	err |= gen_hdr(dir, "msgp", &h, 8);
	h_init(&h, NFSRDMA_WIRE_PROC_DONE);
	err |= gen_hdr(dir, "done", &h, 0);

	h_init(&h, NFSRDMA_WIRE_PROC_MSG);
	c = h_write(&h);
	for (i = 0; i < NFSRDMA_WIRE_MAX_CHUNK_SEGS; i++)
		h_seg(&h, c, i, 4096, (u64)i << 12);
	err |= gen_hdr(dir, "msg_full_write_chunk", &h, 8);

	h_init(&h, NFSRDMA_WIRE_PROC_MSG);
	h_read(&h, 0, 1, UINT32_MAX, UINT64_MAX);
	h_read(&h, 8, 2, 0, 0);
	err |= gen_hdr(dir, "msg_read_extremes", &h, 16);

	h_init(&h, NFSRDMA_WIRE_PROC_ERROR);
	h.err = NFSRDMA_WIRE_ERR_VERS;
	h.vers_low = 1;
	h.vers_high = 1;
	err |= gen_hdr(dir, "err_vers", &h, 0);
	h.err = NFSRDMA_WIRE_ERR_CHUNK;
	err |= gen_hdr(dir, "err_chunk", &h, 0);

	/* version 2 ERR_VERS: the version-independent path */
	nfsrdma_wire_encode_err_vers(raw, sizeof(raw), cpu_to_be32(7), 1, 2, 2);
	raw[7] = 2;
	err |= gen_write(dir, "foreign_err_vers", raw,
			 NFSRDMA_WIRE_ERR_VERS_SIZE);

	pd.send_size = NFSRDMA_WIRE_DEFAULT_INLINE;
	pd.recv_size = NFSRDMA_WIRE_DEFAULT_INLINE;
	pd.remote_inv = false;
	nfsrdma_wire_encode_cm_pdata(raw, sizeof(raw), &pd);
	err |= gen_write(dir, "pdata_default", raw, 8);
	pd.send_size = 4096;
	pd.recv_size = NFSRDMA_WIRE_MAX_INLINE;
	pd.remote_inv = true;
	nfsrdma_wire_encode_cm_pdata(raw, sizeof(raw), &pd);
	memset(raw + 8, 0, sizeof(raw) - 8);
	err |= gen_write(dir, "pdata_padded", raw, sizeof(raw));
	raw[4] = 2;
	err |= gen_write(dir, "pdata_v2", raw, 8);
	return err ? 1 : 0;
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_golden_msg),
		T(test_roundtrip_combos),
		T(test_roundtrip_done),
		T(test_roundtrip_errors),
		T(test_roundtrip_offsets),
		T(test_roundtrip_zero_lengths),
		T(test_roundtrip_positions),
		T(test_truncated_every_length),
		T(test_encode_short_buffer),
		T(test_short_prefix),
		T(test_bad_version),
		T(test_foreign_err_vers),
		T(test_bad_proc),
		T(test_msgp_done_refused),
		T(test_bad_error_code),
		T(test_discriminators),
		T(test_nomsg_empty),
		T(test_read_position_alignment),
		T(test_read_position_decreasing),
		T(test_read_chunk_length),
		T(test_write_reply_chunk_length),
		T(test_read_limits),
		T(test_write_chunk_seg_limit),
		T(test_write_chunk_count_limit),
		T(test_segment_pool_limit),
		T(test_encode_chunk_refs),
		T(test_count_vs_bytes),
		T(test_chunks_size),
		T(test_encode_validation),
		T(test_err_vers_encode),
		T(test_err_chunk_encode),
		T(test_plain_encode),
		T(test_check_inline_call),
		T(test_check_inline_reply),
		T(test_pdata_golden),
		T(test_pdata_all_octets),
		T(test_pdata_absent),
		T(test_pdata_padding_and_reserved),
		T(test_pdata_encode_invalid),
		T(test_struct_size),
	};

	if (argc == 3 && !strcmp(argv[1], "--gen-corpus"))
		return gen_corpus(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--gen-corpus DIR]\n", argv[0]);
		return 2;
	}
	return cmocka_run_group_tests_name("nfsrdma_wire", tests, NULL, NULL);
}
