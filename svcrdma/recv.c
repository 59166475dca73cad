// SPDX-License-Identifier: GPL-2.0
/*
 * svcrdma: receive contexts and the receive path.
 *
 * A receive context stays with its call from the Receive completion
 * until nfsd releases the request (xpo_release_ctxt), because the reply
 * needs the call's Write list and Reply chunk.  We post twice the credit
 * grant so that a client sending its next call right after our reply
 * still finds a buffer while nfsd is releasing the previous one.
 *
 * The call is assembled in rqstp->rq_pages as one flat XDR stream, as
 * the TCP transport does: inline bytes are copied, Read chunk data is
 * pulled there directly with RDMA Read, at the place the chunk's
 * position says, followed by its XDR padding and the rest of the inline
 * message.  An RDMA_NOMSG call's body is placed the same way, pulled in
 * pieces from its Position-zero chunk instead of copied.  The Reads go
 * out as one chain, or in turns when they would take more than half the
 * send queue or more MRs than the QP's pool has free.
 */

#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/mempool.h>
#include <linux/highmem.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/xdr.h>
#include <nfsrdma/rc.h>

#include "svcrdma.h"
#include "trace.h"

/*
 * Decoded headers.  One is 10.8 KiB (a 16 KiB slab object), as large as
 * the longest chunk lists we accept, but only calls being served need
 * one: a connection posts twice its credits in receives (128 by
 * default), and embedding a header in each would pin 2 MiB per
 * connection before the client had sent anything.  The pool's reserve
 * serves calls when the 16 KiB allocation fails; with the reserve empty
 * too, mempool_alloc() waits for a release or retries with reclaim, so
 * no call fails for want of a header (it may wait).  memory_bytes counts
 * headers in use, not the reserve.
 */
#define SVCRDMA_HDR_RESERVE	16
static mempool_t *svcrdma_hdr_pool;

/**
 * svcrdma_hdr_alloc - a decoded-header buffer for a call being served
 *
 * Context: nfsd thread; may sleep until another call's header is freed.
 *
 * Return: the buffer; never NULL.
 */
struct nfsrdma_wire_hdr *svcrdma_hdr_alloc(void)
{
	svcrdma_mem_add(sizeof(struct nfsrdma_wire_hdr));
	return mempool_alloc(svcrdma_hdr_pool, GFP_KERNEL);
}

/**
 * svcrdma_hdr_free - give back a buffer from svcrdma_hdr_alloc()
 * @hdr: the buffer, or NULL
 *
 * Context: process.
 */
void svcrdma_hdr_free(struct nfsrdma_wire_hdr *hdr)
{
	if (!hdr)
		return;
	mempool_free(hdr, svcrdma_hdr_pool);
	svcrdma_mem_sub(sizeof(*hdr));
}

/**
 * svcrdma_hdr_pool_init - create the decoded-header pool
 *
 * Context: module init.
 *
 * Return: 0 or -ENOMEM.
 */
int svcrdma_hdr_pool_init(void)
{
	svcrdma_hdr_pool = mempool_create_kmalloc_pool(SVCRDMA_HDR_RESERVE,
					sizeof(struct nfsrdma_wire_hdr));
	return svcrdma_hdr_pool ? 0 : -ENOMEM;
}

/**
 * svcrdma_hdr_pool_exit - destroy the decoded-header pool
 *
 * Context: module exit, after every transport is freed.
 */
void svcrdma_hdr_pool_exit(void)
{
	mempool_destroy(svcrdma_hdr_pool);
}

static void svcrdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svcrdma_recv_ctxt *rc =
		container_of(wc->wr_cqe, struct svcrdma_recv_ctxt, cqe);
	struct svcrdma_xprt *xp = rc->xp;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_warn_ratelimited("svcrdma: receive from %s failed: %s\n",
					    xp->xprt.xpt_remotebuf,
					    ib_wc_status_msg(wc->status));
			svcrdma_stat_inc(SVCRDMA_STAT_WC_ERRORS);
			trace_svcrdma_wc_error(xp, "receive", wc);
		}
		svc_xprt_deferred_close(&xp->xprt);
		return;
	}
	if (unlikely(!nfsrdma_recv_is_send(wc, xp->recv_size))) {
		pr_warn_ratelimited("svcrdma: %s consumed a receive with a non-Send (completion opcode %d, %u bytes), closing\n",
				    xp->xprt.xpt_remotebuf, wc->opcode,
				    wc->byte_len);
		svcrdma_stat_inc(SVCRDMA_STAT_BAD_INPUT_CLOSES);
		trace_svcrdma_bad_input(xp, wc->byte_len, "non-Send", true);
		svc_xprt_deferred_close(&xp->xprt);
		return;
	}

	rc->byte_len = wc->byte_len;
	spin_lock(&xp->ready_lock);
	list_add_tail(&rc->node, &xp->ready);
	spin_unlock(&xp->ready_lock);
	set_bit(XPT_DATA, &xp->xprt.xpt_flags);
	svc_xprt_enqueue(&xp->xprt);
}

