// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: receiving replies (RFC 8166 sections 3.5 and 4).
 *
 * A receive completion carries one transport header and, for RDMA_MSG,
 * the inline part of the reply.  The handler decodes and validates the
 * header with the shared codec, follows the credit grant, matches the
 * XID, fences the call's chunks, places the reply into the request's
 * receive xdr_buf exactly as a byte-stream transport would have, and
 * completes the RPC.  Anything it cannot trust is dropped (no XID to
 * blame) or turned into an unparsable reply for that one RPC, which the
 * RPC client retries a few times and then fails with -EIO.  An RDMA_ERROR
 * fails its RPC at once.
 */

#include <linux/slab.h>
#include <linux/sunrpc/msg_prot.h>
#include <linux/sunrpc/xdr.h>
#include <linux/sunrpc/xprt.h>
#include <nfsrdma/rc.h>

#include "xprtrdma.h"
#include "trace.h"

static const char *xprtrdma_rep_peer(struct xprtrdma_xprt *xp)
{
	return xp->xprt.address_strings[RPC_DISPLAY_ADDR];
}

/*
 * The bytes the server says it wrote into a Write or Reply chunk, checked
 * against what the call offered: the same segments (handle and address),
 * in order, none longer than offered, filled front to back (a short
 * segment may be followed only by empty ones).  Anything else is a server
 * that did not write where it says, and the bytes in our buffer would be
 * stale, so the reply is refused.  Returns the total, or -EMSGSIZE.
 */
static int xprtrdma_rep_chunk_len(const struct xprtrdma_req *req,
				  const struct nfsrdma_wire_hdr *hdr,
				  const struct nfsrdma_wire_chunk *chunk)
{
	const struct nfsrdma_wire_seg *seg = nfsrdma_wire_chunk_segs(hdr, chunk);
	bool short_seen = false;
	u32 i, sum = 0;

	if (chunk->nr_segs > req->nr_offered)
		return -EMSGSIZE;
	for (i = 0; i < chunk->nr_segs; i++) {
		const struct nfsrdma_wire_seg *ours = &req->offered[i];

		if (seg[i].handle != ours->handle ||
		    seg[i].offset != ours->offset ||
		    seg[i].length > ours->length ||
		    (short_seen && seg[i].length))
			return -EMSGSIZE;
		short_seen = seg[i].length < ours->length;
		/* Each is at most what we offered, and that fits a u32. */
		sum += seg[i].length;
	}
	return sum;
}

/* Keep the task's view of the buffer identical to the receive side's. */
static void xprtrdma_shrink_head(struct rpc_rqst *rqst, u32 head_len)
{
	u32 delta = rqst->rq_private_buf.head[0].iov_len - head_len;

	rqst->rq_private_buf.head[0].iov_len = head_len;
	rqst->rq_private_buf.buflen -= delta;
	rqst->rq_rcv_buf.head[0].iov_len = head_len;
	rqst->rq_rcv_buf.buflen -= delta;
}

/*
 * What the server says it wrote through this transmission's chunks:
 * the Reply chunk of an RDMA_NOMSG, or the one Write chunk of an
 * RDMA_MSG.  Checked under the request's mr_mutex before the MRs are
 * fenced, because the offers retire with them: a reply for this XID
 * that arrives while no MR is registered for it (before a
 * retransmission is marshalled, say) finds no offer and no claim is
 * believed.  Returns the bytes written, 0 if none, or a negative errno.
 */
static int xprtrdma_rep_chunks(const struct xprtrdma_req *req,
			       const struct nfsrdma_wire_hdr *hdr)
{
	int r;

	if (hdr->proc == NFSRDMA_WIRE_PROC_NOMSG) {
		if (!req->reply_offered)
			return -EMSGSIZE;
		r = xprtrdma_rep_chunk_len(req, hdr, &hdr->reply);
		if (r <= 0 || r > req->reply_offered)
			return -EMSGSIZE;
		return r;
	}
	if (hdr->nr_write > 1)
		return -EINVAL;
	if (!hdr->nr_write)
		return 0;
	if (!req->write_offered)
		return -EMSGSIZE;
	r = xprtrdma_rep_chunk_len(req, hdr, &hdr->write[0]);
	if (r < 0 || r > req->write_offered)
		return -EMSGSIZE;
	return r;
}

