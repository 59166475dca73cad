// SPDX-License-Identifier: GPL-2.0
/*
 * svcrdma: send contexts and the reply path.
 *
 * A reply leaves in one of three shapes (RFC 8166 section 3.5):
 *  - DDP payloads nfsd reported through xpo_result_payload are RDMA
 *    Written into the client's Write chunks and cut out of the stream;
 *  - what remains goes inline in an RDMA_MSG if it fits the client's
 *    receive buffers, else it is RDMA Written into the Reply chunk and
 *    an RDMA_NOMSG carries just the transport header;
 *  - a reply that fits neither is refused with ERR_CHUNK.
 * RDMA Writes are chained in front of the Send, so one post carries the
 * whole reply and the Send's completion means every Write finished.
 *
 * Every reply is posted and left to the completion handler, which
 * recycles the send context; nfsd's thread goes on to its next call
 * without waiting a round trip for the client's acknowledgement, but for
 * the cases below.  Inline replies, RDMA_ERROR replies and backchannel
 * Calls are copied into the send buffer.  A reply's Writes read nfsd's
 * pages in place: those pages are the ones nfsd drops after every reply
 * (rq_respages up to rq_next_page, refilled with fresh pages for its next
 * call), so a page reference per scatter entry keeps them for the Writes
 * until the Send completes.  Only a reply whose pages lie elsewhere, or
 * one on a connection that already pins SVCRDMA_HELD_MAX bytes of pages,
 * makes nfsd wait for its Send (write_waits counts those).
 */

#include <linux/slab.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/xdr.h>

#include "svcrdma.h"
#include "trace.h"

static void svcrdma_send_put(struct svcrdma_xprt *xp,
			     struct svcrdma_send_ctxt *sc);

/*
 * Release an async reply's Writes and the pages they pinned, if @sc still
 * holds them.  Whoever clears @writes_held under @held_lock releases
 * them, outside it; @writes_releasing counts releases under way, so that
 * svcrdma_sends_release_lost() can wait for a late completion's release
 * before the QP the Writes were built on goes.
 * Return: true if this call released them.
 */
static bool svcrdma_writes_drop(struct svcrdma_xprt *xp,
				struct svcrdma_send_ctxt *sc)
{
	bool mine;

	spin_lock(&xp->held_lock);
	mine = sc->writes_held;
	if (mine) {
		sc->writes_held = false;
		xp->held_bytes -= sc->held_bytes;
		atomic_inc(&xp->writes_releasing);
	}
	spin_unlock(&xp->held_lock);
	if (!mine)
		return false;
	svcrdma_rw_release(xp, &sc->writes);
	if (atomic_dec_and_test(&xp->writes_releasing))
		wake_up_var(&xp->writes_releasing);
	return true;
}

static void svcrdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svcrdma_send_ctxt *sc =
		container_of(wc->wr_cqe, struct svcrdma_send_ctxt, cqe);
	struct svcrdma_xprt *xp = sc->xp;

	sc->status = wc->status;
	WRITE_ONCE(sc->inflight, false);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_warn_ratelimited("svcrdma: send to %s failed: %s\n",
					    xp->xprt.xpt_remotebuf,
					    ib_wc_status_msg(wc->status));
			svcrdma_stat_inc(SVCRDMA_STAT_WC_ERRORS);
			/* Unsignaled RDMA Writes report through their Send. */
			trace_svcrdma_wc_error(xp, "send", wc);
		}
		svc_xprt_deferred_close(&xp->xprt);
	}
	if (sc->async) {
		svcrdma_sq_put(xp, sc->sq_slots);
		svcrdma_send_put(xp, sc);
		return;
	}
	complete(&sc->done);
}

/**
 * svcrdma_sends_create - allocate the send context pool
 * @xp: connection with a PD and a known @xp->inline_send
 *
 * Context: nfsd thread (xpo_accept); may sleep.
 *
 * Return: 0 or -ENOMEM; contexts allocated so far stay in @xp->sends for
 * svcrdma_sends_destroy().
 */
