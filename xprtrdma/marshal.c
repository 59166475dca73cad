// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: building and sending calls (RFC 8166 section 3.5, RFC 8267).
 *
 * Per call the transport decides, reply side first:
 *
 *   - a Write chunk for the reply's page data when the upper layer marked
 *     it DDP-eligible (XDRBUF_READ: NFS READ payload) and the whole reply
 *     would not fit our inline receive buffer;
 *   - otherwise a Reply chunk covering the whole receive buffer when the
 *     largest possible reply would not fit our inline receive buffer;
 *
 * and then for the call itself:
 *
 *   - RDMA_MSG fully inline when header plus call fit the server's inline
 *     receive size;
 *   - RDMA_MSG with a Read chunk for the page data when the upper layer
 *     marked it DDP-eligible (XDRBUF_WRITE: NFS WRITE payload, SYMLINK
 *     target) and the rest then fits;
 *   - RDMA_NOMSG with a Position-zero Read chunk carrying the whole call
 *     otherwise.
 *
 * Under RPCSEC_GSS integrity or privacy the upper layer's page data is
 * part of what the GSS layer checksums or encrypts, so it is no longer a
 * data item of its own: neither a Write chunk nor a data Read chunk is
 * offered, and a call or reply too large to go inline travels whole in a
 * Position-zero Read chunk or a Reply chunk.
 *
 * A chunk of up to XPRTRDMA_STAGE_SIZE bytes goes through the slot's
 * staging buffer when the connection has one (stage.c); one per call.
 *
 * The REG_MR work requests for all chunks are chained in front of the
 * Send, so one ib_post_send() puts the whole call on the wire; on rxe,
 * when Sends are outstanding, they run on the connection's registration
 * QP first (frwr.c), and the Send goes alone.
 */

#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/sunrpc/auth.h>
#include <linux/sunrpc/xdr.h>
#include <linux/sunrpc/xprt.h>

#include "xprtrdma.h"
#include "trace.h"

/*
 * Some upper layers (e.g. GETACL) leave the receive page array sparse and
 * expect the transport to fill it; chunks and inline copies need real
 * pages.  The upper layer frees them.
 */
static int xprtrdma_fill_sparse_pages(struct xdr_buf *buf)
{
	unsigned int i, npages;

	if (!(buf->flags & XDRBUF_SPARSE_PAGES) || !buf->page_len)
		return 0;
	npages = (buf->page_base + buf->page_len + PAGE_SIZE - 1) >> PAGE_SHIFT;
	for (i = buf->page_base >> PAGE_SHIFT; i < npages; i++) {
		if (buf->pages[i])
			continue;
		buf->pages[i] = alloc_page(GFP_NOFS);
		if (!buf->pages[i])
			return -ENOMEM;
	}
	return 0;
}

/**
 * xprtrdma_copy_xdr - flatten an xdr_buf into a send buffer
 * @dst: destination, large enough for the result
 * @xdr: source
 * @tail_skip: leading tail bytes to leave out (an XDR pad whose data
 *	item travels in a chunk)
 * @pages: copy the page list too (false when it travels in a chunk)
 *
 * Context: any.
 */
void xprtrdma_copy_xdr(void *dst, const struct xdr_buf *xdr, u32 tail_skip,
		       bool pages)
{
	u32 pos = xdr->page_base, len = xdr->page_len;

	memcpy(dst, xdr->head[0].iov_base, xdr->head[0].iov_len);
	dst += xdr->head[0].iov_len;
	while (pages && len) {
		u32 off = offset_in_page(pos);
		u32 n = min_t(u32, len, PAGE_SIZE - off);

		memcpy_from_page(dst, xdr->pages[pos >> PAGE_SHIFT], off, n);
		dst += n;
		pos += n;
		len -= n;
	}
	memcpy(dst, xdr->tail[0].iov_base + tail_skip,
	       xdr->tail[0].iov_len - tail_skip);
}