/*
 * Put the reply where the XDR decoder expects it.  @w is what
 * xprtrdma_rep_chunks() accepted.  Returns the reply's length in the
 * xdr_buf, never more than the buffer holds, or a negative errno.
 */
static int xprtrdma_place_reply(struct xprtrdma_req *req,
				const struct nfsrdma_wire_hdr *hdr,
				void *inl, u32 ilen, u32 w)
{
	struct rpc_rqst *rqst = &req->rqst;
	struct xdr_buf *buf = &rqst->rq_private_buf;
	struct xprtrdma_stats *st = &req->xp->stats;
	u32 cap = buf->head[0].iov_len + buf->page_len + buf->tail[0].iov_len;
	u32 pos, rem, off;

	if (hdr->proc == NFSRDMA_WIRE_PROC_NOMSG) {
		/* The whole reply came through the Reply chunk, in place. */
		if (w > cap)
			return -EMSGSIZE;
		atomic_long_add(w, &st->rdma_bytes_in);
		return w;
	}

	if (!w) {
		/*
		 * An inline reply longer than the buffer the call set up
		 * (an NFSv4.2 LISTXATTRS reply to a small buffer was seen
		 * so) is cut to fit, as the TCP
		 * transport cuts it: the bytes are the server's own, and the
		 * XDR decoder judges the rest (for LISTXATTRS, -ERANGE, so
		 * the caller retries with a bigger buffer, not -EIO).
		 */
		ilen = min(ilen, cap);
		write_bytes_to_xdr_buf(buf, 0, inl, ilen);
		if (ilen > buf->head[0].iov_len)
			atomic_long_add(ilen - buf->head[0].iov_len,
					&st->fixup_bytes);
		return ilen;
	}

	/*
	 * The server moved the data item into the Write chunk; it landed in
	 * the page list.  For the NFS procedures that use one (READ,
	 * READLINK) the item ends the reply, so the inline part is all
	 * header: the head must end exactly where the data begins, or the
	 * decoder would shift page data around.  Any inline bytes beyond
	 * the head follow the data, XDR-aligned as the stream would have
	 * them.
	 */
	atomic_long_add(w, &st->rdma_bytes_in);
	pos = min_t(u32, ilen, buf->head[0].iov_len);
	memcpy(buf->head[0].iov_base, inl, pos);
	if (pos < buf->head[0].iov_len)
		xprtrdma_shrink_head(rqst, pos);
	/*
	 * The chunk carries no XDR pad, but the RPC client insists on a
	 * whole number of XDR words, so the pad is counted (its bytes are
	 * never read).
	 */
	rem = ilen - pos;
	off = pos + xdr_align_size(w);
	if (off > cap)
		return -EMSGSIZE;
	/* Inline bytes after the data: cut to fit, as above. */
	rem = min(rem, cap - off);
	if (!rem)
		return off;
	write_bytes_to_xdr_buf(buf, off, inl + pos, rem);
	atomic_long_add(rem, &st->fixup_bytes);
	return off + rem;
}

/*
 * Complete the RPC with a reply that holds only its XID: the RPC client
 * finds it unparsable, retries a couple of times, then fails with -EIO.
 */
static int xprtrdma_garbage_reply(struct rpc_rqst *rqst)
{
	memcpy(rqst->rq_private_buf.head[0].iov_base, &rqst->rq_xid,
	       sizeof(rqst->rq_xid));
	return sizeof(rqst->rq_xid);
}

/*
 * The server sent a Send With Invalidate of an rkey the call it answers
 * did not offer.  The verbs let it invalidate any rkey of our PD that it
 * knows, so the key may be another call's chunk, still in flight: that
 * call would fail only once the server tried to move its data.  The
 * reply itself is kept (its bytes are the server's own, and whatever it
 * claimed to write went through this call's checked chunks); the
 * connection is dropped so that every call in flight is retransmitted
 * with fresh registrations.
 */
