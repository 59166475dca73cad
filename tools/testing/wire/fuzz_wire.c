// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the RPC-over-RDMA wire codec.
 *
 * Every input goes through both decoders.  Invariants checked:
 *  - the transport header decoder never claims a header longer than the
 *    input, whatever it returns;
 *  - a header it accepts (or fully decodes and refuses as RDMA_MSGP or
 *    RDMA_DONE) re-encodes to exactly the bytes it came from, and those
 *    decode to an identical header;
 *  - private data it accepts re-encodes and decodes to identical values.
 * Any violation aborts, which libFuzzer reports as a crash.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfsrdma/wire.h"

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n",\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

static struct nfsrdma_wire_hdr hdr1, hdr2;

static void check_seg_equal(const struct nfsrdma_wire_seg *a,
			    const struct nfsrdma_wire_seg *b)
{
	CHECK(a->handle == b->handle);
	CHECK(a->length == b->length);
	CHECK(a->offset == b->offset);
}

static void check_chunk_equal(const struct nfsrdma_wire_chunk *a,
			      const struct nfsrdma_wire_chunk *b)
{
	u32 i;

	CHECK(a->nr_segs == b->nr_segs);
	for (i = 0; i < a->nr_segs; i++)
		check_seg_equal(&nfsrdma_wire_chunk_segs(&hdr1, a)[i],
				&nfsrdma_wire_chunk_segs(&hdr2, b)[i]);
}

static void check_hdr_equal(const struct nfsrdma_wire_hdr *a,
			    const struct nfsrdma_wire_hdr *b)
{
	u32 i;

	CHECK(a->xid == b->xid);
	CHECK(a->vers == b->vers);
	CHECK(a->credits == b->credits);
	CHECK(a->proc == b->proc);
	CHECK(a->hdr_len == b->hdr_len);
	if (a->proc == NFSRDMA_WIRE_PROC_MSGP) {
		CHECK(a->msgp_align == b->msgp_align);
		CHECK(a->msgp_thresh == b->msgp_thresh);
	}
	switch (a->proc) {
	case NFSRDMA_WIRE_PROC_MSG:
	case NFSRDMA_WIRE_PROC_NOMSG:
	case NFSRDMA_WIRE_PROC_MSGP:
		CHECK(a->nr_read == b->nr_read);
		for (i = 0; i < a->nr_read; i++) {
			CHECK(a->read[i].position == b->read[i].position);
			check_seg_equal(&a->read[i].seg, &b->read[i].seg);
		}
		CHECK(a->nr_write == b->nr_write);
		for (i = 0; i < a->nr_write; i++)
			check_chunk_equal(&a->write[i], &b->write[i]);
		CHECK(a->has_reply == b->has_reply);
		if (a->has_reply)
			check_chunk_equal(&a->reply, &b->reply);
		break;
	case NFSRDMA_WIRE_PROC_ERROR:
		CHECK(a->err == b->err);
		if (a->err == NFSRDMA_WIRE_ERR_VERS) {
			CHECK(a->vers_low == b->vers_low);
			CHECK(a->vers_high == b->vers_high);
		}
		break;
	}
}

static void fuzz_hdr(const u8 *data, size_t size)
{
	int ret, ret2;
	u8 *out;

	ret = nfsrdma_wire_decode(&hdr1, data, size);
	CHECK(hdr1.hdr_len <= size);
	CHECK(ret == 0 || ret == -EMSGSIZE || ret == -EPROTONOSUPPORT ||
	      ret == -EOPNOTSUPP || ret == -E2BIG || ret == -EINVAL);
	if (ret != 0 && ret != -EOPNOTSUPP)
		return;

	CHECK(hdr1.hdr_len >= NFSRDMA_WIRE_FIXED_SIZE);
	CHECK(hdr1.hdr_len <= NFSRDMA_WIRE_MAX_HDR_SIZE);
	CHECK(nfsrdma_wire_hdr_size(&hdr1) == (int)hdr1.hdr_len);

	/* Exact-size output buffer: ASan catches an overrun. */
	out = malloc(hdr1.hdr_len);
	CHECK(out);
	CHECK(nfsrdma_wire_encode(out, hdr1.hdr_len, &hdr1) ==
	      (int)hdr1.hdr_len);
	/* Every header field is kept, so the encoding is canonical. */
	CHECK(!memcmp(out, data, hdr1.hdr_len));
	CHECK(nfsrdma_wire_encode(out, hdr1.hdr_len - 1, &hdr1) == -EMSGSIZE);

	ret2 = nfsrdma_wire_decode(&hdr2, out, hdr1.hdr_len);
	CHECK(ret2 == ret);
	check_hdr_equal(&hdr1, &hdr2);
	free(out);

	/* Exercise the consistency checks; any answer is fine, no crash. */
	nfsrdma_wire_check_inline(&hdr1, size - hdr1.hdr_len,
				  NFSRDMA_WIRE_DIR_CALL);
	nfsrdma_wire_check_inline(&hdr1, size - hdr1.hdr_len,
				  NFSRDMA_WIRE_DIR_REPLY);
}

static void fuzz_pdata(const u8 *data, size_t size)
{
	struct nfsrdma_wire_cm_pdata pd1, pd2;
	u8 out[NFSRDMA_WIRE_CM_PDATA_SIZE];
	int ret;

	ret = nfsrdma_wire_decode_cm_pdata(&pd1, data, size);
	CHECK(ret == 0 || ret == -ENODATA || ret == -EPROTONOSUPPORT);
	/* Absent or not: the result is always usable. */
	CHECK(pd1.send_size >= NFSRDMA_WIRE_DEFAULT_INLINE &&
	      pd1.send_size <= NFSRDMA_WIRE_MAX_INLINE);
	CHECK(pd1.recv_size >= NFSRDMA_WIRE_DEFAULT_INLINE &&
	      pd1.recv_size <= NFSRDMA_WIRE_MAX_INLINE);
	if (ret)
		return;

	CHECK(nfsrdma_wire_encode_cm_pdata(out, sizeof(out), &pd1) ==
	      NFSRDMA_WIRE_CM_PDATA_SIZE);
	/* Reserved flag bits are dropped; everything else survives. */
	CHECK(!memcmp(out, data, 5));
	CHECK(out[5] == (data[5] & NFSRDMA_WIRE_CM_FLAG_REMOTE_INV));
	CHECK(out[6] == data[6] && out[7] == data[7]);
	CHECK(nfsrdma_wire_decode_cm_pdata(&pd2, out, sizeof(out)) == 0);
	CHECK(pd1.send_size == pd2.send_size);
	CHECK(pd1.recv_size == pd2.recv_size);
	CHECK(pd1.remote_inv == pd2.remote_inv);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	fuzz_hdr(data, size);
	fuzz_pdata(data, size);
	return 0;
}