/*
 * May page data travel in chunks of its own (direct data placement)?  Not
 * when RPCSEC_GSS integrity or privacy covers it (the GSS layer sets bit
 * RPCAUTH_AUTH_DATATOUCH in its auth's flags): the pages then hold part of
 * a checksummed or encrypted body rather than a data item, and under
 * privacy the XDR pad rule of RFC 8166 section 3.4.6 would cut ciphertext
 * out of it.
 */
static bool xprtrdma_ddp_allowed(const struct rpc_rqst *rqst)
{
	const struct rpc_cred *cred = rqst->rq_cred;

	return !(cred && cred->cr_auth &&
		 test_bit(RPCAUTH_AUTH_DATATOUCH, &cred->cr_auth->au_flags));
}

/* Remember a reply chunk's segments: the reply must name the same ones. */
static void xprtrdma_keep_offered(struct xprtrdma_req *req,
				  const struct nfsrdma_wire_seg *segs, int n)
{
	/* One segment per MR, and a call has at most MAX_MRS_PER_REQ. */
	if (WARN_ON_ONCE(n > ARRAY_SIZE(req->offered)))
		n = 0;
	memcpy(req->offered, segs, n * sizeof(*segs));
	req->nr_offered = n;
}

/*
 * Offer the reply's page data as a Write chunk: staged if it fits (with
 * room for the pad), else registered with a separate segment for the pad.
 * *@pad is set to 0 if no room for it could be offered.  Returns the
 * number of segments or a negative errno.
 */
static int xprtrdma_write_chunk(struct xprtrdma_req *req,
				struct xprtrdma_ep *ep, struct xdr_buf *rcv,
				u32 *pad, struct nfsrdma_wire_seg *segs,
				struct ib_send_wr **first,
				struct ib_send_wr **last)
{
	u32 head_len = rcv->head[0].iov_len;
	int n, ret;

	n = xprtrdma_stage_xdr(req, ep, rcv, head_len, rcv->page_len, *pad,
			       true, segs, first, last);
	if (n != -ENOSPC)
		return n;
	n = xprtrdma_register_xdr(req, rcv, head_len, rcv->page_len, true,
				  segs, NFSRDMA_WIRE_MAX_CHUNK_SEGS - 1, first,
				  last);
	if (n < 0 || !*pad)
		return n;
	/* Room for a server that writes the XDR pad (RFC 5666). */
	ret = xprtrdma_register_pad(req, *pad, &segs[n], first, last);
	/* Only RFC 5666 servers need the room: go without. */
	if (ret == -E2BIG) {
		*pad = 0;
		return n;
	}
	return ret ? ret : n + 1;
}

/* Offer a Write chunk or a Reply chunk for the reply, if it needs one. */
static int xprtrdma_marshal_reply(struct xprtrdma_req *req,
				  struct xprtrdma_ep *ep,
				  struct nfsrdma_wire_hdr *hdr, bool ddp,
				  struct ib_send_wr **first,
				  struct ib_send_wr **last)
{
	struct xdr_buf *rcv = &req->rqst.rq_rcv_buf;
	u32 total = rcv->head[0].iov_len + rcv->page_len + rcv->tail[0].iov_len;
	u32 reply_room;
	int n;

	/*
	 * What the server's reply header may take besides the message: the
	 * server sends inline no more than the smaller of our receive
	 * buffers and its own send limit (RFC 8797).
	 */
	reply_room = ep->max_recv -
		     nfsrdma_wire_chunks_size(0, 1, XPRTRDMA_MAX_MRS_PER_REQ,
					      false, 0);

	/*
	 * A reply that fits inline whole goes inline: the server copies the
	 * data into its Send, where a Write chunk would cost us an MR to
	 * register and invalidate and the server an RDMA Write.
	 */
	if (ddp && (rcv->flags & XDRBUF_READ) && rcv->page_len &&
	    total > reply_room && total - rcv->page_len <= reply_room) {
		u32 pad = xdr_pad_size(rcv->page_len);

		n = xprtrdma_write_chunk(req, ep, rcv, &pad, hdr->segs, first,
					 last);
		if (n < 0)
			return n;
		hdr->write[0].first = 0;
		hdr->write[0].nr_segs = n;
		hdr->nr_write = 1;
		req->write_offered = rcv->page_len + pad;
		xprtrdma_keep_offered(req, hdr->segs, n);
		return 0;
	}