/* Hand a receive buffer (back) to the device; the CPU is done with it. */
static int svcrdma_recv_post(struct svcrdma_recv_ctxt *rc)
{
	struct svcrdma_xprt *xp = rc->xp;

	ib_dma_sync_single_for_device(xp->dev, rc->sge.addr, xp->recv_size,
				      DMA_FROM_DEVICE);
	return ib_post_recv(xp->qp, &rc->wr, NULL);
}

static void svcrdma_recv_free(struct svcrdma_xprt *xp,
			      struct svcrdma_recv_ctxt *rc)
{
	svcrdma_hdr_free(rc->hdr);
	ib_dma_unmap_single(xp->dev, rc->sge.addr, xp->recv_size,
			    DMA_FROM_DEVICE);
	kfree(rc->buf);
	kfree(rc);
	svcrdma_mem_sub(sizeof(*rc) + xp->recv_size);
	svcrdma_stat_dec(SVCRDMA_STAT_RECV_CTXTS);
}

static struct svcrdma_recv_ctxt *svcrdma_recv_alloc(struct svcrdma_xprt *xp)
{
	struct svcrdma_recv_ctxt *rc;
	u64 addr;

	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc)
		goto out;
	rc->buf = kmalloc(xp->recv_size, GFP_KERNEL);
	if (!rc->buf)
		goto free_ctxt;
	addr = ib_dma_map_single(xp->dev, rc->buf, xp->recv_size,
				 DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(xp->dev, addr))
		goto free_buf;

	rc->xp = xp;
	INIT_LIST_HEAD(&rc->node);
	rc->cqe.done = svcrdma_recv_done;
	rc->sge.addr = addr;
	rc->sge.length = xp->recv_size;
	rc->sge.lkey = xp->pd->local_dma_lkey;
	rc->wr.wr_cqe = &rc->cqe;
	rc->wr.sg_list = &rc->sge;
	rc->wr.num_sge = 1;
	svcrdma_mem_add(sizeof(*rc) + xp->recv_size);
	svcrdma_stat_inc(SVCRDMA_STAT_RECV_CTXTS);
	return rc;

free_buf:
	kfree(rc->buf);
free_ctxt:
	kfree(rc);
out:
	return NULL;
}

/**
 * svcrdma_recvs_create - allocate and post the receive ring
 * @xp: connection whose QP exists but is not yet connected
 *
 * Context: nfsd thread (xpo_accept); may sleep.
 *
 * Return: 0, -ENOMEM, or the error from ib_post_recv().  On error the
 * contexts allocated so far stay in @xp->recvs for
 * svcrdma_recvs_destroy().
 */
