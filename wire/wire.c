// SPDX-License-Identifier: GPL-2.0
/*
 * RPC-over-RDMA Version 1 wire codec (RFC 8166) and RDMA-CM private
 * data codec (RFC 8797).  Documentation/wire-codec.rst has the design.
 *
 * This file builds unchanged as a kernel module and as plain userspace C
 * for the unit tests and the fuzzer, so it uses only a handful of kernel
 * headers that tools/testing/wire/shim can stand in for.
 */

#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#include "nfsrdma/wire.h"

/* XDR items start on four-byte boundaries (RFC 4506, section 3). */
#define NFSRDMA_WIRE_XDR_UNIT		4
#define NFSRDMA_WIRE_WORD		sizeof(__be32)

/*
 * Read position of the byte after a Read chunk.  An XDR stream is at most
 * 2^32 - 1 bytes long because XDR describes lengths in 32 bits.
 */
#define NFSRDMA_WIRE_STREAM_MAX		((u64)U32_MAX)

/* Decode cursor: @left is what remains of the caller's @len. */
struct nfsrdma_wire_cursor {
	const u8 *p;
	size_t left;
};

/*
 * The receive buffer need not be word-aligned (the fuzzer hands us any
 * address), so words are copied out rather than dereferenced.
 * The caller has already made sure a whole word remains.
 */
static u32 nfsrdma_wire_pull(struct nfsrdma_wire_cursor *c)
{
	__be32 raw;

	memcpy(&raw, c->p, sizeof(raw));
	c->p += sizeof(raw);
	c->left -= sizeof(raw);
	return be32_to_cpu(raw);
}

static int nfsrdma_wire_get(struct nfsrdma_wire_cursor *c, u32 *val)
{
	if (c->left < NFSRDMA_WIRE_WORD)
		return -EMSGSIZE;
	*val = nfsrdma_wire_pull(c);
	return 0;
}

/* The caller has already made sure NFSRDMA_WIRE_SEG_SIZE bytes remain. */
static void nfsrdma_wire_pull_seg(struct nfsrdma_wire_cursor *c,
				  struct nfsrdma_wire_seg *seg)
{
	u64 hi;

	seg->handle = nfsrdma_wire_pull(c);
	seg->length = nfsrdma_wire_pull(c);
	/* XDR hyper: most significant word first. */
	hi = nfsrdma_wire_pull(c);
	seg->offset = hi << 32 | nfsrdma_wire_pull(c);
}

/*
 * Optional-data and list discriminators are XDR booleans.  Treating any
 * non-zero value as "present" would let two different byte strings mean
 * the same header, and hide a peer that has lost its place in the stream.
 */
static int nfsrdma_wire_get_present(struct nfsrdma_wire_cursor *c,
				    bool *present)
{
	u32 val;
	int ret;

	ret = nfsrdma_wire_get(c, &val);
	if (ret)
		return ret;
	if (val > 1)
		return -EINVAL;
	*present = val;
	return 0;
}

/*
 * Rules shared by the decoder and the encoder, so that whatever one
 * accepts the other produces and nothing else.
 */

static int nfsrdma_wire_check_segs(const struct nfsrdma_wire_seg *segs,
				   u32 nr_segs)
{
	u64 total = 0;
	u32 i;

	/* 64-bit sum: at most 260 32-bit lengths cannot wrap it. */
	for (i = 0; i < nr_segs; i++)
		total += segs[i].length;
	if (total > NFSRDMA_WIRE_MAX_CHUNK_BYTES)
		return -E2BIG;
	return 0;
}

static int nfsrdma_wire_check_reads(const struct nfsrdma_wire_read_seg *rs,
				    u32 nr)
{
	u32 i, chunk_segs = 0;
	u64 chunk_bytes = 0;

	for (i = 0; i < nr; i++) {
		u32 pos = rs[i].position;

		/* Chunk data replaces an XDR item, which is word-aligned. */
		if (pos % NFSRDMA_WIRE_XDR_UNIT)
			return -EINVAL;
		if (i == 0 || pos != rs[i - 1].position) {
			/*
			 * Segments of one chunk share a position, so keeping
			 * the list sorted also keeps each chunk contiguous.
			 */
			if (i > 0 && pos < rs[i - 1].position)
				return -EINVAL;
			chunk_segs = 0;
			chunk_bytes = 0;
		}
		if (++chunk_segs > NFSRDMA_WIRE_MAX_CHUNK_SEGS)
			return -E2BIG;
		chunk_bytes += rs[i].seg.length;
		if (chunk_bytes > NFSRDMA_WIRE_MAX_CHUNK_BYTES)
			return -E2BIG;
		/* The data must end inside a stream XDR can describe. */
		if (pos + chunk_bytes > NFSRDMA_WIRE_STREAM_MAX)
			return -EINVAL;
	}
	return 0;
}