static void xprtrdma_foreign_invalidation(struct xprtrdma_xprt *xp,
					  u32 rkey, __be32 xid)
{
	pr_warn_ratelimited("xprtrdma: %s invalidated rkey 0x%08x with a message for XID 0x%08x, which did not offer it; reconnecting\n",
			    xprtrdma_rep_peer(xp), rkey, be32_to_cpu(xid));
	atomic_long_inc(&xp->stats.bad_replies);
	xprt_force_disconnect(&xp->xprt);
}

/*
 * A message no call owns (too short to name one, a backward call, a reply
 * to an unknown XID) offered nothing to invalidate, so any rkey it
 * invalidated was someone else's.  Every early return of
 * xprtrdma_handle_reply() goes through here, whatever else it rejects.
 */
static void xprtrdma_unowned_message(struct xprtrdma_xprt *xp,
				     const struct ib_wc *wc, __be32 xid)
{
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		xprtrdma_foreign_invalidation(xp, wc->ex.invalidate_rkey, xid);
}

/* Is this an RPC Call (a backchannel request) rather than a Reply? */
static bool xprtrdma_is_call(const struct nfsrdma_wire_hdr *hdr,
			     const void *inl, u32 ilen)
{
	const __be32 *p = inl;

	return hdr->proc == NFSRDMA_WIRE_PROC_MSG && ilen >= 8 &&
	       p[1] == cpu_to_be32(RPC_CALL);
}

/*
 * RDMA_ERROR (RFC 8166 section 4.2.2) is the server's final word on this
 * call: it did not run it.  A retransmission would get the same answer,
 * so the RPC fails now instead of after the RPC client's garbage-reply
 * retries.  ERR_VERS means the server speaks no version we do; ERR_CHUNK
 * that it could not use our chunks.  The task takes the error on its next
 * step (__rpc_execute checks tk_rpc_status first); the set is the same
 * cmpxchg as rpc_task_set_rpc_status(), which 6.1 does not export, so an
 * error set earlier (a signal, a timeout) is kept.
 */
static int xprtrdma_rdma_error(struct xprtrdma_xprt *xp, struct rpc_rqst *rqst,
			       const struct nfsrdma_wire_hdr *hdr)
{
	int err;

	if (hdr->err == NFSRDMA_WIRE_ERR_VERS) {
		pr_warn_ratelimited("xprtrdma: %s speaks RPC-over-RDMA versions %u to %u only, not 1 (ERR_VERS for XID 0x%08x)\n",
				    xprtrdma_rep_peer(xp), hdr->vers_low,
				    hdr->vers_high, be32_to_cpu(hdr->xid));
		err = -EPROTONOSUPPORT;
	} else {
		pr_warn_ratelimited("xprtrdma: %s could not use the chunks of XID 0x%08x (ERR_CHUNK)\n",
				    xprtrdma_rep_peer(xp),
				    be32_to_cpu(hdr->xid));
		err = -EIO;
	}
	cmpxchg(&rqst->rq_task->tk_rpc_status, 0, err);
	return err;
}

/*
 * Let a reply wait for its call's Send, which must be done before the RPC
 * completes (its buffer and MRs quiet).  The receive CQ's work waits here,
 * and every message behind this one waits with it, teardown's drain of
 * the receive queue included.  So the wait is bounded as a sender's is
 * (xprtrdma_sendctx_reuse(), which breaks the connection when it runs
 * out), and a Send still outstanding once a wait has run out on this
 * connection, or once teardown has drained the send queue, is lost: the
 * reply is dropped at once rather than after another full wait.
 * Returns 0, or -ENOTCONN to drop the reply (the call is sent again after
 * the reconnect).
 */
static int xprtrdma_reply_wait_send(struct xprtrdma_ep *ep,
				    struct xprtrdma_sendctx *sc)
{
	if (!test_bit(XPRTRDMA_SEND_BUSY, &sc->flags))
		return 0;
	if (test_bit(XPRTRDMA_EP_SEND_LOST, &ep->flags) ||
	    test_bit(XPRTRDMA_EP_SQ_DRAINED, &ep->flags))
		return -ENOTCONN;
	if (!xprtrdma_sendctx_reuse(sc, &ep->xp->xprt, ""))
		return 0;
	set_bit(XPRTRDMA_EP_SEND_LOST, &ep->flags);
	return -ENOTCONN;
}