	if (total <= reply_room)
		return 0;

	n = xprtrdma_stage_xdr(req, ep, rcv, 0, total, 0, true, hdr->segs,
			       first, last);
	if (n == -ENOSPC)
		n = xprtrdma_register_xdr(req, rcv, 0, total, true, hdr->segs,
					  NFSRDMA_WIRE_MAX_CHUNK_SEGS, first,
					  last);
	if (n < 0)
		return n;
	hdr->reply.first = 0;
	hdr->reply.nr_segs = n;
	hdr->has_reply = true;
	req->reply_offered = total;
	xprtrdma_keep_offered(req, hdr->segs, n);
	return 0;
}

/*
 * Offer @length bytes of the call from @offset as a Read chunk: staged if
 * they fit, else registered.  Returns the number of segments or an errno.
 */
static int xprtrdma_read_chunk(struct xprtrdma_req *req,
			       struct xprtrdma_ep *ep, struct xdr_buf *snd,
			       u32 offset, u32 length,
			       struct nfsrdma_wire_seg *segs,
			       unsigned int max_segs,
			       struct ib_send_wr **first,
			       struct ib_send_wr **last)
{
	int n;

	n = xprtrdma_stage_xdr(req, ep, snd, offset, length, 0, false, segs,
			       first, last);
	if (n != -ENOSPC)
		return n;
	return xprtrdma_register_xdr(req, snd, offset, length, false, segs,
				     max_segs, first, last);
}

/* Move the Read chunk segments registered into the pool into read[]. */
static void xprtrdma_set_read_list(struct nfsrdma_wire_hdr *hdr, u32 from,
				   int n, u32 position)
{
	int i;

	for (i = 0; i < n; i++) {
		hdr->read[i].position = position;
		hdr->read[i].seg = hdr->segs[from + i];
	}
	hdr->nr_read = n;
}

static u32 xprtrdma_pool_used(const struct nfsrdma_wire_hdr *hdr)
{
	u32 used = 0;

	if (hdr->nr_write)
		used += hdr->write[0].nr_segs;
	if (hdr->has_reply)
		used += hdr->reply.nr_segs;
	return used;
}

/**
 * struct xprtrdma_marshal_info - what xprtrdma_marshal() decided, for the
 *	counters and the trace event, which are only updated once the call
 *	is really posted
 * @inline_len: RPC message bytes carried inline
 * @pullup: page data bytes copied into the send buffer
 * @read_bytes: bytes offered in the Read chunk
 */
struct xprtrdma_marshal_info {
	u32 inline_len;
	u32 pullup;
	u32 read_bytes;
};

/*
 * Build the transport header and inline part in req->sc.buf, and the
 * REG_MR chain for all chunks.  Returns the bytes to send or an errno.
 */
static int xprtrdma_marshal(struct xprtrdma_req *req, struct xprtrdma_ep *ep,
			    struct ib_send_wr **first, struct ib_send_wr **last,
			    struct xprtrdma_marshal_info *info)
{
	struct xprtrdma_xprt *xp = req->xp;
	struct nfsrdma_wire_hdr *hdr = xp->hdr;
	struct rpc_rqst *rqst = &req->rqst;
	struct xdr_buf *snd = &rqst->rq_snd_buf;
	u32 head_len = snd->head[0].iov_len;
	u32 tail_skip = 0, tail_len, inline_len, pool;
	bool ddp = xprtrdma_ddp_allowed(rqst);
	int hlen, n, ret;

	ret = xprtrdma_fill_sparse_pages(&rqst->rq_rcv_buf);
	if (ret)
		return ret;