int svcrdma_sends_create(struct svcrdma_xprt *xp)
{
	unsigned int i, nr = xp->nr_sends;

	xp->nr_sends = 0;
	xp->sends = kcalloc(nr, sizeof(*xp->sends), GFP_KERNEL);
	if (!xp->sends)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct svcrdma_send_ctxt *sc;
		u64 addr;

		sc = kzalloc(sizeof(*sc), GFP_KERNEL);
		if (!sc)
			return -ENOMEM;
		sc->buf = kmalloc(xp->inline_send, GFP_KERNEL);
		if (!sc->buf) {
			kfree(sc);
			return -ENOMEM;
		}
		addr = ib_dma_map_single(xp->dev, sc->buf, xp->inline_send,
					 DMA_TO_DEVICE);
		if (ib_dma_mapping_error(xp->dev, addr)) {
			kfree(sc->buf);
			kfree(sc);
			return -ENOMEM;
		}
		sc->xp = xp;
		sc->cqe.done = svcrdma_send_done;
		sc->sge.addr = addr;
		sc->sge.lkey = xp->pd->local_dma_lkey;
		sc->wr.wr_cqe = &sc->cqe;
		sc->wr.sg_list = &sc->sge;
		sc->wr.num_sge = 1;
		sc->wr.opcode = IB_WR_SEND;
		sc->wr.send_flags = IB_SEND_SIGNALED;
		init_completion(&sc->done);
		svcrdma_mem_add(sizeof(*sc) + xp->inline_send);
		svcrdma_stat_inc(SVCRDMA_STAT_SEND_CTXTS);
		xp->sends[xp->nr_sends++] = sc;
		list_add_tail(&sc->node, &xp->send_free);
	}
	return 0;
}

/**
 * svcrdma_sends_release_lost - release the Writes of Sends never completed
 * @xp: connection whose QP has been drained but still exists
 *
 * An async reply whose Send never completed keeps its Writes: the
 * provider lost the completion, or the post failed part way and Writes
 * ahead of the failure may have run.  Their DMA mappings (and any MRs
 * rdma_rw took from the QP's pool) and page references go here, while
 * the QP they were built on is still there; the drained QP executes
 * nothing more.  A completion the provider delivers late may be
 * releasing its own at the same time: wait for that too.
 *
 * Context: process (xpo_free), after ib_drain_qp().
 */
void svcrdma_sends_release_lost(struct svcrdma_xprt *xp)
{
	unsigned int i, lost = 0;

	for (i = 0; xp->sends && i < xp->nr_sends; i++)
		if (svcrdma_writes_drop(xp, xp->sends[i]))
			lost++;
	wait_var_event(&xp->writes_releasing,
		       !atomic_read(&xp->writes_releasing));
	if (lost) {
		svcrdma_stat_add(SVCRDMA_STAT_LOST_COMPLETIONS, lost);
		pr_warn_ratelimited("svcrdma: %u replies to %s never completed; released their RDMA Writes at teardown\n",
				    lost, xp->xprt.xpt_remotebuf);
	}
	WARN_ON_ONCE(xp->held_bytes);
}

/**
 * svcrdma_sends_destroy - free the send context pool
 * @xp: connection whose QP and CQs are gone, so no handler can run
 *
 * Context: process (xpo_free).
 */
void svcrdma_sends_destroy(struct svcrdma_xprt *xp)
{
	unsigned int i;

	/* Setup may have failed before the pool was allocated. */
	if (!xp->sends)
		return;
	for (i = 0; i < xp->nr_sends; i++) {
		struct svcrdma_send_ctxt *sc = xp->sends[i];

		/* svcrdma_sends_release_lost() ran while the QP existed. */
		WARN_ON_ONCE(sc->writes_held);

		ib_dma_unmap_single(xp->dev, sc->sge.addr, xp->inline_send,
				    DMA_TO_DEVICE);
		kfree(sc->buf);
		kfree(sc);
		svcrdma_mem_sub(sizeof(*sc) + xp->inline_send);
		svcrdma_stat_dec(SVCRDMA_STAT_SEND_CTXTS);
	}
	kfree(xp->sends);
	xp->sends = NULL;
	xp->nr_sends = 0;
	INIT_LIST_HEAD(&xp->send_free);
}

static struct svcrdma_send_ctxt *svcrdma_send_try(struct svcrdma_xprt *xp)
{
	struct svcrdma_send_ctxt *sc;

	spin_lock(&xp->send_lock);
	sc = list_first_entry_or_null(&xp->send_free, struct svcrdma_send_ctxt,
				      node);
	if (sc)
		list_del_init(&sc->node);
	spin_unlock(&xp->send_lock);
	return sc;
}