static void xprtrdma_handle_reply(struct xprtrdma_ep *ep,
				  struct xprtrdma_rep *rep, struct ib_wc *wc)
{
	struct xprtrdma_xprt *xp = ep->xp;
	struct rpc_xprt *xprt = &xp->xprt;
	struct nfsrdma_wire_hdr *hdr = ep->scratch;
	struct xprtrdma_req *req;
	struct rpc_rqst *rqst;
	u32 len = wc->byte_len, ilen = 0;
	const char *reason;
	void *inl = NULL;
	bool waited = false, keep_stage, foreign;
	int ret, copied, chunk = 0;

	if (unlikely(!nfsrdma_recv_is_send(wc, xp->inline_recv))) {
		atomic_long_inc(&xp->stats.bad_replies);
		trace_xprtrdma_reply_rejected(xp, 0, -EBADMSG, "non-Send");
		pr_warn_ratelimited("xprtrdma: %s consumed a receive with a non-Send (completion opcode %d, %u bytes); reconnecting\n",
				    xprtrdma_rep_peer(xp), wc->opcode, len);
		xprtrdma_unowned_message(xp, wc, 0);
		xprt_force_disconnect(xprt);
		return;
	}

	ret = nfsrdma_wire_decode(hdr, rep->buf, len);
	/*
	 * A server that speaks only later versions may answer in its own:
	 * RFC 8166 fixes an ERR_VERS reply's layout across versions, and the
	 * codec has parsed it.  It is the server's answer to the call, not a
	 * malformed message; only its credit field is another version's.
	 */
	foreign = ret == -EPROTONOSUPPORT &&
		  hdr->proc == NFSRDMA_WIRE_PROC_ERROR &&
		  hdr->err == NFSRDMA_WIRE_ERR_VERS;
	if (foreign)
		ret = 0;
	if (len < NFSRDMA_WIRE_PREFIX_SIZE) {
		atomic_long_inc(&xp->stats.bad_replies);
		trace_xprtrdma_reply_rejected(xp, 0, -EBADMSG, "too short");
		pr_warn_ratelimited("xprtrdma: %u-byte message from %s dropped\n",
				    len, xprtrdma_rep_peer(xp));
		xprtrdma_unowned_message(xp, wc, 0);
		return;
	}
	if (!ret) {
		inl = rep->buf + hdr->hdr_len;
		ilen = len - hdr->hdr_len;
		if (xprtrdma_is_call(hdr, inl, ilen)) {
			/*
			 * RFC 8167: a backward-direction Call.  Its credit
			 * field asks for backchannel credits; it grants
			 * nothing for our forward calls.  Backward calls
			 * travel inline only, and the reply is matched by
			 * the RPC message's own XID, which must be the one
			 * the transport header carries.
			 */
			if (hdr->nr_read || hdr->nr_write || hdr->has_reply ||
			    *(__be32 *)inl != hdr->xid) {
				atomic_long_inc(&xp->stats.bad_replies);
				trace_xprtrdma_reply_rejected(xp, hdr->xid, -EPROTO,
							      "backward call with chunks or foreign XID");
				pr_warn_ratelimited("xprtrdma: backward call from %s with chunks or a mismatched XID dropped\n",
						    xprtrdma_rep_peer(xp));
				xprtrdma_unowned_message(xp, wc, hdr->xid);
				return;
			}
			xprtrdma_unowned_message(xp, wc, hdr->xid);
			xprtrdma_bc_receive(xp, hdr->xid, inl, ilen);
			return;
		}
		ret = nfsrdma_wire_check_inline(hdr, ilen,
						NFSRDMA_WIRE_DIR_REPLY);
		if (!ret && !foreign)
			xprtrdma_update_credits(xp, hdr->credits);
	}