	hdr->xid = rqst->rq_xid;
	hdr->vers = NFSRDMA_WIRE_VERSION;
	hdr->credits = xp->nr_reqs;
	hdr->proc = NFSRDMA_WIRE_PROC_MSG;
	hdr->nr_read = 0;
	hdr->nr_write = 0;
	hdr->has_reply = false;
	req->write_offered = 0;
	req->reply_offered = 0;
	req->nr_offered = 0;
	memset(info, 0, sizeof(*info));

	ret = xprtrdma_marshal_reply(req, ep, hdr, ddp, first, last);
	if (ret)
		return ret;
	pool = xprtrdma_pool_used(hdr);

	/* 1. Everything inline. */
	hlen = nfsrdma_wire_hdr_size(hdr);
	if (hlen < 0)
		return hlen;
	if (hlen + snd->len <= ep->max_send) {
		inline_len = snd->len;
		info->pullup = snd->page_len;
		goto encode_msg;
	}

	/* 2. Page data in a Read chunk, the rest inline. */
	if (ddp && (snd->flags & XDRBUF_WRITE) && snd->page_len) {
		/* RFC 8166 3.4.6: the XDR pad goes neither in the chunk nor inline. */
		tail_len = snd->tail[0].iov_len;
		tail_skip = min_t(u32, xdr_pad_size(snd->page_len), tail_len);
		inline_len = head_len + tail_len - tail_skip;

		n = xprtrdma_read_chunk(req, ep, snd, head_len, snd->page_len,
					&hdr->segs[pool],
					NFSRDMA_WIRE_MAX_SEGS - pool, first,
					last);
		if (n < 0)
			return n;
		xprtrdma_set_read_list(hdr, pool, n, head_len);
		hlen = nfsrdma_wire_hdr_size(hdr);
		if (hlen >= 0 && hlen + inline_len <= ep->max_send) {
			info->read_bytes = snd->page_len;
			goto encode_msg;
		}
		/*
		 * Not posted yet, so these MRs can go back unfenced; but the
		 * reply chunks' MRs on the same list must stay.  Start over.
		 */
		return -EAGAIN;
	}

	/* 3. The whole call in a Position-zero Read chunk. */
	n = xprtrdma_read_chunk(req, ep, snd, 0, snd->len, &hdr->segs[pool],
				NFSRDMA_WIRE_MAX_SEGS - pool, first, last);
	if (n < 0)
		return n;
	xprtrdma_set_read_list(hdr, pool, n, 0);
	hdr->proc = NFSRDMA_WIRE_PROC_NOMSG;
	hlen = nfsrdma_wire_encode(req->sc.buf, ep->max_send, hdr);
	if (hlen < 0)
		return hlen;
	info->read_bytes = snd->len;
	return hlen;

encode_msg:
	hlen = nfsrdma_wire_encode(req->sc.buf, ep->max_send, hdr);
	if (hlen < 0)
		return hlen;
	info->inline_len = inline_len;
	xprtrdma_copy_xdr(req->sc.buf + hlen, snd, tail_skip, !hdr->nr_read);
	return hlen + inline_len;
}

/* The Send is over: its buffer may be reused, waiters may go on. */
static void xprtrdma_sendctx_release(struct xprtrdma_sendctx *sc)
{
	ib_dma_unmap_single(sc->ep->device, sc->dma, sc->len, DMA_TO_DEVICE);
	clear_bit(XPRTRDMA_SEND_BUSY, &sc->flags);
	smp_mb__after_atomic();
	wake_up_var(&sc->flags);
}

static void xprtrdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xprtrdma_sendctx *sc =
		container_of(wc->wr_cqe, struct xprtrdma_sendctx, cqe);

	atomic_dec(&sc->ep->sends_out);
	if (wc->status != IB_WC_SUCCESS)
		xprtrdma_wr_failed(sc->ep, "Send", wc);
	else
		xprtrdma_ep_progress(sc->ep);
	xprtrdma_sendctx_release(sc);
}