/*
 * There are as many contexts as credits, so waiting here is rare: only
 * when the peer has not acknowledged our last replies.  A send queue
 * that stalls while we wait gets the connection stopped, which ends the
 * wait.
 */
static struct svcrdma_send_ctxt *svcrdma_send_get(struct svcrdma_xprt *xp)
{
	struct svcrdma_send_ctxt *sc = NULL;

	while (!wait_event_timeout(xp->send_wait,
				   (sc = svcrdma_send_try(xp)) ||
				   svc_xprt_is_dead(&xp->xprt),
				   SVCRDMA_WAIT_TICK))
		svcrdma_stall_check(xp);
	return sc;
}

static void svcrdma_send_put(struct svcrdma_xprt *xp,
			     struct svcrdma_send_ctxt *sc)
{
	/* A lost context's Writes wait for svcrdma_sends_release_lost(). */
	if (sc->lost)
		return;
	svcrdma_writes_drop(xp, sc);
	spin_lock(&xp->send_lock);
	list_add(&sc->node, &xp->send_free);
	spin_unlock(&xp->send_lock);
	wake_up(&xp->send_wait);
}

/*
 * Post @set's Writes (if any) followed by a Send of the first @len bytes
 * of @sc->buf.  With @async the call returns once the Send is posted and
 * @sc belongs to the completion handler from then on (also on failure);
 * otherwise it waits for the Send to complete, which the Writes need
 * because they read nfsd's pages, and the caller keeps @sc.
 */
static int svcrdma_post_send(struct svcrdma_xprt *xp,
			     struct svcrdma_send_ctxt *sc, u32 len,
			     struct svcrdma_rw_set *set, u32 inv_rkey,
			     bool async)
{
	unsigned int nr = 1 + (set ? set->nr_wrs : 0);
	const struct ib_send_wr *bad;
	struct ib_send_wr *first;
	int ret;

	ret = svcrdma_sq_get(xp, nr);
	if (ret)
		goto out_put;
	sc->async = async;
	sc->sq_slots = nr;
	sc->sge.length = len;
	sc->wr.next = NULL;
	if (inv_rkey) {
		sc->wr.opcode = IB_WR_SEND_WITH_INV;
		sc->wr.ex.invalidate_rkey = inv_rkey;
	} else {
		sc->wr.opcode = IB_WR_SEND;
	}
	ib_dma_sync_single_for_device(xp->dev, sc->sge.addr, len,
				      DMA_TO_DEVICE);
	reinit_completion(&sc->done);
	first = &sc->wr;
	if (set && set->nr_wrs)
		first = svcrdma_rw_chain(xp, set, &sc->wr);
	WRITE_ONCE(sc->posted, jiffies);
	/* Pairs with the smp_rmb() in svcrdma_sq_stalled(). */
	smp_wmb();
	WRITE_ONCE(sc->inflight, true);
	ret = svcrdma_post(xp, first, &bad);
	if (ret) {
		WRITE_ONCE(sc->inflight, false);
		svcrdma_post_failed(xp, first, bad);
		svcrdma_sq_put(xp, nr);
		ret = -ENOTCONN;
		/*
		 * Writes ahead of @bad went out unsignaled: nothing says when
		 * they stop reading the pinned pages but the drain.
		 */
		if (async && bad != first && sc->writes_held) {
			sc->lost = true;
			return ret;
		}
		goto out_put;
	}
	if (async)
		return 0;
	if (!svcrdma_wait_wr(xp, &sc->done, sc->posted, "a Send")) {
		/* Its handler may yet run: leave @sc's fields to it. */
		sc->lost = true;
		svcrdma_sq_put(xp, nr);
		return -ENOTCONN;
	}
	svcrdma_sq_put(xp, nr);
	return sc->status == IB_WC_SUCCESS ? 0 : -ENOTCONN;

out_put:
	if (async)
		svcrdma_send_put(xp, sc);
	return ret;
}

/*
 * Encode and post an RDMA_ERROR in @sc, which the post consumes.  Only
 * errors actually handed to the device are counted and traced.
 * Return: 0 if posted, else a negative errno.
 */