	spin_lock(&xprt->queue_lock);
	rqst = xprt_lookup_rqst(xprt, hdr->xid);
	if (!rqst) {
		spin_unlock(&xprt->queue_lock);
		xprtrdma_unowned_message(xp, wc, hdr->xid);
		if (ret) {
			atomic_long_inc(&xp->stats.bad_replies);
			trace_xprtrdma_reply_rejected(xp, hdr->xid, ret,
						      "malformed, unknown XID");
			pr_warn_ratelimited("xprtrdma: malformed message (%d) with unknown XID from %s dropped\n",
					    ret, xprtrdma_rep_peer(xp));
		}
		return;
	}
	xprt_pin_rqst(rqst);
	spin_unlock(&xprt->queue_lock);
	req = xprtrdma_req(rqst);

	/*
	 * The Send's buffer and MRs must be quiet before the RPC moves on.
	 * A reply can also come before its call was sent at all: the core
	 * lists a call for replies when it is encoded, and a server may
	 * guess the XIDs ahead.  Its receive buffer is then not set up
	 * (sparse pages are allocated when we marshal) and it offered no
	 * chunks, so only a call whose latest transmission went out on
	 * this connection may take a reply, and only one reply: a slot
	 * reused for a new call must not look sent.  Under @mr_mutex the
	 * sender is not halfway through marshalling; a reply that came
	 * while it was is taken once the call has been posted.
	 */
	for (;;) {
		if (test_bit(XPRTRDMA_SEND_BUSY, &req->sc.flags)) {
			if (!waited)
				atomic_long_inc(&xp->stats.reply_waits_send);
			waited = true;
			/*
			 * Dropped if its Send is lost: the call is sent
			 * again after the reconnect.  An rkey the server
			 * invalidated with it is left to teardown, which
			 * drops every MR of the connection.
			 */
			if (xprtrdma_reply_wait_send(ep, &req->sc)) {
				atomic_long_inc(&xp->stats.bad_replies);
				trace_xprtrdma_reply_rejected(xp, hdr->xid,
							      -ENOTCONN,
							      "its call's Send never completed");
				pr_warn_ratelimited("xprtrdma: reply from %s to XID 0x%08x dropped: its call's Send never completed\n",
						    xprtrdma_rep_peer(xp),
						    be32_to_cpu(hdr->xid));
				spin_lock(&xprt->queue_lock);
				xprt_unpin_rqst(rqst);
				spin_unlock(&xprt->queue_lock);
				return;
			}
		}
		mutex_lock(&req->mr_mutex);
		if (READ_ONCE(req->sent_gen) != ep->gen ||
		    !test_bit(XPRTRDMA_SEND_BUSY, &req->sc.flags))
			break;
		/* Posted while we waited for the mutex. */
		mutex_unlock(&req->mr_mutex);
	}
	if (READ_ONCE(req->sent_gen) != ep->gen) {
		mutex_unlock(&req->mr_mutex);
		trace_xprtrdma_reply_rejected(xp, hdr->xid, -EALREADY,
					      "call not sent on this connection");
		pr_warn_ratelimited("xprtrdma: reply from %s to XID 0x%08x, a call not sent on this connection, dropped\n",
				    xprtrdma_rep_peer(xp), be32_to_cpu(hdr->xid));
		spin_lock(&xprt->queue_lock);
		xprt->stat.bad_xids++;
		xprt_unpin_rqst(rqst);
		spin_unlock(&xprt->queue_lock);
		xprtrdma_unowned_message(xp, wc, hdr->xid);
		return;
	}
	/* This transmission has its reply. */
	WRITE_ONCE(req->sent_gen, 0);
	if (!ret && hdr->proc != NFSRDMA_WIRE_PROC_ERROR) {
		chunk = xprtrdma_rep_chunks(req, hdr);
		/*
		 * A staged Write or Reply chunk goes where a registered one
		 * would have been written.  Before the fence is safe: every
		 * earlier transmission's key was retired before this one
		 * was posted, and this one's writes came before its reply.
		 */
		if (chunk >= 0 && (hdr->proc == NFSRDMA_WIRE_PROC_NOMSG ||
				   hdr->nr_write))
			xprtrdma_stage_unload(req);
	}
	/*
	 * A staged key outlives a clean exchange; after a call sent twice,
	 * or a reply whose header or chunk claims we refuse, it is retired.
	 * rq_ntrans is read unlocked: a retransmission racing this reply
	 * can only make it larger, which retires the key, the safe side.
	 */
	keep_stage = !ret && hdr->proc != NFSRDMA_WIRE_PROC_ERROR &&
		     chunk >= 0 && READ_ONCE(rqst->rq_ntrans) == 1;
	if (!xprtrdma_invalidate(req, wc->wc_flags & IB_WC_WITH_INVALIDATE,
				 wc->ex.invalidate_rkey, keep_stage))
		xprtrdma_foreign_invalidation(xp, wc->ex.invalidate_rkey,
					      hdr->xid);