/**
 * xprtrdma_sendctx_reap - retire a Send whose completion never came
 * @sc: send context
 * @ep: connection being freed, whose QP is destroyed and whose send CQ is
 *	freed, so no completion handler can run for it any more
 *
 * A drained QP has completed every Send posted on it, unless the provider
 * lost one: soft-iWARP was seen to complete the drain marker while an
 * earlier Send never completed, and the retransmission of that call then
 * waited for it forever.  Nothing can complete it now, so release it here.
 *
 * Context: process context, from the connection's teardown.
 *
 * Return: true if @sc was still busy on @ep (and is now released).
 */
bool xprtrdma_sendctx_reap(struct xprtrdma_sendctx *sc, struct xprtrdma_ep *ep)
{
	if (!test_bit(XPRTRDMA_SEND_BUSY, &sc->flags) ||
	    READ_ONCE(sc->ep) != ep)
		return false;
	xprtrdma_sendctx_release(sc);
	return true;
}

/**
 * xprtrdma_sendctx_init - prepare a send context
 * @sc: context to set up
 * @xp: owning transport
 *
 * Context: process context.
 *
 * Return: 0 or %-ENOMEM.  The caller frees @sc->buf.
 */
int xprtrdma_sendctx_init(struct xprtrdma_sendctx *sc,
			  struct xprtrdma_xprt *xp)
{
	sc->xp = xp;
	sc->cqe.done = xprtrdma_send_done;
	sc->buf = kmalloc(xp->inline_send, GFP_KERNEL);
	return sc->buf ? 0 : -ENOMEM;
}

/**
 * xprtrdma_sendctx_reuse - wait a while for a send context's last Send
 * @sc: send context about to be reused
 * @xprt: its transport, broken if the wait runs out
 * @what: "" or a word naming the Send's direction, for the log line
 *
 * A sender that finds the previous Send on its buffer still outstanding
 * waits here holding XPRT_LOCKED, and the transport cannot close while it
 * does; a reply whose call's Send has not completed waits here too, on the
 * receive CQ's work (see xprtrdma_reply_wait_send()).  The Send watchdog's
 * fence flushes a Send that is stuck on the wire, but one the provider
 * lost never completes: after
 * %XPRTRDMA_SEND_STALL_SECS we give up and break the connection, whose
 * teardown reaps it.
 *
 * Context: process context, may sleep.
 *
 * Return: 0 if @sc is idle, %-ENOTCONN if its Send is still outstanding
 * (a call is retransmitted after the reconnect; a backchannel Reply is
 * dropped and the server retries its Call).
 */
int xprtrdma_sendctx_reuse(struct xprtrdma_sendctx *sc, struct rpc_xprt *xprt,
			   const char *what)
{
	if (wait_var_event_timeout(&sc->flags,
				   !test_bit(XPRTRDMA_SEND_BUSY, &sc->flags),
				   XPRTRDMA_SEND_STALL_SECS * HZ))
		return 0;
	pr_warn_ratelimited("xprtrdma: an earlier %sSend to %s has not completed in %u s; reconnecting\n",
			    what, xprt->address_strings[RPC_DISPLAY_ADDR],
			    XPRTRDMA_SEND_STALL_SECS);
	xprt_force_disconnect(xprt);
	return -ENOTCONN;
}

/**
 * xprtrdma_sendctx_post - post a Send, behind an optional chain of WRs
 * @sc: send context whose buffer holds @len bytes to send; idle
 * @ep: connection to post on
 * @len: bytes of @sc->buf to send
 * @first: head of a REG_MR chain to post in front, or NULL
 * @last: tail of that chain, or NULL
 * @if_idle: post only if no Send (nor the keepalive probe) is outstanding
 *	on the QP, so that no transport retry can rewind the send queue over
 *	the chain, and the registration QP is alive (see frwr.c)
 * @bad: the first WR the provider refused, on error
 *
 * The Send is always signaled: its completion releases the buffer.
 *
 * Context: process context, under XPRT_LOCKED.
 *
 * Return: 0, %-EBUSY if @if_idle and the QP is not (nothing was posted),
 * %-ENOBUFS if the buffer cannot be DMA mapped, or the provider's error,
 * in which case the Send itself was not posted.
 */