static int svcrdma_post_error(struct svcrdma_xprt *xp,
			      struct svcrdma_send_ctxt *sc, __be32 xid,
			      int err, const char *where)
{
	bool vers = err == -EPROTONOSUPPORT;
	int len, ret;

	if (vers)
		len = nfsrdma_wire_encode_err_vers(sc->buf, xp->inline_send, xid,
						   xp->credits,
						   NFSRDMA_WIRE_VERSION,
						   NFSRDMA_WIRE_VERSION);
	else
		len = nfsrdma_wire_encode_err_chunk(sc->buf, xp->inline_send,
						    xid, xp->credits);
	if (len <= 0) {
		svcrdma_send_put(xp, sc);
		return len ? len : -EINVAL;
	}
	ret = svcrdma_post_send(xp, sc, len, NULL, 0, true);
	if (ret)
		return ret;
	svcrdma_stat_inc(vers ? SVCRDMA_STAT_ERR_VERS_SENT :
			 SVCRDMA_STAT_ERR_CHUNK_SENT);
	trace_svcrdma_err_sent(xp, xid, vers, err, where);
	return 0;
}

/**
 * svcrdma_send_error - answer a call with RDMA_ERROR
 * @xp: connection the call came on
 * @xid: the call's XID, as received
 * @err: decoder error; -EPROTONOSUPPORT sends ERR_VERS, anything else
 *	ERR_CHUNK
 * @where: what part of the call was refused, for the trace
 *
 * Context: nfsd thread; may sleep.
 */
void svcrdma_send_error(struct svcrdma_xprt *xp, __be32 xid, int err,
			const char *where)
{
	struct svcrdma_send_ctxt *sc;

	sc = svcrdma_send_get(xp);
	if (!sc)
		return;
	svcrdma_post_error(xp, sc, xid, err, where);
}

/**
 * svcrdma_send_bc_call - send a backchannel (server-to-client) Call
 * @xp: connection to the client
 * @xid: the Call's XID
 * @xdr: the encoded RPC Call
 *
 * RFC 8167 backward Calls go inline only; a Call that does not fit the
 * client's receive buffers is refused rather than sent in chunks.
 *
 * Context: RPC task (rpciod or the caller's thread); may sleep.
 *
 * Return: 0, -EMSGSIZE if the Call is too large, -ENOTCONN if the
 * connection is gone.
 */
int svcrdma_send_bc_call(struct svcrdma_xprt *xp, __be32 xid,
			 const struct xdr_buf *xdr)
{
	struct svcrdma_send_ctxt *sc;
	int hlen;

	sc = svcrdma_send_get(xp);
	if (!sc)
		return -ENOTCONN;
	hlen = nfsrdma_wire_encode_plain(sc->buf, xp->inline_send, xid,
					 xp->credits);
	if (hlen < 0 || xdr->len > xp->inline_send - hlen ||
	    read_bytes_from_xdr_buf(xdr, 0, (u8 *)sc->buf + hlen, xdr->len)) {
		svcrdma_send_put(xp, sc);
		return -EMSGSIZE;
	}
	return svcrdma_post_send(xp, sc, hlen + xdr->len, NULL, 0, true);
}

/**
 * svcrdma_result_payload - xpo_result_payload: note a DDP-eligible result
 * @rqstp: request being answered
 * @offset: payload's byte offset in rqstp->rq_res
 * @length: payload length in bytes
 *
 * The n-th payload nfsd reports goes to the call's n-th Write chunk;
 * payloads without a chunk stay in the inline stream.
 *
 * Context: nfsd thread, while encoding the reply.
 *
 * Return: 0.
 */
int svcrdma_result_payload(struct svc_rqst *rqstp, unsigned int offset,
			   unsigned int length)
{
	struct svcrdma_recv_ctxt *rc = rqstp->rq_xprt_ctxt;

	if (!rc || rc->nr_payloads >= rc->hdr->nr_write ||
	    rc->nr_payloads >= ARRAY_SIZE(rc->payloads))
		return 0;
	rc->payloads[rc->nr_payloads].offset = offset;
	rc->payloads[rc->nr_payloads].length = length;
	rc->nr_payloads++;
	return 0;
}

/*
 * A cursor over the segments of one chunk.  The reply header is built in
 * the call's decoded header, in place: a reply names the same chunks and
 * segments as the call, with each length cut to the bytes written.  So
 * the cursor reads a segment's offered length before it overwrites it,
 * and svcrdma_cursor_finish() reports the rest.
 */