/* RFC 8166 section 4.5.2 lists an RDMA_NOMSG with no chunks as an XDR error. */
static bool nfsrdma_wire_nomsg_empty(const struct nfsrdma_wire_hdr *hdr)
{
	return hdr->proc == NFSRDMA_WIRE_PROC_NOMSG && !hdr->nr_read &&
	       !hdr->nr_write && !hdr->has_reply;
}

/* Decoder */

static int nfsrdma_wire_decode_reads(struct nfsrdma_wire_hdr *hdr,
				     struct nfsrdma_wire_cursor *c)
{
	struct nfsrdma_wire_read_seg *rs;
	bool more;
	int ret;

	for (;;) {
		ret = nfsrdma_wire_get_present(c, &more);
		if (ret)
			return ret;
		if (!more)
			break;
		if (hdr->nr_read == NFSRDMA_WIRE_MAX_READ_SEGS)
			return -E2BIG;
		if (c->left < NFSRDMA_WIRE_READ_ENTRY_SIZE - NFSRDMA_WIRE_WORD)
			return -EMSGSIZE;
		rs = &hdr->read[hdr->nr_read++];
		rs->position = nfsrdma_wire_pull(c);
		nfsrdma_wire_pull_seg(c, &rs->seg);
	}
	return nfsrdma_wire_check_reads(hdr->read, hdr->nr_read);
}

/* A counted array of segments: one Write chunk or the Reply chunk. */
static int nfsrdma_wire_decode_chunk(struct nfsrdma_wire_hdr *hdr,
				     struct nfsrdma_wire_cursor *c,
				     struct nfsrdma_wire_chunk *chunk,
				     u32 *pool_used)
{
	u32 count, i;
	int ret;

	ret = nfsrdma_wire_get(c, &count);
	if (ret)
		return ret;
	/*
	 * Judge the count before trusting it for anything: against our
	 * limits first, then against the bytes the peer actually sent.
	 */
	if (count > NFSRDMA_WIRE_MAX_CHUNK_SEGS ||
	    count > NFSRDMA_WIRE_MAX_SEGS - *pool_used)
		return -E2BIG;
	if (count > c->left / NFSRDMA_WIRE_SEG_SIZE)
		return -EMSGSIZE;

	chunk->first = *pool_used;
	chunk->nr_segs = count;
	for (i = 0; i < count; i++)
		nfsrdma_wire_pull_seg(c, &hdr->segs[chunk->first + i]);
	*pool_used += count;
	return nfsrdma_wire_check_segs(&hdr->segs[chunk->first], count);
}

static int nfsrdma_wire_decode_lists(struct nfsrdma_wire_hdr *hdr,
				     struct nfsrdma_wire_cursor *c)
{
	u32 pool_used = 0;
	bool more;
	int ret;

	ret = nfsrdma_wire_decode_reads(hdr, c);
	if (ret)
		return ret;

	for (;;) {
		ret = nfsrdma_wire_get_present(c, &more);
		if (ret)
			return ret;
		if (!more)
			break;
		if (hdr->nr_write == NFSRDMA_WIRE_MAX_WRITE_CHUNKS)
			return -E2BIG;
		ret = nfsrdma_wire_decode_chunk(hdr, c,
						&hdr->write[hdr->nr_write],
						&pool_used);
		if (ret)
			return ret;
		hdr->nr_write++;
	}

	ret = nfsrdma_wire_get_present(c, &more);
	if (ret)
		return ret;
	if (more) {
		ret = nfsrdma_wire_decode_chunk(hdr, c, &hdr->reply,
						&pool_used);
		if (ret)
			return ret;
		hdr->has_reply = true;
	}

	if (nfsrdma_wire_nomsg_empty(hdr))
		return -EINVAL;
	return 0;
}

static int nfsrdma_wire_decode_error(struct nfsrdma_wire_hdr *hdr,
				     struct nfsrdma_wire_cursor *c)
{
	int ret;

	ret = nfsrdma_wire_get(c, &hdr->err);
	if (ret)
		return ret;
	switch (hdr->err) {
	case NFSRDMA_WIRE_ERR_VERS:
		if (c->left < 2 * NFSRDMA_WIRE_WORD)
			return -EMSGSIZE;
		hdr->vers_low = nfsrdma_wire_pull(c);
		hdr->vers_high = nfsrdma_wire_pull(c);
		if (hdr->vers_low > hdr->vers_high)
			return -EINVAL;
		return 0;
	case NFSRDMA_WIRE_ERR_CHUNK:
		return 0;
	}
	return -EINVAL;
}

/*
 * RFC 8166 fixes the layout of an ERR_VERS reply across all versions, so
 * that a requester can learn what a peer speaks even when the peer
 * answers in a version this codec cannot parse.
 */