int xprtrdma_sendctx_post(struct xprtrdma_sendctx *sc, struct xprtrdma_ep *ep,
			  u32 len, struct ib_send_wr *first,
			  struct ib_send_wr *last, bool if_idle,
			  const struct ib_send_wr **bad)
{
	unsigned long flags;
	int ret;

	*bad = NULL;
	WRITE_ONCE(sc->ep, ep);
	sc->len = len;
	sc->dma = ib_dma_map_single(ep->device, sc->buf, len, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ep->device, sc->dma))
		return -ENOBUFS;
	sc->sge.addr = sc->dma;
	sc->sge.length = len;
	sc->sge.lkey = ep->pd->local_dma_lkey;
	memset(&sc->wr, 0, sizeof(sc->wr));
	sc->wr.opcode = IB_WR_SEND;
	sc->wr.wr_cqe = &sc->cqe;
	sc->wr.sg_list = &sc->sge;
	sc->wr.num_sge = 1;
	sc->wr.send_flags = IB_SEND_SIGNALED;
	if (last)
		last->next = &sc->wr;
	else
		first = &sc->wr;

	WRITE_ONCE(sc->posted, jiffies);
	/* The stall check reads @posted after seeing the bit. */
	smp_mb__before_atomic();
	set_bit(XPRTRDMA_SEND_BUSY, &sc->flags);
	/*
	 * Providers may take a chain one work request at a time, and the
	 * keepalive probe posts without XPRT_LOCKED: under @post_lock the
	 * probe cannot land between the REG_MR fence and the registrations
	 * it guards, nor a Send between the look at @sends_out and an
	 * unfenced chain (see frwr.c).  A dead registration QP means the
	 * connection failed: the caller's fallback to it fails at once.
	 */
	spin_lock_irqsave(&ep->post_lock, flags);
	if (if_idle && (atomic_read(&ep->sends_out) ||
			READ_ONCE(ep->regq_dead)))
		ret = -EBUSY;
	else
		ret = xprtrdma_post_wire(ep, first, bad);
	spin_unlock_irqrestore(&ep->post_lock, flags);
	if (ret) {
		/* The Send ends the chain, so it was never posted. */
		ib_dma_unmap_single(ep->device, sc->dma, len, DMA_TO_DEVICE);
		clear_bit(XPRTRDMA_SEND_BUSY, &sc->flags);
	}
	return ret;
}

/*
 * Count a call that is on the wire and trace its chunk decisions.  Runs
 * under XPRT_LOCKED, so xp->hdr still describes this call.
 */
static void xprtrdma_account_call(struct xprtrdma_req *req,
				  const struct xprtrdma_marshal_info *info)
{
	struct xprtrdma_xprt *xp = req->xp;
	const struct nfsrdma_wire_hdr *hdr = xp->hdr;
	struct xprtrdma_stats *st = &xp->stats;
	u32 wsegs = hdr->nr_write ? hdr->write[0].nr_segs : 0;
	u32 rsegs = hdr->has_reply ? hdr->reply.nr_segs : 0;

	if (hdr->proc == NFSRDMA_WIRE_PROC_NOMSG)
		atomic_long_inc(&st->nomsg_calls);
	atomic_long_add(hdr->nr_read, &st->read_segs);
	atomic_long_add(wsegs, &st->write_segs);
	atomic_long_add(rsegs, &st->reply_segs);
	atomic_long_add((long)info->read_bytes + req->write_offered +
			req->reply_offered, &st->registered_bytes);
	atomic_long_add(info->pullup, &st->pullup_bytes);
	trace_xprtrdma_marshal(req, hdr, info->inline_len, info->read_bytes);
}

/*
 * Register a call's chunks on the registration QP, ahead of its Send.
 * Returns 0, or -ENOTCONN after breaking the connection.
 */