struct svcrdma_chunk_cursor {
	struct nfsrdma_wire_seg *segs;
	u32 nr;
	u32 idx;
	u32 cap;			/* offered length of segs[idx] */
	u32 used;			/* bytes written into segs[idx] */
};

static void svcrdma_cursor_init(struct svcrdma_chunk_cursor *cur,
				struct nfsrdma_wire_seg *segs, u32 nr)
{
	cur->segs = segs;
	cur->nr = nr;
	cur->idx = 0;
	cur->used = 0;
	cur->cap = nr ? segs[0].length : 0;
}

/* RDMA Write bytes [off, off + len) of @xdr through the chunk cursor. */
static int svcrdma_cursor_write(struct svcrdma_xprt *xp,
				struct svcrdma_rw_set *set,
				struct svcrdma_chunk_cursor *cur,
				const struct xdr_buf *xdr, u32 off, u32 len)
{
	int ret;

	while (len) {
		const struct nfsrdma_wire_seg *seg;
		u32 n;

		if (cur->idx >= cur->nr)
			return -E2BIG;	/* the client offered too little */
		if (cur->used == cur->cap) {
			/* Full: its length already says so. */
			cur->idx++;
			cur->used = 0;
			cur->cap = cur->idx < cur->nr ?
				   cur->segs[cur->idx].length : 0;
			continue;
		}
		seg = &cur->segs[cur->idx];
		n = min(len, cur->cap - cur->used);
		ret = svcrdma_rw_add(xp, set, xdr, off, n, seg->handle,
				     seg->offset + cur->used);
		if (ret)
			return ret;
		cur->used += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* Every segment from the cursor on carries what was written into it. */
static void svcrdma_cursor_finish(struct svcrdma_chunk_cursor *cur)
{
	u32 i;

	if (cur->idx >= cur->nr)
		return;
	cur->segs[cur->idx].length = cur->used;
	for (i = cur->idx + 1; i < cur->nr; i++)
		cur->segs[i].length = 0;
}

/* Byte ranges of rq_res that the reply keeps after Write chunk removal. */
struct svcrdma_pieces {
	unsigned int nr;
	struct {
		u32 off;
		u32 len;
	} p[NFSRDMA_WIRE_MAX_WRITE_CHUNKS + 1];
	u32 total;
};

static int svcrdma_pieces_build(struct svcrdma_pieces *pc,
				const struct svcrdma_recv_ctxt *rc,
				u32 xdr_len)
{
	u32 cur = 0;
	unsigned int i;

	pc->nr = 0;
	pc->total = 0;
	for (i = 0; i < rc->nr_payloads; i++) {
		u32 off = rc->payloads[i].offset;
		u32 end;

		/* nfsd's own numbers, but check them: they index memory. */
		if (off < cur || off > xdr_len ||
		    rc->payloads[i].length > xdr_len - off)
			return -EINVAL;
		/* The XDR roundup goes with the payload (RFC 8166 3.4.5). */
		end = min_t(u32, xdr_len, off + xdr_align_size(rc->payloads[i].length));
		pc->p[pc->nr].off = cur;
		pc->p[pc->nr].len = off - cur;
		pc->total += off - cur;
		pc->nr++;
		cur = end;
	}
	pc->p[pc->nr].off = cur;
	pc->p[pc->nr].len = xdr_len - cur;
	pc->total += xdr_len - cur;
	pc->nr++;
	return 0;
}

/*
 * How a reply was carried, taken before the post: an async Send's
 * context may be reused by another thread as soon as it completes.
 */
struct svcrdma_reply_info {
	u32 inline_bytes;	/* RPC bytes in the Send, header excluded */
	u32 write_chunks;	/* Write chunks that carried a payload */
	u32 write_bytes;
	u32 reply_bytes;	/* RPC bytes written to the Reply chunk */
};

/*
 * Turn the call's header into the reply's and queue the Writes for every
 * Write chunk, then decide inline versus Reply chunk.  The call's chunk
 * lists are consumed: callers take what they need from them first.
 * Returns the Send length, or -E2BIG/-EINVAL when the client's chunks
 * cannot carry this reply.
 */
static int svcrdma_build_reply(struct svcrdma_xprt *xp,
			       struct svcrdma_send_ctxt *sc,
			       struct svcrdma_rw_set *set,
			       struct svcrdma_recv_ctxt *rc,
			       const struct xdr_buf *xdr,
			       struct svcrdma_reply_info *ri)
{
	struct nfsrdma_wire_hdr *rep = rc->hdr;
	bool reply_offered = rep->has_reply;
	struct svcrdma_chunk_cursor cur;
	struct svcrdma_pieces pc;
	unsigned int i;
	int hlen, ret;

	memset(ri, 0, sizeof(*ri));
	ret = svcrdma_pieces_build(&pc, rc, xdr->len);
	if (ret)
		return ret;

	rep->vers = NFSRDMA_WIRE_VERSION;
	rep->credits = xp->credits;
	rep->proc = NFSRDMA_WIRE_PROC_MSG;
	rep->nr_read = 0;
	rep->has_reply = false;
	for (i = 0; i < rep->nr_write; i++) {
		struct nfsrdma_wire_chunk *wc = &rep->write[i];

		svcrdma_cursor_init(&cur, &rep->segs[wc->first], wc->nr_segs);
		if (i < rc->nr_payloads) {
			ret = svcrdma_cursor_write(xp, set, &cur, xdr,
						   rc->payloads[i].offset,
						   rc->payloads[i].length);
			if (ret)
				return ret;
			if (rc->payloads[i].length) {
				ri->write_chunks++;
				ri->write_bytes += rc->payloads[i].length;
			}
		}
		svcrdma_cursor_finish(&cur);
	}

	hlen = nfsrdma_wire_hdr_size(rep);
	if (hlen < 0)
		return hlen;
	if (hlen <= xp->inline_send && pc.total <= xp->inline_send - hlen) {
		u8 *p = (u8 *)sc->buf + hlen;

		for (i = 0; i < pc.nr; i++) {
			ret = read_bytes_from_xdr_buf(xdr, pc.p[i].off, p,
						      pc.p[i].len);
			if (ret)
				return -EINVAL;
			p += pc.p[i].len;
		}
		ret = nfsrdma_wire_encode(sc->buf, xp->inline_send, rep);
		if (ret < 0)
			return ret;
		if (set->nr_wrs >= xp->sq_depth)
			return -E2BIG;
		ri->inline_bytes = pc.total;
		return hlen + pc.total;
	}

	if (!reply_offered)
		return -E2BIG;
	rep->proc = NFSRDMA_WIRE_PROC_NOMSG;
	rep->has_reply = true;
	svcrdma_cursor_init(&cur, &rep->segs[rep->reply.first],
			    rep->reply.nr_segs);
	for (i = 0; i < pc.nr; i++) {
		if (!pc.p[i].len)
			continue;
		ret = svcrdma_cursor_write(xp, set, &cur, xdr, pc.p[i].off,
					   pc.p[i].len);
		if (ret)
			return ret;
	}
	svcrdma_cursor_finish(&cur);
	if (set->nr_wrs >= xp->sq_depth)
		return -E2BIG;
	ri->reply_bytes = pc.total;
	ret = nfsrdma_wire_encode(sc->buf, xp->inline_send, rep);
	/*
	 * The header alone (the Write chunks it returns, the Reply chunk)
	 * is longer than the client can receive: its chunks cannot carry
	 * this reply, which ERR_CHUNK says without closing the connection.
	 */
	return ret == -EMSGSIZE ? -E2BIG : ret;
}

/* Fold @handle into the one key every segment so far shares; false if not. */
static bool svcrdma_same_key(u32 *key, bool *seen, u32 handle)
{
	if (*seen && *key != handle)
		return false;
	*key = handle;
	*seen = true;
	return true;
}

/*
 * RFC 8797 lets us invalidate one of the client's registrations for this
 * call with the reply's Send, saving the client a Local Invalidate.  Only
 * when every segment of every chunk of the call carries the same handle:
 * then the one invalidation fences all the memory the call exposed, and
 * no registration the client still counts on is torn down behind its
 * back.  Otherwise (or for a call with no chunks, or a key of 0, which
 * we use to mean a plain Send) the client invalidates for itself.
 */
static u32 svcrdma_inv_rkey(const struct svcrdma_xprt *xp,
			    const struct svcrdma_recv_ctxt *rc)
{
	const struct nfsrdma_wire_hdr *call = rc->hdr;
	const struct nfsrdma_wire_seg *seg;
	bool seen = false;
	u32 key = 0, i, j;

	if (!xp->snd_w_inv)
		return 0;
	for (i = 0; i < call->nr_read; i++)
		if (!svcrdma_same_key(&key, &seen, call->read[i].seg.handle))
			return 0;
	for (i = 0; i < call->nr_write; i++) {
		seg = nfsrdma_wire_chunk_segs(call, &call->write[i]);
		for (j = 0; j < call->write[i].nr_segs; j++)
			if (!svcrdma_same_key(&key, &seen, seg[j].handle))
				return 0;
	}
	if (call->has_reply) {
		seg = nfsrdma_wire_chunk_segs(call, &call->reply);
		for (j = 0; j < call->reply.nr_segs; j++)
			if (!svcrdma_same_key(&key, &seen, seg[j].handle))
				return 0;
	}
	return key;
}

static void svcrdma_reply_account(struct svcrdma_xprt *xp, __be32 xid,
				  const struct svcrdma_reply_info *ri,
				  u32 inv_rkey)
{
	if (ri->write_chunks) {
		svcrdma_stat_add(SVCRDMA_STAT_WRITE_CHUNKS, ri->write_chunks);
		svcrdma_stat_add(SVCRDMA_STAT_WRITE_BYTES, ri->write_bytes);
	}
	if (ri->reply_bytes) {
		svcrdma_stat_inc(SVCRDMA_STAT_REPLY_CHUNKS);
		svcrdma_stat_add(SVCRDMA_STAT_REPLY_BYTES, ri->reply_bytes);
	} else {
		svcrdma_stat_inc(SVCRDMA_STAT_INLINE_REPLIES);
	}
	trace_svcrdma_reply(xp, xid, ri->inline_bytes, ri->write_chunks,
			    ri->write_bytes, ri->reply_bytes, inv_rkey != 0);
}

/* Is @page one nfsd drops after this reply (rq_respages to rq_next_page)? */
static bool svcrdma_page_dropped(const struct svc_rqst *rqstp,
				 const struct page *page)
{
	struct page **pp;

	for (pp = rqstp->rq_respages; pp < rqstp->rq_next_page; pp++)
		if (*pp == page)
			return true;
	return false;
}

static bool svcrdma_kvec_dropped(const struct svc_rqst *rqstp,
				 const struct kvec *kv)
{
	const u8 *p = kv->iov_base;
	const u8 *end = p + kv->iov_len;

	for (; p < end; p = (const u8 *)PAGE_ALIGN((unsigned long)p + 1))
		if (!svcrdma_page_dropped(rqstp, virt_to_page(p)))
			return false;
	return true;
}

/*
 * May the reply's Writes outlive sendto?  Only if nfsd will not write
 * into any page of rq_res again: svc_free_res_pages() drops rq_respages
 * up to rq_next_page after every reply and svc_alloc_arg() refills those
 * slots with fresh pages, while the pages before rq_respages (the call's)
 * and past rq_next_page are reused in place.  nfsd builds every reply in
 * the first kind; anything else waits.
 */
static bool svcrdma_reply_pages_dropped(const struct svc_rqst *rqstp)
{
	const struct xdr_buf *xdr = &rqstp->rq_res;

	if (xdr->head[0].iov_len &&
	    !svcrdma_kvec_dropped(rqstp, &xdr->head[0]))
		return false;
	if (xdr->page_len) {
		struct page **first = xdr->pages + (xdr->page_base >> PAGE_SHIFT);
		struct page **last = xdr->pages +
			((xdr->page_base + xdr->page_len - 1) >> PAGE_SHIFT);

		if (first < rqstp->rq_respages || last >= rqstp->rq_next_page)
			return false;
	}
	if (xdr->tail[0].iov_len &&
	    !svcrdma_kvec_dropped(rqstp, &xdr->tail[0]))
		return false;
	return true;
}

/*
 * Hand @sc's Writes to the completion handler, with a reference on every
 * page they read, unless the reply's pages are not nfsd's to drop or the
 * connection already pins SVCRDMA_HELD_MAX bytes of pages.  The charge is
 * a page per reference, whatever part of it the Writes read; one reply
 * may take the connection past the bound, the next one then waits.
 */
static bool svcrdma_writes_hold(struct svcrdma_xprt *xp,
				struct svcrdma_send_ctxt *sc,
				const struct svc_rqst *rqstp)
{
	unsigned int pages;
	bool held = false;

	if (!svcrdma_reply_pages_dropped(rqstp))
		return false;
	spin_lock(&xp->held_lock);
	if (xp->held_bytes < SVCRDMA_HELD_MAX) {
		sc->held_bytes = 0;
		sc->writes_held = true;
		held = true;
	}
	spin_unlock(&xp->held_lock);
	if (!held)
		return false;
	/* Not posted yet: no handler can drop them meanwhile. */
	pages = svcrdma_rw_pin(&sc->writes);
	spin_lock(&xp->held_lock);
	sc->held_bytes = pages * PAGE_SIZE;
	xp->held_bytes += sc->held_bytes;
	spin_unlock(&xp->held_lock);
	return true;
}

/**
 * svcrdma_sendto - xpo_sendto: transmit the reply in rqstp->rq_res
 * @rqstp: request being answered; rq_xprt_ctxt holds its call
 *
 * Context: nfsd thread; may sleep for a send context and send queue
 * slots.  Sleeps until the reply's Send completes only when its RDMA
 * Writes cannot be left to the completion handler (svcrdma_writes_hold()),
 * at most until the send queue is found stalled.
 *
 * Return: bytes of RPC reply sent, or a negative errno; -ENOTCONN when
 * the connection is gone (svc_send() treats that as a drop).
 */
int svcrdma_sendto(struct svc_rqst *rqstp)
{
	struct svc_xprt *xprt = rqstp->rq_xprt;
	struct svcrdma_xprt *xp = svcrdma_of(xprt);
	struct svcrdma_recv_ctxt *rc = rqstp->rq_xprt_ctxt;
	struct xdr_buf *xdr = &rqstp->rq_res;
	struct svcrdma_send_ctxt *sc;
	struct svcrdma_reply_info ri;
	u32 inv_rkey;
	int len, ret;

	if (svc_xprt_is_dead(xprt) || !rc)
		return -ENOTCONN;
	sc = svcrdma_send_get(xp);
	if (!sc)
		return -ENOTCONN;

	/* Before the call's chunk lists become the reply's. */
	inv_rkey = svcrdma_inv_rkey(xp, rc);
	svcrdma_rw_init(&sc->writes, DMA_TO_DEVICE);
	len = svcrdma_build_reply(xp, sc, &sc->writes, rc, xdr, &ri);
	if (len < 0) {
		svcrdma_rw_release(xp, &sc->writes);
		if (len == -E2BIG || len == -EINVAL) {
			pr_warn_ratelimited("svcrdma: reply to %s (xid 0x%08x) does not fit its chunks\n",
					    xprt->xpt_remotebuf,
					    be32_to_cpu(rc->hdr->xid));
			/* The post consumes @sc whatever it returns. */
			if (!svcrdma_post_error(xp, sc, rc->hdr->xid, len,
						"reply"))
				return -ENOTCONN;
		} else {
			svcrdma_send_put(xp, sc);
		}
		/*
		 * The client waits for this reply, and NFSv4 does not
		 * retransmit on a live connection: dropping it silently
		 * would hang the mount.  A new connection makes the client
		 * retransmit.
		 */
		pr_warn_ratelimited("svcrdma: cannot build the reply to %s (xid 0x%08x, %d); closing the connection\n",
				    xprt->xpt_remotebuf, be32_to_cpu(rc->hdr->xid),
				    len);
		svc_xprt_deferred_close(xprt);
		return -ENOTCONN;
	}

	/* An inline reply was copied out of nfsd's pages: no need to wait. */
	if (!sc->writes.nr_wrs) {
		ret = svcrdma_post_send(xp, sc, len, NULL, inv_rkey, true);
	} else if (svcrdma_writes_hold(xp, sc, rqstp)) {
		/* From here @sc and its Writes belong to the handler. */
		ret = svcrdma_post_send(xp, sc, len, &sc->writes, inv_rkey,
					true);
	} else {
		svcrdma_stat_inc(SVCRDMA_STAT_WRITE_WAITS);
		ret = svcrdma_post_send(xp, sc, len, &sc->writes, inv_rkey,
					false);
		svcrdma_rw_release(xp, &sc->writes);
		svcrdma_send_put(xp, sc);
	}
	if (ret)
		return ret;
	svcrdma_reply_account(xp, rc->hdr->xid, &ri, inv_rkey);
	return xdr->len;
}