static void nfsrdma_wire_decode_foreign(struct nfsrdma_wire_hdr *hdr,
					struct nfsrdma_wire_cursor *c)
{
	u32 low, high;

	if (c->left < NFSRDMA_WIRE_ERR_VERS_SIZE - NFSRDMA_WIRE_PREFIX_SIZE)
		return;
	if (nfsrdma_wire_pull(c) != NFSRDMA_WIRE_PROC_ERROR)
		return;
	if (nfsrdma_wire_pull(c) != NFSRDMA_WIRE_ERR_VERS)
		return;
	low = nfsrdma_wire_pull(c);
	high = nfsrdma_wire_pull(c);
	if (low > high)
		return;
	hdr->proc = NFSRDMA_WIRE_PROC_ERROR;
	hdr->err = NFSRDMA_WIRE_ERR_VERS;
	hdr->vers_low = low;
	hdr->vers_high = high;
	hdr->hdr_len = NFSRDMA_WIRE_ERR_VERS_SIZE;
}

/**
 * nfsrdma_wire_decode - parse and validate a received transport header
 * @hdr: caller-owned result
 * @buf: received message
 * @len: bytes received; nothing at or past @buf + @len is read
 *
 * If @len is at least %NFSRDMA_WIRE_PREFIX_SIZE, @hdr->xid, @hdr->vers and
 * @hdr->credits are filled in before anything else is checked, so a
 * responder can address an RDMA_ERROR reply whatever goes wrong later.
 * On success @hdr->hdr_len is the length of the transport header; for
 * %NFSRDMA_WIRE_PROC_MSG the RPC message starts there.
 *
 * A responder answers every error except a short-prefix %-EMSGSIZE with
 * ERR_CHUNK, or with ERR_VERS for %-EPROTONOSUPPORT; if @len is below
 * %NFSRDMA_WIRE_PREFIX_SIZE there is no XID to answer and the message is
 * dropped.  On error, members other than those named below are
 * unspecified.
 *
 * Context: any; does not sleep, allocate or lock.  @hdr must not be in use
 * by anyone else.
 *
 * Return:
 * * %0 - @hdr describes a valid RDMA_MSG, RDMA_NOMSG or RDMA_ERROR header.
 * * %-EMSGSIZE - the header runs past @len (a short message, or a count
 *   whose entries cannot fit in the bytes that remain).
 * * %-EPROTONOSUPPORT - @hdr->vers is not 1.  Reply ERR_VERS.  If the
 *   message is itself a complete ERR_VERS reply, @hdr->proc, ->err,
 *   ->vers_low, ->vers_high and ->hdr_len are filled in too; check
 *   @hdr->err == %NFSRDMA_WIRE_ERR_VERS before using them.
 * * %-EOPNOTSUPP - RDMA_MSGP or RDMA_DONE, which RFC 8166 section 4.6
 *   forbids.  @hdr is fully decoded.  A responder replies ERR_CHUNK.
 * * %-E2BIG - a list or chunk is over one of the NFSRDMA_WIRE_MAX_* limits.
 * * %-EINVAL - malformed: unknown procedure or error code, a discriminator
 *   other than 0 or 1, a misaligned or decreasing Read position, a Read
 *   chunk ending past 4 GiB, an RDMA_NOMSG with no chunks, or an ERR_VERS
 *   range with low above high.
 */