static int xprtrdma_post_regq(struct xprtrdma_req *req,
			      struct xprtrdma_ep *ep, struct ib_send_wr *regs,
			      struct ib_send_wr *last)
{
	struct rpc_xprt *xprt = &req->xp->xprt;
	const struct ib_send_wr *bad;
	int ret;

	trace_xprtrdma_regq_chain(req->xp, req->rqst.rq_xid);
	ret = xprtrdma_regq_post(ep, regs, last, &bad);
	if (!ret)
		return 0;
	/* Keys that may be valid stay on @req for teardown. */
	if (bad == regs)
		xprtrdma_mrs_drop(req);
	else
		xprtrdma_stage_post_failed(req, regs, bad);
	pr_warn_ratelimited("xprtrdma: registration for %s failed: %d\n",
			    xprt->address_strings[RPC_DISPLAY_ADDR], ret);
	xprt_force_disconnect(xprt);
	return -ENOTCONN;
}

/* Marshal and post one call; the caller holds @req->mr_mutex. */
static int xprtrdma_post_call(struct xprtrdma_req *req, struct xprtrdma_ep *ep)
{
	struct rpc_rqst *rqst = &req->rqst;
	struct rpc_xprt *xprt = rqst->rq_xprt;
	struct xprtrdma_xprt *xp = req->xp;
	struct xprtrdma_marshal_info info;
	struct ib_send_wr *first, *last, *regs;
	const struct ib_send_wr *bad;
	int len, ret, tries = 0;
	bool if_idle;

	/*
	 * The reply came after the core decided to send again (it checks
	 * without our mutex): the call is complete, and marshalling would
	 * zero the memory the reply was placed in.  The reply handler
	 * completes under @mr_mutex, so this look cannot miss it.
	 */
	if (READ_ONCE(rqst->rq_reply_bytes_recvd)) {
		trace_xprtrdma_send_skipped(xp, rqst->rq_xid);
		return 0;
	}
	/*
	 * The RPC core's per-operation statistics (mountstats, nfsiostat)
	 * take each call's round trip from here: the transport's work,
	 * registration included, is part of it, as a socket's send is.
	 */
	rqst->rq_xtime = ktime_get();

	/* A retransmission: the earlier chunks must be retired first. */
	if (xprtrdma_req_has_chunks(req)) {
		trace_xprtrdma_mr_recover(xp, rqst->rq_xid, req->nr_mrs);
		xprtrdma_invalidate(req, false, 0, false);
	}

	/* Until it is posted again, no reply can be for this transmission. */
	WRITE_ONCE(req->sent_gen, 0);
again:
	first = NULL;
	last = NULL;
	len = xprtrdma_marshal(req, ep, &first, &last, &info);
	if (len == -EAGAIN && !tries++) {
		/* Read chunk did not help: retry as RDMA_NOMSG. */
		xprtrdma_mrs_drop(req);
		rqst->rq_snd_buf.flags &= ~XDRBUF_WRITE;
		goto again;
	}
	if (len < 0) {
		xprtrdma_mrs_drop(req);
		if (len == -ENOBUFS || len == -ENOMEM)
			return -ENOBUFS;
		atomic_long_inc(&xp->stats.failed_marshal);
		trace_xprtrdma_marshal_failed(xp, rqst->rq_xid, len);
		pr_warn_ratelimited("xprtrdma: cannot marshal call to %s: %d\n",
				    xprt->address_strings[RPC_DISPLAY_ADDR], len);
		return -EIO;
	}

	regs = first;
	/*
	 * On the registration QP's device, a chain that no Send is ahead of
	 * cannot be rewound over, so it goes in front of its Send without
	 * the fence other devices get; the registration QP, which costs a
	 * completion and a wakeup, is for when Sends are outstanding (see
	 * frwr.c).
	 */
	if_idle = regs && ep->regq;
	if (regs && !ep->regq)
		first = xprtrdma_reg_fence(ep, regs);
	/*
	 * Set before the post: the reply can complete before
	 * xprtrdma_sendctx_post() returns, and its handler waits for
	 * @mr_mutex, which we hold, before it looks.
	 */
	WRITE_ONCE(req->sent_gen, ep->gen);
	ret = xprtrdma_sendctx_post(&req->sc, ep, len, first, last, if_idle,
				    &bad);
	if (if_idle && ret == -EBUSY) {
		WRITE_ONCE(req->sent_gen, 0);
		ret = xprtrdma_post_regq(req, ep, regs, last);
		if (ret)
			return ret;
		/* Registered: the Send goes alone. */
		first = NULL;
		WRITE_ONCE(req->sent_gen, ep->gen);
		ret = xprtrdma_sendctx_post(&req->sc, ep, len, NULL, NULL,
					    false, &bad);
	}
	if (ret) {
		WRITE_ONCE(req->sent_gen, 0);
		/*
		 * Part of the REG_MR chain may be on the wire, or all of it
		 * done on the registration QP; only a reconnect reliably
		 * retires it, and teardown takes the MRs back.  If no
		 * REG_MR was posted they can go back now.
		 */
		pr_warn_ratelimited("xprtrdma: post to %s failed: %d\n",
				    xprt->address_strings[RPC_DISPLAY_ADDR], ret);
		if (regs && !first)
			/* Registered already: the keys are valid. */
			xprtrdma_stage_post_failed(req, regs, NULL);
		else if (!bad || bad == first || bad == regs)
			xprtrdma_mrs_drop(req);
		else
			xprtrdma_stage_post_failed(req, first, bad);
		xprt_force_disconnect(xprt);
		return -ENOTCONN;
	}
	xprtrdma_stage_posted(req);
	xprtrdma_account_call(req, &info);
	/*
	 * And the bytes sent: the RPC message, however it was carried.
	 * The reply handler cannot complete the RPC (and have it counted)
	 * until we drop @mr_mutex.
	 */
	rqst->rq_xmit_bytes_sent += rqst->rq_snd_buf.len;
	return 0;
}