int svcrdma_recvs_create(struct svcrdma_xprt *xp)
{
	unsigned int i, depth = xp->nr_recvs;
	int ret;

	xp->nr_recvs = 0;
	xp->recvs = kcalloc(depth, sizeof(*xp->recvs), GFP_KERNEL);
	if (!xp->recvs)
		return -ENOMEM;
	for (i = 0; i < depth; i++) {
		struct svcrdma_recv_ctxt *rc = svcrdma_recv_alloc(xp);

		if (!rc)
			return -ENOMEM;
		xp->recvs[xp->nr_recvs++] = rc;
		ret = svcrdma_recv_post(rc);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * svcrdma_recvs_destroy - free every receive context
 * @xp: connection whose QP and CQs are gone, so no handler can run
 *
 * Context: process (xpo_free).
 */
void svcrdma_recvs_destroy(struct svcrdma_xprt *xp)
{
	unsigned int i;

	/* Setup may have failed before the ring was allocated. */
	if (!xp->recvs)
		return;
	for (i = 0; i < xp->nr_recvs; i++)
		svcrdma_recv_free(xp, xp->recvs[i]);
	kfree(xp->recvs);
	xp->recvs = NULL;
	xp->nr_recvs = 0;
}

/*
 * Take the oldest received message.  XPT_DATA is cleared before the list
 * is looked at so that a completion racing with us either lands on the
 * list we are about to see or sets XPT_DATA again after we clear it.
 */
static struct svcrdma_recv_ctxt *svcrdma_ready_pop(struct svcrdma_xprt *xp)
{
	struct svcrdma_recv_ctxt *rc;

	clear_bit(XPT_DATA, &xp->xprt.xpt_flags);
	smp_mb__after_atomic();
	spin_lock(&xp->ready_lock);
	rc = list_first_entry_or_null(&xp->ready, struct svcrdma_recv_ctxt,
				      node);
	if (rc) {
		list_del_init(&rc->node);
		if (!list_empty(&xp->ready))
			set_bit(XPT_DATA, &xp->xprt.xpt_flags);
	}
	spin_unlock(&xp->ready_lock);
	return rc;
}

/* Copy @len bytes to byte @off of the flat stream held in @pages. */
static void svcrdma_stream_write(struct page **pages, u32 off,
				 const void *src, u32 len)
{
	while (len) {
		u32 poff = offset_in_page(off);
		u32 n = min_t(u32, len, PAGE_SIZE - poff);

		if (src) {
			memcpy(page_address(pages[off >> PAGE_SHIFT]) + poff,
			       src, n);
			src += n;
		} else {
			memset(page_address(pages[off >> PAGE_SHIFT]) + poff,
			       0, n);
		}
		off += n;
		len -= n;
	}
}

/*
 * Post the Reads queued in @set, wait for them, and empty it for the next
 * turn of the same call.
 */
static int svcrdma_read_turn(struct svcrdma_xprt *xp,
			     struct svcrdma_rw_set *set)
{
	unsigned int posted = set->posted_wrs + set->nr_wrs;
	int ret = svcrdma_rw_read_wait(xp, set);

	if (ret)
		return ret;
	svcrdma_stat_inc(SVCRDMA_STAT_READ_TURNS);
	/* Its completion handler has run: the set may start over. */
	svcrdma_rw_release(xp, set);
	svcrdma_rw_init(set, DMA_FROM_DEVICE);
	set->posted_wrs = posted;
	return 0;
}

/* The connection is going away: a wait for its resources is over. */
static bool svcrdma_closing(struct svcrdma_xprt *xp)
{
	return test_bit(XPT_CLOSE, &xp->xprt.xpt_flags) ||
	       svc_xprt_is_dead(&xp->xprt);
}

/*
 * Queue the RDMA Read of one segment or piece, posting what is queued
 * first when it must.  A set's chain may take at most half the send
 * queue, so that a chunk of many segments is read in turns instead of
 * being refused.
 * And where Reads need MRs (iWARP always; rdma_rw decides), every Read
 * context takes them from the QP's pool, which holds enough for one
 * full data chunk per credit: a chunk of small segments (one a page, as
 * clients that register page by page send them) can ask for more, and
 * concurrent calls share it.  When the pool is dry (rdma_rw_ctx_init()
 * says -EAGAIN), the Reads queued so far are posted and waited for,
 * which returns their MRs.  With none queued, other calls hold the pool:
 * try again whenever a set is released, and at least every tenth of a
 * second (a context that failed part way hands its MRs back without a
 * release), until the stall timeout says the connection is stuck.
 * Returns 0 or a negative errno.
 */
static int svcrdma_read_add_one(struct svcrdma_xprt *xp,
				struct svcrdma_rw_set *set,
				const struct xdr_buf *stream, u32 off, u32 len,
				u32 rkey, u64 raddr)
{
	unsigned long since = 0;
	bool waited = false;
	int seen, ret;

	for (;;) {
		seen = atomic_read(&xp->rw_releases);
		ret = svcrdma_rw_add(xp, set, stream, off, len, rkey, raddr);
		if (ret != -EAGAIN) {
			if (ret || set->nr_wrs < xp->sq_depth / 2)
				return ret;
			return svcrdma_read_turn(xp, set);
		}
		if (set->nr_wrs) {
			ret = svcrdma_read_turn(xp, set);
			if (ret)
				return ret;
			continue;
		}
		if (!waited) {
			waited = true;
			since = jiffies;
			svcrdma_stat_inc(SVCRDMA_STAT_MR_POOL_WAITS);
		} else if (time_after(jiffies,
				      since + svcrdma_stall_timeout * HZ)) {
			pr_warn_ratelimited("svcrdma: no MR for an RDMA Read from %s in %u s; closing the connection\n",
					    xp->xprt.xpt_remotebuf,
					    svcrdma_stall_timeout);
			return -ENOTCONN;
		}
		if (svcrdma_closing(xp))
			return -ENOTCONN;
		wait_event_timeout(xp->sq_wait,
				   atomic_read(&xp->rw_releases) != seen ||
				   svcrdma_closing(xp), HZ / 10);
	}
}

/*
 * Queue the RDMA Read of bytes [@off, @off + @len) of the stream from
 * @raddr.  A paced set (svcrdma_build_call()) is read in pieces of
 * xp->read_piece bytes, each posted and waited for once it is full, so
 * that this call has no more than one piece's responses in flight; a
 * piece may span segments, so a chunk of many small segments is not
 * read one round trip per segment.  The whole call gets the stall
 * timeout that one unpaced chain would: a client that answers each
 * piece just in time must not hold the connection's read mutex, and the
 * threads waiting for it, for pieces times as long.
 */
static int svcrdma_read_add(struct svcrdma_xprt *xp,
			    struct svcrdma_rw_set *set,
			    const struct xdr_buf *stream, u32 off, u32 len,
			    u32 rkey, u64 raddr)
{
	u32 n;
	int ret;

	if (!set->paced)
		return svcrdma_read_add_one(xp, set, stream, off, len, rkey,
					    raddr);
	while (len) {
		if (svcrdma_closing(xp))
			return -ENOTCONN;
		if (time_after(jiffies, set->paced_since +
					svcrdma_stall_timeout * HZ)) {
			pr_warn_ratelimited("svcrdma: RDMA Reads of one call from %s took over %u s; closing the connection\n",
					    xp->xprt.xpt_remotebuf,
					    svcrdma_stall_timeout);
			return -ENOTCONN;
		}
		n = min(len, xp->read_piece - set->paced_bytes);
		ret = svcrdma_read_add_one(xp, set, stream, off, n, rkey,
					   raddr);
		if (ret)
			return ret;
		set->paced_bytes += n;
		if (set->paced_bytes >= xp->read_piece) {
			set->paced_bytes = 0;
			if (set->nr_wrs) {
				ret = svcrdma_read_turn(xp, set);
				if (ret)
					return ret;
			}
		}
		off += n;
		raddr += n;
		len -= n;
	}
	return 0;
}

/*
 * Walk the segments of the Read chunk starting at hdr->read[*idx], landing
 * at byte @off of the stream, and (with @set) read them: queued, or
 * posted in turns (svcrdma_read_add()).
 * Advances *idx past the chunk and returns the chunk's length, or a
 * negative errno.
 */
static long svcrdma_read_chunk(struct svcrdma_xprt *xp,
			       struct svcrdma_rw_set *set,
			       const struct xdr_buf *stream,
			       const struct nfsrdma_wire_hdr *hdr,
			       unsigned int *idx, u32 off, u32 limit)
{
	u32 pos = hdr->read[*idx].position;
	u32 total = 0;
	int ret;

	for (; *idx < hdr->nr_read && hdr->read[*idx].position == pos;
	     (*idx)++) {
		const struct nfsrdma_wire_seg *seg = &hdr->read[*idx].seg;

		if (!seg->length)
			continue;
		if (seg->length > limit || off + total > limit - seg->length)
			return -E2BIG;
		if (set) {
			ret = svcrdma_read_add(xp, set, stream, off + total,
					       seg->length, seg->handle,
					       seg->offset);
			if (ret)
				return ret;
		}
		total += seg->length;
	}
	return total;
}

/*
 * Queue RDMA Reads for bytes [@from, @from + @len) of the Position-zero
 * chunk (hdr->read[0] up to, not including, hdr->read[@end]), landing at
 * byte @off of the stream.  The caller has checked that the range lies
 * within the chunk and the stream.
 */
static int svcrdma_read_p0_range(struct svcrdma_xprt *xp,
				 struct svcrdma_rw_set *set,
				 const struct xdr_buf *stream,
				 const struct nfsrdma_wire_hdr *hdr,
				 unsigned int end, u32 from, u32 len, u32 off)
{
	unsigned int i;
	int ret;

	for (i = 0; i < end && len; i++) {
		const struct nfsrdma_wire_seg *seg = &hdr->read[i].seg;
		u32 n;

		if (from >= seg->length) {
			from -= seg->length;
			continue;
		}
		n = min(len, seg->length - from);
		ret = svcrdma_read_add(xp, set, stream, off, n, seg->handle,
				       seg->offset + from);
		if (ret)
			return ret;
		off += n;
		len -= n;
		from = 0;
	}
	return 0;
}

/*
 * Place @len bytes of the call's message body, starting at byte @from of
 * it, at byte @off of the stream: copied from the inline part of an
 * RDMA_MSG on the first walk, read from the Position-zero chunk of an
 * RDMA_NOMSG (@p0_end is then the index past it) on the second.
 */
static int svcrdma_place_body(struct svc_rqst *rqstp, struct svcrdma_xprt *xp,
			      const struct nfsrdma_wire_hdr *hdr,
			      unsigned int p0_end, const u8 *inl,
			      const struct xdr_buf *stream,
			      struct svcrdma_rw_set *set,
			      u32 from, u32 len, u32 off)
{
	if (p0_end)
		return set ? svcrdma_read_p0_range(xp, set, stream, hdr, p0_end,
						   from, len, off) : 0;
	if (!set)
		svcrdma_stream_write(rqstp->rq_pages, off, inl + from, len);
	return 0;
}

/*
 * Lay the call's XDR stream out in rqstp->rq_pages.  Without @set this
 * copies the inline pieces (and the pads the chunks omit) into place;
 * with @set it only reads what fills the gaps (svcrdma_read_add()
 * queues the RDMA Reads, and may post some in turns).  Both walks
 * take the same path, so the offsets agree, and the pages are DMA-mapped
 * for the Reads only after the CPU has finished writing them.
 *
 * Positions count bytes of the complete stream, chunk data included, so
 * the inline offset of a chunk is its position less the chunk bytes (and
 * padding) already inserted before it.  An RDMA_NOMSG carries the message
 * body in its Position-zero chunk instead of inline, and may carry data
 * chunks besides (RFC 8166, section 3.5.3): the body is then laid out
 * around them exactly as inline data would be, piece by piece from the
 * Position-zero chunk by RDMA Read.
 *
 * Return: stream length, -EINVAL/-E2BIG for a call we answer with
 * ERR_CHUNK, or another negative errno.
 */
static int svcrdma_lay_out_call(struct svc_rqst *rqstp,
				struct svcrdma_xprt *xp,
				const struct nfsrdma_wire_hdr *hdr,
				const u8 *inl, u32 inl_len, u32 limit,
				const struct xdr_buf *stream,
				struct svcrdma_rw_set *set)
{
	u32 out = 0, cur = 0, shift = 0;
	unsigned int i = 0, p0_end = 0;
	long clen;
	int ret;

	if (hdr->proc == NFSRDMA_WIRE_PROC_NOMSG) {
		/* Only measure the body here; its pieces are read below. */
		if (!hdr->nr_read || hdr->read[0].position)
			return -EINVAL;
		clen = svcrdma_read_chunk(xp, NULL, stream, hdr, &i, 0, limit);
		if (clen < 0)
			return clen;
		if (!clen)
			return -EINVAL;
		p0_end = i;
		inl_len = clen;
	}

	while (i < hdr->nr_read) {
		u32 pos = hdr->read[i].position;
		u32 at;

		if (pos < shift || pos - shift < cur || pos - shift > inl_len)
			return -EINVAL;
		at = pos - shift;
		if (at - cur > limit - out)
			return -E2BIG;
		ret = svcrdma_place_body(rqstp, xp, hdr, p0_end, inl, stream,
					 set, cur, at - cur, out);
		if (ret)
			return ret;
		out += at - cur;
		cur = at;

		clen = svcrdma_read_chunk(xp, set, stream, hdr, &i, out,
					  limit);
		if (clen < 0)
			return clen;
		out += clen;
		/* The chunk omits the XDR roundup; put it back. */
		if (xdr_pad_size(clen) > limit - out)
			return -E2BIG;
		if (!set)
			svcrdma_stream_write(rqstp->rq_pages, out, NULL,
					     xdr_pad_size(clen));
		out += xdr_pad_size(clen);
		shift += clen + xdr_pad_size(clen);
	}
	if (inl_len - cur > limit - out)
		return -E2BIG;
	ret = svcrdma_place_body(rqstp, xp, hdr, p0_end, inl, stream, set,
				 cur, inl_len - cur, out);
	if (ret)
		return ret;
	out += inl_len - cur;
	return out;
}

/* The bytes a call's Read segments carry, summed in 64 bits. */
static u64 svcrdma_read_total(const struct nfsrdma_wire_hdr *hdr)
{
	u64 bytes = 0;
	unsigned int i;

	for (i = 0; i < hdr->nr_read; i++)
		bytes += hdr->read[i].seg.length;
	return bytes;
}

/*
 * Count the Read chunks of a call whose Reads all completed.  Segments
 * of one chunk share a position.
 */
static void svcrdma_count_reads(const struct nfsrdma_wire_hdr *hdr)
{
	unsigned int i, chunks = 0;

	for (i = 0; i < hdr->nr_read; i++)
		if (!i || hdr->read[i].position != hdr->read[i - 1].position)
			chunks++;
	svcrdma_stat_add(SVCRDMA_STAT_READ_CHUNKS, chunks);
	svcrdma_stat_add(SVCRDMA_STAT_READ_BYTES, svcrdma_read_total(hdr));
}

/*
 * Build the call's XDR stream in rqstp->rq_pages, pulling its Read chunks,
 * and point rq_arg at it.
 *
 * Return: stream length, -EINVAL/-E2BIG for a call we answer with
 * ERR_CHUNK, or another negative errno for a broken connection.
 */
static int svcrdma_build_call(struct svc_rqst *rqstp, struct svcrdma_xprt *xp,
			      struct svcrdma_recv_ctxt *rc)
{
	const struct nfsrdma_wire_hdr *hdr = rc->hdr;
	const u8 *inl = (const u8 *)rc->buf + hdr->hdr_len;
	u32 inl_len = rc->byte_len - hdr->hdr_len;
	/* Leave at least one page for the reply. */
	u32 limit = (rqstp->rq_page_end - rqstp->rq_pages - 1) << PAGE_SHIFT;
	struct xdr_buf stream = {
		.pages = rqstp->rq_pages,
		.page_len = limit,
		.buflen = limit,
		.len = limit,
	};
	struct svcrdma_rw_set *set = &rc->reads;
	struct xdr_buf *arg = &rqstp->rq_arg;
	unsigned int pages;
	u32 out;
	int ret;

	svcrdma_rw_init(set, DMA_FROM_DEVICE);
	/*
	 * On rxe, which paces nothing, the responses to every Read in flight
	 * arrive as one burst, and a receiver that falls behind drops its
	 * tail.  A call whose Reads exceed xp->read_piece therefore reads
	 * them a piece at a time, and one such call at a time per
	 * connection; smaller calls read at once, beside it.
	 */
	set->paced = xp->read_piece &&
		     svcrdma_read_total(hdr) > xp->read_piece;
	/*
	 * Killable, not uninterruptible: the holder may take up to the stall
	 * timeout, and each thread ahead of us as long again.
	 */
	if (set->paced) {
		if (mutex_lock_killable(&xp->read_mutex)) {
			set->paced = false;
			ret = -ENOTCONN;
			goto out;
		}
		set->paced_since = jiffies;
		set->paced_bytes = 0;
	}
	/*
	 * A client that offered no responder resources takes no RDMA Read:
	 * one posted anyway would wait for ever for a read credit, and the
	 * whole send queue with it, until the stall check closed the
	 * connection.
	 */
	if (hdr->nr_read && !xp->ord) {
		pr_warn_ratelimited("svcrdma: %s sent Read chunks but accepts no RDMA Read\n",
				    xp->xprt.xpt_remotebuf);
		ret = -E2BIG;
		goto out;
	}
	ret = svcrdma_lay_out_call(rqstp, xp, hdr, inl, inl_len, limit,
				   &stream, NULL);
	if (ret < 0)
		goto out;
	out = ret;
	if (out < 8) {	/* not even an XID and a direction */
		ret = -EINVAL;
		goto out;
	}
	if (hdr->nr_read) {
		ret = svcrdma_lay_out_call(rqstp, xp, hdr, inl, inl_len, limit,
					   &stream, set);
		if (ret < 0)
			goto out;
	}
	/* The last turn's Reads, if svcrdma_read_add() left any. */
	if (set->nr_wrs || set->posted_wrs) {
		/* -E2BIG: one segment needs more than the send queue. */
		ret = set->nr_wrs ? svcrdma_rw_read_wait(xp, set) : 0;
		if (ret)
			goto out;
		svcrdma_count_reads(hdr);
		trace_svcrdma_read_chunks(xp, hdr->xid, hdr->nr_read,
					  set->posted_wrs + set->nr_wrs, out);
	}

	arg->head[0].iov_base = page_address(rqstp->rq_pages[0]);
	arg->head[0].iov_len = min_t(u32, out, PAGE_SIZE);
	arg->pages = rqstp->rq_pages + 1;
	arg->page_base = 0;
	arg->page_len = out - arg->head[0].iov_len;
	arg->tail[0].iov_base = NULL;
	arg->tail[0].iov_len = 0;
	arg->len = out;
	arg->buflen = out;
	pages = DIV_ROUND_UP(out, PAGE_SIZE);
	rqstp->rq_respages = rqstp->rq_pages + pages;
	rqstp->rq_next_page = rqstp->rq_respages + 1;
	ret = out;
out:
	svcrdma_rw_release(xp, set);
	if (set->paced)
		mutex_unlock(&xp->read_mutex);
	return ret;
}

/*
 * A backward-direction Reply (RFC 8167) arrives like any call: inline in
 * an RDMA_MSG.  Only the RPC msg_type word after the XID tells them apart.
 */
static bool svcrdma_is_bc_reply(const struct svcrdma_recv_ctxt *rc)
{
	const struct nfsrdma_wire_hdr *hdr = rc->hdr;
	__be32 dir;

	if (hdr->proc != NFSRDMA_WIRE_PROC_MSG ||
	    rc->byte_len - hdr->hdr_len < 8)
		return false;
	memcpy(&dir, (u8 *)rc->buf + hdr->hdr_len + 4, sizeof(dir));
	return dir == cpu_to_be32(1);	/* REPLY */
}

/**
 * svcrdma_recvfrom - xpo_recvfrom: hand the next received call to nfsd
 * @rqstp: the nfsd thread's request
 *
 * Malformed transport headers are answered with RDMA_ERROR (ERR_VERS or
 * ERR_CHUNK) and the call is dropped; the connection stays up.
 *
 * Context: nfsd thread holding XPT_BUSY on the transport; may sleep
 * (waits for RDMA Reads, and for MRs to read with).
 *
 * Return: length of the call in rqstp->rq_arg, or 0 if there was nothing
 * to hand over or the connection already holds its share of threads.
 */
int svcrdma_recvfrom(struct svc_rqst *rqstp)
{
	struct svc_xprt *xprt = rqstp->rq_xprt;
	struct svcrdma_xprt *xp = svcrdma_of(xprt);
	struct svcrdma_recv_ctxt *rc;
	struct nfsrdma_wire_hdr *hdr;
	const char *where;
	int ret;

	rqstp->rq_xprt_ctxt = NULL;
	if (!svcrdma_hold(xp, rqstp)) {
		svc_xprt_received(xprt);
		return 0;
	}
	rc = svcrdma_ready_pop(xp);
	/* Let another thread take the next message while we work. */
	svc_xprt_received(xprt);
	if (!rc) {
		svcrdma_unhold(xp);
		return 0;
	}
	/*
	 * From here on svc_xprt_release() reposts @rc and gives back the
	 * hold and the decoded header via xpo_release_ctxt.
	 */
	rc->hdr = svcrdma_hdr_alloc();
	rqstp->rq_xprt_ctxt = rc;
	rc->nr_payloads = 0;
	/*
	 * RDMA has no privileged ports; the fabric is the trust boundary.
	 * Since 6.12 the transport says so here (6.1 also asks through
	 * xpo_secure_port, which says the same).
	 */
	set_bit(RQ_SECURE, &rqstp->rq_flags);
	hdr = rc->hdr;

	ib_dma_sync_single_for_cpu(xp->dev, rc->sge.addr, rc->byte_len,
				   DMA_FROM_DEVICE);
	ret = nfsrdma_wire_decode(hdr, rc->buf, rc->byte_len);
	if (ret && rc->byte_len < NFSRDMA_WIRE_PREFIX_SIZE) {
		/*
		 * No XID to address an RDMA_ERROR to, and a peer this
		 * confused about framing cannot be trusted further.
		 */
		pr_warn_ratelimited("svcrdma: %s sent a %u-byte message, closing\n",
				    xprt->xpt_remotebuf, rc->byte_len);
		svcrdma_stat_inc(SVCRDMA_STAT_BAD_INPUT_CLOSES);
		trace_svcrdma_bad_input(xp, rc->byte_len, "shorter than an XID",
					true);
		svc_xprt_deferred_close(xprt);
		return 0;
	}
	/*
	 * Never answer an error with an error, not even one the codec
	 * refused (an unknown error code, another version's ERR_VERS): the
	 * procedure word follows the XID, version and credits in every
	 * version.
	 */
	if (rc->byte_len >= NFSRDMA_WIRE_PREFIX_SIZE + 4 &&
	    be32_to_cpup((__be32 *)rc->buf + 3) == NFSRDMA_WIRE_PROC_ERROR) {
		pr_warn_ratelimited("svcrdma: %s sent RDMA_ERROR as a call, dropped\n",
				    xprt->xpt_remotebuf);
		trace_svcrdma_bad_input(xp, rc->byte_len, "RDMA_ERROR as a call",
					false);
		return 0;
	}
	if (ret) {
		where = "transport header";
		goto reject;
	}
	if (svcrdma_is_bc_reply(rc)) {
		ret = nfsrdma_wire_check_inline(hdr, rc->byte_len - hdr->hdr_len,
						NFSRDMA_WIRE_DIR_REPLY);
		/* We never offer chunks for a backward Reply (RFC 8167). */
		if (!ret && !hdr->nr_write && !hdr->has_reply &&
		    hdr->proc == NFSRDMA_WIRE_PROC_MSG) {
			svcrdma_bc_reply(xp, (u8 *)rc->buf + hdr->hdr_len,
					 rc->byte_len - hdr->hdr_len);
		} else {
			pr_warn_ratelimited("svcrdma: malformed backchannel reply from %s, dropped\n",
					    xprt->xpt_remotebuf);
			trace_svcrdma_bad_input(xp, rc->byte_len,
						"malformed backchannel reply",
						false);
		}
		return 0;
	}
	ret = nfsrdma_wire_check_inline(hdr, rc->byte_len - hdr->hdr_len,
					NFSRDMA_WIRE_DIR_CALL);
	if (ret) {
		where = "inline call";
		goto reject;
	}

	ret = svcrdma_build_call(rqstp, xp, rc);
	if (ret == -EINVAL || ret == -E2BIG) {
		where = "read chunks";
		goto reject;
	}
	if (ret < 0) {
		svc_xprt_deferred_close(xprt);
		return 0;
	}

	rqstp->rq_prot = IPPROTO_MAX;
	clear_bit(RQ_LOCAL, &rqstp->rq_flags);
	svc_xprt_copy_addrs(rqstp, xprt);
	svcrdma_stat_inc(SVCRDMA_STAT_CALLS_RECEIVED);
	return ret;

reject:
	pr_warn_ratelimited("svcrdma: bad transport header from %s (xid 0x%08x): %d\n",
			    xprt->xpt_remotebuf, be32_to_cpu(hdr->xid), ret);
	svcrdma_send_error(xp, hdr->xid, ret, where);
	return 0;
}

/**
 * svcrdma_release_ctxt - xpo_release_ctxt: repost a call's receive buffer
 * @xprt: transport the call arrived on
 * @ctxt: the struct svcrdma_recv_ctxt, or NULL
 *
 * Context: process: an nfsd thread after the reply was sent or the call
 * dropped, or svc_revisit() / svc_delete_xprt() dropping a deferred call.
 */
void svcrdma_release_ctxt(struct svc_xprt *xprt, void *ctxt)
{
	struct svcrdma_recv_ctxt *rc = ctxt;

	if (!rc)
		return;
	svcrdma_hdr_free(rc->hdr);
	rc->hdr = NULL;
	/* On a dead QP this just completes with a flush error. */
	if (svcrdma_recv_post(rc))
		svc_xprt_deferred_close(xprt);
	svcrdma_unhold(rc->xp);
}