int nfsrdma_wire_decode(struct nfsrdma_wire_hdr *hdr, const void *buf,
			size_t len)
{
	struct nfsrdma_wire_cursor c = { .p = buf, .left = len };
	int ret;

	hdr->hdr_len = 0;
	hdr->err = 0;
	hdr->nr_read = 0;
	hdr->nr_write = 0;
	hdr->has_reply = false;

	if (len < NFSRDMA_WIRE_PREFIX_SIZE)
		return -EMSGSIZE;
	/* The XID is an opaque tag matched against the RPC header's. */
	memcpy(&hdr->xid, c.p, sizeof(hdr->xid));
	c.p += sizeof(hdr->xid);
	c.left -= sizeof(hdr->xid);
	hdr->vers = nfsrdma_wire_pull(&c);
	hdr->credits = nfsrdma_wire_pull(&c);

	if (hdr->vers != NFSRDMA_WIRE_VERSION) {
		nfsrdma_wire_decode_foreign(hdr, &c);
		return -EPROTONOSUPPORT;
	}

	ret = nfsrdma_wire_get(&c, &hdr->proc);
	if (ret)
		return ret;

	switch (hdr->proc) {
	case NFSRDMA_WIRE_PROC_MSG:
	case NFSRDMA_WIRE_PROC_NOMSG:
		ret = nfsrdma_wire_decode_lists(hdr, &c);
		break;
	case NFSRDMA_WIRE_PROC_MSGP:
		if (c.left < 2 * NFSRDMA_WIRE_WORD)
			return -EMSGSIZE;
		hdr->msgp_align = nfsrdma_wire_pull(&c);
		hdr->msgp_thresh = nfsrdma_wire_pull(&c);
		ret = nfsrdma_wire_decode_lists(hdr, &c);
		break;
	case NFSRDMA_WIRE_PROC_DONE:
		ret = 0;
		break;
	case NFSRDMA_WIRE_PROC_ERROR:
		ret = nfsrdma_wire_decode_error(hdr, &c);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;

	/* Bounded by NFSRDMA_WIRE_MAX_HDR_SIZE whatever @len was. */
	hdr->hdr_len = (u32)(len - c.left);
	if (hdr->proc == NFSRDMA_WIRE_PROC_MSGP ||
	    hdr->proc == NFSRDMA_WIRE_PROC_DONE)
		return -EOPNOTSUPP;
	return 0;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_decode);

/* Sizes and validation of a caller-built header */

/**
 * nfsrdma_wire_chunks_size - encoded size of an RDMA_MSG/RDMA_NOMSG header
 * @nr_read_segs: entries in the Read list
 * @nr_write_chunks: chunks in the Write list
 * @nr_write_segs: segments in all Write chunks together
 * @has_reply: whether a Reply chunk is present
 * @nr_reply_segs: segments in the Reply chunk; must be 0 if !@has_reply
 *
 * Lets a requester work out how much of its inline budget the transport
 * header takes before it commits to sending a message inline or in chunks.
 *
 * Context: any.
 *
 * Return: header size in bytes, or 0 if the counts break a limit that can
 * be judged from counts alone (a per-Read-chunk overrun can only be
 * caught by nfsrdma_wire_hdr_size()).
 */
u32 nfsrdma_wire_chunks_size(u32 nr_read_segs, u32 nr_write_chunks,
			     u32 nr_write_segs, bool has_reply,
			     u32 nr_reply_segs)
{
	if (nr_read_segs > NFSRDMA_WIRE_MAX_READ_SEGS ||
	    nr_write_chunks > NFSRDMA_WIRE_MAX_WRITE_CHUNKS ||
	    nr_write_segs > nr_write_chunks * NFSRDMA_WIRE_MAX_CHUNK_SEGS ||
	    nr_reply_segs > NFSRDMA_WIRE_MAX_CHUNK_SEGS ||
	    (!has_reply && nr_reply_segs) ||
	    nr_write_segs + nr_reply_segs > NFSRDMA_WIRE_MAX_SEGS)
		return 0;

	return NFSRDMA_WIRE_FIXED_SIZE +
	       nr_read_segs * NFSRDMA_WIRE_READ_ENTRY_SIZE +
	       NFSRDMA_WIRE_WORD +
	       nr_write_chunks * 2 * NFSRDMA_WIRE_WORD + NFSRDMA_WIRE_WORD +
	       (has_reply ? 2 : 1) * NFSRDMA_WIRE_WORD +
	       (nr_write_segs + nr_reply_segs) * NFSRDMA_WIRE_SEG_SIZE;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_chunks_size);

static int nfsrdma_wire_check_chunk(const struct nfsrdma_wire_hdr *hdr,
				    const struct nfsrdma_wire_chunk *chunk)
{
	if (chunk->nr_segs > NFSRDMA_WIRE_MAX_CHUNK_SEGS)
		return -E2BIG;
	if (chunk->first > NFSRDMA_WIRE_MAX_SEGS ||
	    chunk->nr_segs > NFSRDMA_WIRE_MAX_SEGS - chunk->first)
		return -EINVAL;
	return nfsrdma_wire_check_segs(&hdr->segs[chunk->first],
				       chunk->nr_segs);
}

static int nfsrdma_wire_lists_size(const struct nfsrdma_wire_hdr *hdr)
{
	u32 i, write_segs = 0, reply_segs = 0;
	int ret;

	if (hdr->nr_read > NFSRDMA_WIRE_MAX_READ_SEGS)
		return -E2BIG;
	ret = nfsrdma_wire_check_reads(hdr->read, hdr->nr_read);
	if (ret)
		return ret;

	if (hdr->nr_write > NFSRDMA_WIRE_MAX_WRITE_CHUNKS)
		return -E2BIG;
	for (i = 0; i < hdr->nr_write; i++) {
		ret = nfsrdma_wire_check_chunk(hdr, &hdr->write[i]);
		if (ret)
			return ret;
		write_segs += hdr->write[i].nr_segs;
	}
	if (hdr->has_reply) {
		ret = nfsrdma_wire_check_chunk(hdr, &hdr->reply);
		if (ret)
			return ret;
		reply_segs = hdr->reply.nr_segs;
	}
	/* Chunks may share pool entries, so bound what goes on the wire. */
	if (write_segs + reply_segs > NFSRDMA_WIRE_MAX_SEGS)
		return -E2BIG;
	if (nfsrdma_wire_nomsg_empty(hdr))
		return -EINVAL;

	return (int)nfsrdma_wire_chunks_size(hdr->nr_read, hdr->nr_write,
					     write_segs, hdr->has_reply,
					     reply_segs);
}

/**
 * nfsrdma_wire_hdr_size - validate a header and compute its encoded size
 * @hdr: header to check; @hdr->hdr_len is ignored
 *
 * Applies every rule nfsrdma_wire_decode() applies, so a header that
 * passes here is one the peer's decoder (if it is this one) accepts.
 *
 * Context: any.
 *
 * Return: the number of bytes nfsrdma_wire_encode() would write, or
 * %-EPROTONOSUPPORT if @hdr->vers is not 1, %-E2BIG if a list or chunk is
 * over a limit, %-EINVAL if @hdr is malformed (unknown procedure or error
 * code, bad Read positions, a chunk outside &nfsrdma_wire_hdr.segs, an
 * RDMA_NOMSG with no chunks, an ERR_VERS range with low above high).
 */
int nfsrdma_wire_hdr_size(const struct nfsrdma_wire_hdr *hdr)
{
	int ret;

	if (hdr->vers != NFSRDMA_WIRE_VERSION)
		return -EPROTONOSUPPORT;

	switch (hdr->proc) {
	case NFSRDMA_WIRE_PROC_MSG:
	case NFSRDMA_WIRE_PROC_NOMSG:
		return nfsrdma_wire_lists_size(hdr);
	case NFSRDMA_WIRE_PROC_MSGP:
		ret = nfsrdma_wire_lists_size(hdr);
		return ret < 0 ? ret : ret + 2 * (int)NFSRDMA_WIRE_WORD;
	case NFSRDMA_WIRE_PROC_DONE:
		return NFSRDMA_WIRE_FIXED_SIZE;
	case NFSRDMA_WIRE_PROC_ERROR:
		if (hdr->err == NFSRDMA_WIRE_ERR_CHUNK)
			return NFSRDMA_WIRE_ERR_CHUNK_SIZE;
		if (hdr->err == NFSRDMA_WIRE_ERR_VERS &&
		    hdr->vers_low <= hdr->vers_high)
			return NFSRDMA_WIRE_ERR_VERS_SIZE;
		return -EINVAL;
	}
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_hdr_size);

/* Encoder: every write below has been bounds-checked by the caller. */

static u8 *nfsrdma_wire_put(u8 *p, u32 val)
{
	__be32 raw = cpu_to_be32(val);

	memcpy(p, &raw, sizeof(raw));
	return p + sizeof(raw);
}

static u8 *nfsrdma_wire_put_seg(u8 *p, const struct nfsrdma_wire_seg *seg)
{
	p = nfsrdma_wire_put(p, seg->handle);
	p = nfsrdma_wire_put(p, seg->length);
	p = nfsrdma_wire_put(p, (u32)(seg->offset >> 32));
	return nfsrdma_wire_put(p, (u32)seg->offset);
}

static u8 *nfsrdma_wire_put_chunk(u8 *p, const struct nfsrdma_wire_hdr *hdr,
				  const struct nfsrdma_wire_chunk *chunk)
{
	const struct nfsrdma_wire_seg *segs = nfsrdma_wire_chunk_segs(hdr,
								      chunk);
	u32 i;

	p = nfsrdma_wire_put(p, chunk->nr_segs);
	for (i = 0; i < chunk->nr_segs; i++)
		p = nfsrdma_wire_put_seg(p, &segs[i]);
	return p;
}

static u8 *nfsrdma_wire_put_lists(u8 *p, const struct nfsrdma_wire_hdr *hdr)
{
	u32 i;

	for (i = 0; i < hdr->nr_read; i++) {
		p = nfsrdma_wire_put(p, 1);
		p = nfsrdma_wire_put(p, hdr->read[i].position);
		p = nfsrdma_wire_put_seg(p, &hdr->read[i].seg);
	}
	p = nfsrdma_wire_put(p, 0);

	for (i = 0; i < hdr->nr_write; i++) {
		p = nfsrdma_wire_put(p, 1);
		p = nfsrdma_wire_put_chunk(p, hdr, &hdr->write[i]);
	}
	p = nfsrdma_wire_put(p, 0);

	if (!hdr->has_reply)
		return nfsrdma_wire_put(p, 0);
	p = nfsrdma_wire_put(p, 1);
	return nfsrdma_wire_put_chunk(p, hdr, &hdr->reply);
}

static u8 *nfsrdma_wire_put_fixed(u8 *p, __be32 xid, u32 vers, u32 credits,
				  u32 proc)
{
	memcpy(p, &xid, sizeof(xid));
	p += sizeof(xid);
	p = nfsrdma_wire_put(p, vers);
	p = nfsrdma_wire_put(p, credits);
	return nfsrdma_wire_put(p, proc);
}

/*
 * Start one of the small fixed-size Version 1 messages: NULL, writing
 * nothing, if @buflen cannot hold its @size bytes, else the position
 * after its fixed part.
 */
static u8 *nfsrdma_wire_start_small(void *buf, size_t buflen, size_t size,
				    __be32 xid, u32 credits, u32 proc)
{
	if (buflen < size)
		return NULL;
	return nfsrdma_wire_put_fixed(buf, xid, NFSRDMA_WIRE_VERSION, credits,
				      proc);
}

/**
 * nfsrdma_wire_encode - validate and serialise a transport header
 * @buf: output buffer
 * @buflen: size of @buf; nothing at or past @buf + @buflen is written
 * @hdr: header to encode; @hdr->hdr_len is ignored
 *
 * RDMA_MSGP and RDMA_DONE can be encoded so that tests and tools can
 * produce them, but RFC 8166 section 4.6 forbids sending either.
 *
 * Context: any; does not sleep, allocate or lock.
 *
 * Return: bytes written, the same value nfsrdma_wire_hdr_size() returns;
 * any error nfsrdma_wire_hdr_size() returns, with nothing written; or
 * %-EMSGSIZE, with nothing written, if @buflen is too small.
 */
int nfsrdma_wire_encode(void *buf, size_t buflen,
			const struct nfsrdma_wire_hdr *hdr)
{
	int size = nfsrdma_wire_hdr_size(hdr);
	u8 *p = buf;

	if (size < 0)
		return size;
	if ((size_t)size > buflen)
		return -EMSGSIZE;

	p = nfsrdma_wire_put_fixed(p, hdr->xid, hdr->vers, hdr->credits,
				   hdr->proc);
	if (hdr->proc == NFSRDMA_WIRE_PROC_MSGP) {
		p = nfsrdma_wire_put(p, hdr->msgp_align);
		p = nfsrdma_wire_put(p, hdr->msgp_thresh);
	}
	switch (hdr->proc) {
	case NFSRDMA_WIRE_PROC_MSG:
	case NFSRDMA_WIRE_PROC_NOMSG:
	case NFSRDMA_WIRE_PROC_MSGP:
		nfsrdma_wire_put_lists(p, hdr);
		break;
	case NFSRDMA_WIRE_PROC_ERROR:
		p = nfsrdma_wire_put(p, hdr->err);
		if (hdr->err == NFSRDMA_WIRE_ERR_VERS) {
			p = nfsrdma_wire_put(p, hdr->vers_low);
			nfsrdma_wire_put(p, hdr->vers_high);
		}
		break;
	}
	return size;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_encode);

/**
 * nfsrdma_wire_encode_err_vers - build an RDMA_ERROR / ERR_VERS reply
 * @buf: output buffer
 * @buflen: size of @buf
 * @xid: XID of the message being refused, as received
 * @credits: credit grant to advertise
 * @low: lowest RPC-over-RDMA version this end supports
 * @high: highest RPC-over-RDMA version this end supports
 *
 * The reply itself carries version 1; RFC 8166 keeps the ERR_VERS layout
 * the same in every version, so any peer can parse it.
 *
 * Context: any.
 *
 * Return: %NFSRDMA_WIRE_ERR_VERS_SIZE, %-EINVAL if @low is above @high, or
 * %-EMSGSIZE if @buflen is too small.  Nothing is written on error.
 */
int nfsrdma_wire_encode_err_vers(void *buf, size_t buflen, __be32 xid,
				 u32 credits, u32 low, u32 high)
{
	u8 *p;

	if (low > high)
		return -EINVAL;
	p = nfsrdma_wire_start_small(buf, buflen, NFSRDMA_WIRE_ERR_VERS_SIZE,
				     xid, credits, NFSRDMA_WIRE_PROC_ERROR);
	if (!p)
		return -EMSGSIZE;
	p = nfsrdma_wire_put(p, NFSRDMA_WIRE_ERR_VERS);
	p = nfsrdma_wire_put(p, low);
	nfsrdma_wire_put(p, high);
	return NFSRDMA_WIRE_ERR_VERS_SIZE;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_encode_err_vers);

/**
 * nfsrdma_wire_encode_err_chunk - build an RDMA_ERROR / ERR_CHUNK reply
 * @buf: output buffer
 * @buflen: size of @buf
 * @xid: XID of the message being refused, as received
 * @credits: credit grant to advertise
 *
 * Context: any.
 *
 * Return: %NFSRDMA_WIRE_ERR_CHUNK_SIZE, or %-EMSGSIZE with nothing written
 * if @buflen is too small.
 */
int nfsrdma_wire_encode_err_chunk(void *buf, size_t buflen, __be32 xid,
				  u32 credits)
{
	u8 *p = nfsrdma_wire_start_small(buf, buflen,
					 NFSRDMA_WIRE_ERR_CHUNK_SIZE, xid,
					 credits, NFSRDMA_WIRE_PROC_ERROR);

	if (!p)
		return -EMSGSIZE;
	nfsrdma_wire_put(p, NFSRDMA_WIRE_ERR_CHUNK);
	return NFSRDMA_WIRE_ERR_CHUNK_SIZE;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_encode_err_chunk);

/**
 * nfsrdma_wire_encode_plain - build an RDMA_MSG header with no chunks
 * @buf: output buffer
 * @buflen: size of @buf
 * @xid: XID of the RPC message that follows inline
 * @credits: credit value to advertise (a grant, or a request in a
 *	backward-direction Call)
 *
 * For messages that never carry chunks, such as RFC 8167 backward
 * Calls, without a whole &struct nfsrdma_wire_hdr to fill in.
 *
 * Context: any.
 *
 * Return: %NFSRDMA_WIRE_MIN_MSG_SIZE, or %-EMSGSIZE with nothing written
 * if @buflen is too small.
 */
int nfsrdma_wire_encode_plain(void *buf, size_t buflen, __be32 xid,
			      u32 credits)
{
	u8 *p = nfsrdma_wire_start_small(buf, buflen, NFSRDMA_WIRE_MIN_MSG_SIZE,
					 xid, credits, NFSRDMA_WIRE_PROC_MSG);

	if (!p)
		return -EMSGSIZE;
	p = nfsrdma_wire_put(p, 0);	/* Read list */
	p = nfsrdma_wire_put(p, 0);	/* Write list */
	nfsrdma_wire_put(p, 0);		/* Reply chunk */
	return NFSRDMA_WIRE_MIN_MSG_SIZE;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_encode_plain);

/**
 * nfsrdma_wire_check_inline - check a header against the inline body length
 * @hdr: header that nfsrdma_wire_decode() accepted
 * @inline_len: bytes received after @hdr->hdr_len
 * @dir: whether the message is a Call or a Reply
 *
 * Enforces the RFC 8166 rules that tie the chunk lists to what arrived
 * inline: RDMA_MSG carries the RPC message inline, RDMA_NOMSG carries none
 * (a NOMSG Call has it in a Position-zero Read chunk, a NOMSG Reply in the
 * Reply chunk), and Version 1 Replies never have Read chunks.
 *
 * Context: any.
 *
 * Return:
 * * %0 - consistent.
 * * %-EOPNOTSUPP - RDMA_MSGP or RDMA_DONE (reply ERR_CHUNK).
 * * %-EINVAL - anything else: an empty RDMA_MSG, a Read chunk at position
 *   zero or past the inline data of an RDMA_MSG Call, inline data with
 *   RDMA_NOMSG, a NOMSG Call without a Position-zero Read chunk, a NOMSG
 *   Reply without a Reply chunk, a Reply with a Read list, an RDMA_ERROR
 *   Call, or an unknown @dir or procedure.
 */
int nfsrdma_wire_check_inline(const struct nfsrdma_wire_hdr *hdr,
			      size_t inline_len, enum nfsrdma_wire_dir dir)
{
	bool call;

	if (dir == NFSRDMA_WIRE_DIR_CALL)
		call = true;
	else if (dir == NFSRDMA_WIRE_DIR_REPLY)
		call = false;
	else
		return -EINVAL;

	switch (hdr->proc) {
	case NFSRDMA_WIRE_PROC_MSG:
		if (!inline_len)
			return -EINVAL;
		if (!call)
			return hdr->nr_read ? -EINVAL : 0;
		/*
		 * The list is sorted, so read[0] has the lowest position: the
		 * inline part must hold everything in front of it.
		 */
		if (hdr->nr_read && (hdr->read[0].position == 0 ||
				     hdr->read[0].position > inline_len))
			return -EINVAL;
		return 0;
	case NFSRDMA_WIRE_PROC_NOMSG:
		if (inline_len)
			return -EINVAL;
		if (call)
			return hdr->nr_read && hdr->read[0].position == 0 ?
			       0 : -EINVAL;
		return !hdr->nr_read && hdr->has_reply ? 0 : -EINVAL;
	case NFSRDMA_WIRE_PROC_ERROR:
		return call ? -EINVAL : 0;
	case NFSRDMA_WIRE_PROC_MSGP:
	case NFSRDMA_WIRE_PROC_DONE:
		return -EOPNOTSUPP;
	}
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_check_inline);

/* RFC 8797 private data */

static bool nfsrdma_wire_inline_ok(u32 size)
{
	return size >= NFSRDMA_WIRE_DEFAULT_INLINE &&
	       size <= NFSRDMA_WIRE_MAX_INLINE &&
	       !(size % NFSRDMA_WIRE_DEFAULT_INLINE);
}

/* One octet holds (size / 1024) - 1, covering 1 KiB to 256 KiB. */
static u8 nfsrdma_wire_inline_to_octet(u32 size)
{
	return (u8)(size / NFSRDMA_WIRE_DEFAULT_INLINE - 1);
}

static u32 nfsrdma_wire_octet_to_inline(u8 octet)
{
	return ((u32)octet + 1) * NFSRDMA_WIRE_DEFAULT_INLINE;
}

/**
 * nfsrdma_wire_decode_cm_pdata - parse RDMA-CM private data from a peer
 * @pd: result; always filled in, with the RFC 8797 defaults (1 KiB each
 *	way, no Remote Invalidation) unless the peer sent valid private data
 * @buf: private data as delivered by the connection manager; may be NULL
 *	if @len is 0
 * @len: its length; the CM often pads it, so bytes past the first
 *	%NFSRDMA_WIRE_CM_PDATA_SIZE are ignored
 *
 * Reserved flag bits are ignored, as a later revision may assign them.
 *
 * Context: any.
 *
 * Return: %0 if @pd now holds the peer's values; %-ENODATA if the peer
 * sent none (shorter than 8 bytes or a different format identifier);
 * %-EPROTONOSUPPORT if it is RFC 8797 data of a version other than 1.
 * In both error cases @pd holds the defaults and the connection proceeds.
 */
int nfsrdma_wire_decode_cm_pdata(struct nfsrdma_wire_cm_pdata *pd,
				 const void *buf, size_t len)
{
	const u8 *p = buf;
	__be32 magic;

	pd->send_size = NFSRDMA_WIRE_DEFAULT_INLINE;
	pd->recv_size = NFSRDMA_WIRE_DEFAULT_INLINE;
	pd->remote_inv = false;

	if (len < NFSRDMA_WIRE_CM_PDATA_SIZE)
		return -ENODATA;
	memcpy(&magic, p, sizeof(magic));
	if (be32_to_cpu(magic) != NFSRDMA_WIRE_CM_PDATA_MAGIC)
		return -ENODATA;
	if (p[4] != NFSRDMA_WIRE_CM_PDATA_VERSION)
		return -EPROTONOSUPPORT;

	pd->remote_inv = p[5] & NFSRDMA_WIRE_CM_FLAG_REMOTE_INV;
	pd->send_size = nfsrdma_wire_octet_to_inline(p[6]);
	pd->recv_size = nfsrdma_wire_octet_to_inline(p[7]);
	return 0;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_decode_cm_pdata);

/**
 * nfsrdma_wire_encode_cm_pdata - build RDMA-CM private data
 * @buf: output buffer
 * @buflen: size of @buf
 * @pd: values to advertise
 *
 * Sizes are not rounded: advertising less receive space than is posted
 * would be harmless, but a rounded-down send size would be a promise the
 * caller might not keep, so the caller must pick representable values.
 *
 * Context: any.
 *
 * Return: %NFSRDMA_WIRE_CM_PDATA_SIZE; %-EINVAL if a size is not a
 * multiple of 1024 between %NFSRDMA_WIRE_DEFAULT_INLINE and
 * %NFSRDMA_WIRE_MAX_INLINE; %-EMSGSIZE if @buflen is too small.  Nothing
 * is written on error.
 */
int nfsrdma_wire_encode_cm_pdata(void *buf, size_t buflen,
				 const struct nfsrdma_wire_cm_pdata *pd)
{
	__be32 magic = cpu_to_be32(NFSRDMA_WIRE_CM_PDATA_MAGIC);
	u8 *p = buf;

	if (!nfsrdma_wire_inline_ok(pd->send_size) ||
	    !nfsrdma_wire_inline_ok(pd->recv_size))
		return -EINVAL;
	if (buflen < NFSRDMA_WIRE_CM_PDATA_SIZE)
		return -EMSGSIZE;

	memcpy(p, &magic, sizeof(magic));
	p[4] = NFSRDMA_WIRE_CM_PDATA_VERSION;
	p[5] = pd->remote_inv ? NFSRDMA_WIRE_CM_FLAG_REMOTE_INV : 0;
	p[6] = nfsrdma_wire_inline_to_octet(pd->send_size);
	p[7] = nfsrdma_wire_inline_to_octet(pd->recv_size);
	return NFSRDMA_WIRE_CM_PDATA_SIZE;
}
EXPORT_SYMBOL_GPL(nfsrdma_wire_encode_cm_pdata);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RPC-over-RDMA Version 1 wire codec");
MODULE_AUTHOR("nfsrdma developers");