	/*
	 * @mr_mutex stays held until the core has the reply: a
	 * retransmission zeroes the memory it registers (see
	 * xprtrdma_register_xdr()), and must neither wipe bytes we are
	 * placing nor go out for a call whose reply is already complete
	 * (xprtrdma_post_call() checks under the same mutex).
	 */
	if (ret) {
		reason = "malformed";
		pr_warn_ratelimited("xprtrdma: malformed reply (%d) from %s, XID 0x%08x\n",
				    ret, xprtrdma_rep_peer(xp),
				    be32_to_cpu(hdr->xid));
		copied = -EINVAL;
	} else if (hdr->proc == NFSRDMA_WIRE_PROC_ERROR) {
		copied = xprtrdma_rdma_error(xp, rqst, hdr);
		reason = hdr->err == NFSRDMA_WIRE_ERR_VERS ?
			 "RDMA_ERROR ERR_VERS" : "RDMA_ERROR ERR_CHUNK";
	} else {
		trace_xprtrdma_reply(xp, hdr,
				     !!(wc->wc_flags & IB_WC_WITH_INVALIDATE));
		copied = chunk < 0 ? chunk :
			 xprtrdma_place_reply(req, hdr, inl, ilen, chunk);
		reason = "does not match its call";
		if (copied < 0)
			pr_warn_ratelimited("xprtrdma: reply from %s does not match its call (%d), XID 0x%08x\n",
					    xprtrdma_rep_peer(xp), copied,
					    be32_to_cpu(hdr->xid));
	}
	if (copied < 0) {
		atomic_long_inc(&xp->stats.bad_replies);
		trace_xprtrdma_reply_rejected(xp, hdr->xid, copied, reason);
		copied = xprtrdma_garbage_reply(rqst);
	} else {
		xprtrdma_ep_progress(ep);
		/* A useful exchange: see xprtrdma_connect()'s backoff. */
		if (!READ_ONCE(xp->replied))
			WRITE_ONCE(xp->replied, true);
	}

	spin_lock(&xprt->queue_lock);
	xprt_complete_rqst(rqst->rq_task, copied);
	xprt_unpin_rqst(rqst);
	spin_unlock(&xprt->queue_lock);
	/* The task may run on; its buf_free waits for this unlock. */
	mutex_unlock(&req->mr_mutex);
}

/**
 * xprtrdma_recv_done - receive completion handler
 * @cq: receive CQ
 * @wc: work completion
 *
 * Handles one reply and reposts the buffer.  A failed receive (other than
 * a flush during teardown) breaks the connection.
 *
 * Context: the CQ's workqueue; one invocation at a time per CQ.  May
 * sleep while a reply waits for its call's Send or invalidation.
 */
void xprtrdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xprtrdma_rep *rep =
		container_of(wc->wr_cqe, struct xprtrdma_rep, cqe);
	struct xprtrdma_ep *ep = rep->ep;
	struct rpc_xprt *xprt = &ep->xp->xprt;
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		xprtrdma_wr_failed(ep, "Receive", wc);
		return;
	}

	ib_dma_sync_single_for_cpu(ep->device, rep->dma, ep->xp->inline_recv,
				   DMA_FROM_DEVICE);
	xprtrdma_handle_reply(ep, rep, wc);
	ib_dma_sync_single_for_device(ep->device, rep->dma,
				      ep->xp->inline_recv, DMA_FROM_DEVICE);

	ret = xprtrdma_post_recv(rep);
	if (ret && ret != -ESHUTDOWN) {
		/* One receive short of the credits we promised: start over. */
		pr_warn_ratelimited("xprtrdma: repost for %s failed: %d\n",
				    xprtrdma_rep_peer(ep->xp), ret);
		xprt_force_disconnect(xprt);
	}
}