/**
 * xprtrdma_send_request - transmit one RPC call (rpc_xprt_ops.send_request)
 * @rqst: the call, fully XDR encoded
 *
 * Context: rpciod or the caller's task, holding XPRT_LOCKED.  May sleep
 * briefly on a retransmission whose previous Send or chunks are still
 * outstanding, or growing the MR pool (no I/O, no retries).
 *
 * Return: 0 if posted; %-ENOTCONN if there is no connection (the core
 * reconnects and retransmits); %-EBADSLT if the server's credits are all
 * in use; %-ENOBUFS if the MR pool is empty and could not grow (retried
 * after a delay); %-EIO if the call cannot be expressed (it fails).
 */
int xprtrdma_send_request(struct rpc_rqst *rqst)
{
	struct rpc_xprt *xprt = rqst->rq_xprt;
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);
	struct xprtrdma_ep *ep = xp->ep;
	struct xprtrdma_req *req;
	int ret;

	/* A backchannel reply's rqst lives in a struct xprtrdma_bc. */
	if (bc_prealloc(rqst))
		return xprtrdma_bc_send(rqst);
	req = xprtrdma_req(rqst);
	if (!ep || !xprt_connected(xprt))
		return -ENOTCONN;
	if (!xprt_request_get_cong(xprt, rqst)) {
		trace_xprtrdma_send_deferred(xp, rqst->rq_xid,
					  "every credit in use");
		return -EBADSLT;
	}

	/* A retransmission, or a slot reused: the earlier Send must be retired. */
	ret = xprtrdma_sendctx_reuse(&req->sc, xprt, "");
	if (ret)
		return ret;
	mutex_lock(&req->mr_mutex);
	ret = xprtrdma_post_call(req, ep);
	mutex_unlock(&req->mr_mutex);
	if (ret == -ENOBUFS)
		trace_xprtrdma_send_deferred(xp, rqst->rq_xid,
					  "MR pool empty or out of memory");
	return ret;
}
