// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: staging buffers, a registration-free path for small chunks.
 *
 * A server whose inline limit is below a 4 KiB READ or WRITE plus its
 * headers (the in-tree's is 4 KiB) makes every such call use a chunk, and
 * an FRWR chunk costs a REG_MR (frwr.c) and an invalidation per call.  With
 * staging on (module parameter "staging"), each request slot gets a buffer
 * of %XPRTRDMA_STAGE_SIZE bytes per connection, DMA mapped once and covered
 * by one MR.  A chunk that fits is copied through it instead of registered:
 * the call's bytes are copied in for a Read chunk; for a Write or Reply
 * chunk the buffer is zeroed, offered, and copied out into the xdr_buf
 * where registration would have let the server write, once the reply's
 * claims have been checked.  A clean reply leaves the key valid for the
 * slot's next call, so a stream of small calls posts no REG_MR and no
 * LOCAL_INV at all.
 *
 * The key is retired (LOCAL_INV now, a REG_MR under a fresh key at the next
 * use) whenever an earlier transmission might still reach the buffer:
 * before a retransmission, after a reply to a call sent more than once,
 * after a reply whose header or chunk claims we refuse, and when a task
 * leaves without a reply.  A server that invalidates the key itself leaves
 * it unregistered the same way; we do not offer remote invalidation while
 * staging is on (RFC 8797), since a server that used it would invalidate
 * the staged key with every reply.  A post that failed partway leaves the
 * key's state unknown, so that stage is not used again on its connection.
 *
 * Exposure: the MR lives in the connection's own PD, so only that
 * server's QP can reach the buffer, which only ever holds bytes exchanged
 * with that server or about to be sent to it (a call staged and then not
 * posted leaves its bytes there).  It is zeroed before every Write or
 * Reply chunk, so a server that claims bytes it did not write hands back
 * zeros, never an earlier call's data.  Unlike a registered chunk, whose
 * key dies with its call, a kept key lets the server reach the buffer
 * between calls: a server that writes through it late corrupts only what
 * it sends or receives itself, and nothing is parsed from the buffer in
 * place (a reply is copied out before the XDR decoder sees it).
 */

#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sunrpc/xdr.h>

#include "xprtrdma.h"
#include "trace.h"

static bool xprtrdma_staging;
module_param_named(staging, xprtrdma_staging, bool, 0644);
MODULE_PARM_DESC(staging,
		 "Copy chunks of up to 8 KiB through per-slot buffers registered once per connection (read at connect)");

static void xprtrdma_stage_trace(const struct xprtrdma_req *req,
				 const struct xprtrdma_stage *st,
				 const char *what)
{
	trace_xprtrdma_stage(req->xp, req->rqst.rq_xid, req - req->xp->reqs,
			     st->mr->rkey, what);
}

/* Nothing more is known about the key: keep off it until reconnect. */
static void xprtrdma_stage_kill(const struct xprtrdma_req *req,
				struct xprtrdma_stage *st)
{
	if (st->state == XPRTRDMA_STAGE_DEAD)
		return;
	st->state = XPRTRDMA_STAGE_DEAD;
	xprtrdma_stage_trace(req, st, "unusable");
}

/* REG_MR is posted unsignaled: this only runs when it failed. */
static void xprtrdma_stage_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xprtrdma_stage *st =
		container_of(wc->wr_cqe, struct xprtrdma_stage, reg_cqe);

	if (wc->status != IB_WC_SUCCESS)
		xprtrdma_wr_failed(st->ep, "REG_MR (staging)", wc);
}

static void xprtrdma_stage_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xprtrdma_stage *st =
		container_of(wc->wr_cqe, struct xprtrdma_stage, inv_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		xprtrdma_wr_failed(st->ep, "LOCAL_INV (staging)", wc);
		/* Read by the waiter once inv_done has completed. */
		st->inv_failed = true;
	}
	if (st->signaled)
		complete(&st->req->inv_done);
}

/* What xprtrdma_stage_copy() does with each piece. */
enum xprtrdma_stage_dir {
	XPRTRDMA_STAGE_CHECK,	/* only check that every piece is there */
	XPRTRDMA_STAGE_IN,	/* from the xdr_buf into the stage */
	XPRTRDMA_STAGE_OUT,	/* from the stage into the xdr_buf */
};

/*
 * Copy @len bytes between @buf and @xdr from byte @offset of its stream.
 * Returns false if part of the range is not in @xdr, as registration
 * would have found (xprtrdma_register_xdr() fails such a call).
 */
static bool xprtrdma_stage_copy(void *buf, const struct xdr_buf *xdr,
				u32 offset, u32 len, enum xprtrdma_stage_dir dir)
{
	while (len) {
		struct page *page;
		u32 off, n;

		if (!xprtrdma_xdr_piece(xdr, offset, len, &page, &off, &n))
			return false;
		if (dir == XPRTRDMA_STAGE_IN)
			memcpy_from_page(buf, page, off, n);
		else if (dir == XPRTRDMA_STAGE_OUT)
			memcpy_to_page(page, off, buf, n);
		buf += n;
		offset += n;
		len -= n;
	}
	return true;
}

static void xprtrdma_stage_free(struct xprtrdma_stage *st)
{
	struct ib_device *device = st->ep->device;

	if (st->mr)
		ib_dereg_mr(st->mr);
	if (st->mapped)
		ib_dma_unmap_single(device, st->dma, XPRTRDMA_STAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	if (st->buf)
		free_pages((unsigned long)st->buf,
			   get_order(XPRTRDMA_STAGE_SIZE));
}

static int xprtrdma_stage_init(struct xprtrdma_stage *st,
			       struct xprtrdma_ep *ep, struct xprtrdma_req *req)
{
	struct ib_device *device = ep->device;

	st->ep = ep;
	st->req = req;
	st->reg_cqe.done = xprtrdma_stage_reg_done;
	st->inv_cqe.done = xprtrdma_stage_inv_done;
	st->state = XPRTRDMA_STAGE_UNREG;
	/* Zeroed: the first Read chunk staged here must not carry old heap. */
	st->buf = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
					   get_order(XPRTRDMA_STAGE_SIZE));
	if (!st->buf)
		return -ENOMEM;
	st->dma = ib_dma_map_single(device, st->buf, XPRTRDMA_STAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(device, st->dma))
		return -EIO;
	st->mapped = true;
	/*
	 * One entry, mapped above: ib_map_mr_sg() reads only the DMA
	 * address and length, and the stage is synced with the single
	 * mapping's own calls.
	 */
	sg_init_table(&st->sg, 1);
	sg_set_buf(&st->sg, st->buf, XPRTRDMA_STAGE_SIZE);
	sg_dma_address(&st->sg) = st->dma;
	sg_dma_len(&st->sg) = XPRTRDMA_STAGE_SIZE;
	st->mr = ib_alloc_mr(ep->pd, IB_MR_TYPE_MEM_REG,
			     DIV_ROUND_UP(XPRTRDMA_STAGE_SIZE, PAGE_SIZE));
	if (IS_ERR(st->mr)) {
		int ret = PTR_ERR(st->mr);

		st->mr = NULL;
		return ret;
	}
	return 0;
}

/**
 * xprtrdma_stages_create - give each request slot a staging buffer
 * @ep: connection with a PD and a QP, not yet connected
 *
 * Does nothing unless the staging module parameter is set.  Staging is
 * an optimisation: if the device cannot spare an MR per slot beside the
 * MR pool, or memory is short, the connection goes without it (and
 * offers remote invalidation as usual).
 *
 * Context: process context (the connect worker), may sleep.
 */
void xprtrdma_stages_create(struct xprtrdma_ep *ep)
{
	struct xprtrdma_xprt *xp = ep->xp;
	unsigned int i, n = xp->nr_reqs;
	int ret = 0;

	if (!READ_ONCE(xprtrdma_staging))
		return;
	/* Keep room for the fence and the pool's first two MRs per slot. */
	if (ep->device->attrs.max_mr < 3 * n + 1) {
		pr_info_ratelimited("xprtrdma: device %s has too few MRs for staging; connecting to %s without it\n",
				    dev_name(&ep->device->dev),
				    xp->xprt.address_strings[RPC_DISPLAY_ADDR]);
		return;
	}
	ep->stages = kcalloc(n, sizeof(*ep->stages), GFP_KERNEL);
	if (!ep->stages)
		goto out_none;
	for (i = 0; i < n && !ret; i++)
		ret = xprtrdma_stage_init(&ep->stages[i], ep, &xp->reqs[i]);
	if (!ret)
		return;
	xprtrdma_stages_destroy(ep);
out_none:
	pr_info_ratelimited("xprtrdma: no staging buffers for %s (%d); registering every chunk\n",
			    xp->xprt.address_strings[RPC_DISPLAY_ADDR],
			    ret ?: -ENOMEM);
}

/**
 * xprtrdma_stages_destroy - free a connection's staging buffers
 * @ep: connection whose QP is drained and whose requests hold no stage
 *
 * Context: process context.
 */
void xprtrdma_stages_destroy(struct xprtrdma_ep *ep)
{
	unsigned int i;

	/* kcalloc'd: slots never initialised have no ep and nothing to free. */
	for (i = 0; i < ep->xp->nr_reqs && ep->stages[i].ep; i++)
		xprtrdma_stage_free(&ep->stages[i]);
	kfree(ep->stages);
	ep->stages = NULL;
}

/**
 * xprtrdma_stage_xdr - offer a chunk through the slot's staging buffer
 * @req: request being marshalled
 * @ep: connection it will be posted on
 * @xdr: buffer whose head, pages and tail form one byte stream
 * @offset: first byte of the chunk in that stream
 * @length: bytes of the stream in the chunk
 * @room: bytes offered beyond @length (a Write chunk's XDR pad), never
 *	copied into @xdr
 * @from_server: a Write or Reply chunk (the server writes), rather than
 *	a Read chunk (the server reads)
 * @seg: where to describe the one segment
 * @first: in/out head of the REG_MR chain
 * @last: in/out tail of the REG_MR chain
 *
 * Copies a Read chunk's bytes into the buffer, or zeroes its part of the
 * buffer for a Write or Reply chunk (xprtrdma_stage_unload() copies the
 * reply out).  A call may stage a chunk for the reply and one for the
 * call side by side, as far as the buffer goes.  Chains a REG_MR under a
 * fresh key only if the key is not valid; the caller posts the chain as
 * for any REG_MR (frwr.c).
 *
 * Context: process context, under XPRT_LOCKED and @req->mr_mutex.
 *
 * Return: 1 (one segment), or %-ENOSPC if the chunk is not staged
 * (staging off, no room left, stage not usable, or part of the range
 * missing from @xdr): register it instead.
 */
int xprtrdma_stage_xdr(struct xprtrdma_req *req, struct xprtrdma_ep *ep,
		       struct xdr_buf *xdr, u32 offset, u32 length, u32 room,
		       bool from_server, struct nfsrdma_wire_seg *seg,
		       struct ib_send_wr **first, struct ib_send_wr **last)
{
	struct xprtrdma_stage *st;
	u32 at = 0, size = length + room;

	if (!ep->stages || !length || size > XPRTRDMA_STAGE_SIZE)
		return -ENOSPC;
	st = &ep->stages[req - req->xp->reqs];
	if (st->state == XPRTRDMA_STAGE_DEAD)
		return -ENOSPC;
	if (req->stage) {
		/* Behind this call's first staged chunk. */
		at = ALIGN(req->stage_used, 8);
		if (at > XPRTRDMA_STAGE_SIZE - size)
			return -ENOSPC;
	} else if (req->nr_mrs == XPRTRDMA_MAX_MRS_PER_REQ) {
		return -ENOSPC;
	}

	/* The reply is copied out where registration would have put it. */
	if (!xprtrdma_stage_copy(st->buf + at, xdr, offset, length,
				 from_server ? XPRTRDMA_STAGE_CHECK :
					       XPRTRDMA_STAGE_IN))
		return -ENOSPC;
	if (from_server)
		memset(st->buf + at, 0, size);
	ib_dma_sync_single_for_device(ep->device, st->dma + at, size,
				      DMA_BIDIRECTIONAL);

	if (!req->stage) {
		if (st->state == XPRTRDMA_STAGE_UNREG) {
			if (ib_map_mr_sg(st->mr, &st->sg, 1, NULL,
					 PAGE_SIZE) != 1) {
				xprtrdma_stage_kill(req, st);
				return -ENOSPC;
			}
			/* A fresh key: an earlier transmission's must miss. */
			ib_update_fast_reg_key(st->mr,
					       ib_inc_rkey(st->mr->rkey));
			memset(&st->reg_wr, 0, sizeof(st->reg_wr));
			st->reg_wr.wr.opcode = IB_WR_REG_MR;
			st->reg_wr.wr.wr_cqe = &st->reg_cqe;
			st->reg_wr.mr = st->mr;
			st->reg_wr.key = st->mr->rkey;
			st->reg_wr.access = IB_ACCESS_LOCAL_WRITE |
					    IB_ACCESS_REMOTE_WRITE |
					    IB_ACCESS_REMOTE_READ;
			if (*last)
				(*last)->next = &st->reg_wr.wr;
			else
				*first = &st->reg_wr.wr;
			*last = &st->reg_wr.wr;
			st->reg_pending = true;
		}
		req->stage = st;
		req->stage_posted = false;
		req->stage_len = 0;
		/* One REG_MR and one LOCAL_INV at most, like an MR. */
		req->nr_mrs++;
	}
	req->stage_used = at + size;
	if (from_server) {
		req->stage_at = at;
		req->stage_off = offset;
		req->stage_len = length;
	}
	seg->handle = st->mr->rkey;
	seg->length = size;
	seg->offset = st->mr->iova + at;
	return 1;
}

/**
 * xprtrdma_stage_posted - the transmission using @req's stage is posted
 * @req: request
 *
 * Context: under @req->mr_mutex, after a successful post.
 */
void xprtrdma_stage_posted(struct xprtrdma_req *req)
{
	struct xprtrdma_stage *st = req->stage;

	if (!st)
		return;
	if (st->reg_pending) {
		st->reg_pending = false;
		st->state = XPRTRDMA_STAGE_LIVE;
		xprtrdma_stage_trace(req, st, "register");
	}
	req->stage_posted = true;
}

/**
 * xprtrdma_stage_post_failed - a post failed partway through its chain
 * @req: request whose chain was refused at @bad
 * @first: head of the chain
 * @bad: the first work request the provider refused, or NULL when every
 *	one in the chain may have executed
 *
 * The call never went out (its Send ends the chain, or is posted only
 * after it on the registration QP); but if the stage's REG_MR was among
 * the work requests posted before @bad, the
 * key may or may not be valid, and the stage is not used again on this
 * connection.  The stage stays on @req, like its MRs, for teardown.
 *
 * Context: under @req->mr_mutex.
 */
void xprtrdma_stage_post_failed(struct xprtrdma_req *req,
				const struct ib_send_wr *first,
				const struct ib_send_wr *bad)
{
	struct xprtrdma_stage *st = req->stage;
	const struct ib_send_wr *wr;

	if (!st || !st->reg_pending)
		return;
	st->reg_pending = false;
	for (wr = first; wr && wr != bad; wr = wr->next)
		if (wr == &st->reg_wr.wr)
			xprtrdma_stage_kill(req, st);
}

/**
 * xprtrdma_stage_unload - copy a staged Write or Reply chunk into place
 * @req: request whose reply's chunk claims have been accepted
 *
 * Copies the whole staged range, zeros included where the server wrote
 * less, so the xdr_buf holds exactly what a registered chunk would have.
 *
 * Context: the reply handler, under @req->mr_mutex.
 */
void xprtrdma_stage_unload(struct xprtrdma_req *req)
{
	struct xprtrdma_stage *st = req->stage;

	if (!st || !req->stage_posted || !req->stage_len)
		return;
	ib_dma_sync_single_for_cpu(st->ep->device, st->dma + req->stage_at,
				   req->stage_len, DMA_BIDIRECTIONAL);
	/* Checked when staged; the receive buffer has not changed since. */
	WARN_ON_ONCE(!xprtrdma_stage_copy(st->buf + req->stage_at,
					  &req->rqst.rq_rcv_buf,
					  req->stage_off, req->stage_len,
					  XPRTRDMA_STAGE_OUT));
}

/**
 * xprtrdma_stage_retire - decide what becomes of @req's staged key
 * @req: request whose chunks are being fenced
 * @remote: the server invalidated one rkey with Send With Invalidate
 * @remote_rkey: that rkey, meaningful only if @remote
 * @keep: the transmission ended cleanly (an accepted reply to a call sent
 *	once), so no earlier transmission can still reach the buffer and
 *	the key may stay valid for the slot's next call
 * @ours: set if @remote_rkey is the staged key
 *
 * Context: under @req->mr_mutex, from xprtrdma_invalidate().
 *
 * Return: a LOCAL_INV to put at the end of the request's chain (the
 * caller signals it), or NULL if the key stays valid or already is not.
 */
struct ib_send_wr *xprtrdma_stage_retire(struct xprtrdma_req *req, bool remote,
					 u32 remote_rkey, bool keep,
					 bool *ours)
{
	struct xprtrdma_stage *st = req->stage;

	if (!st || !req->stage_posted)
		return NULL;
	if (remote && st->mr->rkey == remote_rkey) {
		*ours = true;
		st->state = XPRTRDMA_STAGE_UNREG;
		xprtrdma_stage_trace(req, st, "invalidated by server");
		return NULL;
	}
	if (keep || st->state != XPRTRDMA_STAGE_LIVE)
		return NULL;
	memset(&st->inv_wr, 0, sizeof(st->inv_wr));
	st->inv_wr.opcode = IB_WR_LOCAL_INV;
	st->inv_wr.wr_cqe = &st->inv_cqe;
	st->inv_wr.ex.invalidate_rkey = st->mr->rkey;
	st->signaled = false;
	st->inv_failed = false;
	st->state = XPRTRDMA_STAGE_UNREG;
	st->retiring = true;
	xprtrdma_stage_trace(req, st, "retire");
	return &st->inv_wr;
}

/**
 * xprtrdma_stage_retired - @req is done with its stage
 * @req: request whose chunks were fenced
 * @chain_completed: the request's LOCAL_INV chain (if any) was posted and
 *	completed, rather than the QP being moved to Error instead of it
 *
 * A retirement that did not complete for certain leaves the key's state
 * unknown, so the stage is not used again on this connection: that
 * covers a LOCAL_INV that failed or was flushed, including the flush
 * when xprtrdma_inv_wait() fences the QP after waiting too long.
 *
 * Context: under @req->mr_mutex, from xprtrdma_invalidate().
 */
void xprtrdma_stage_retired(struct xprtrdma_req *req, bool chain_completed)
{
	struct xprtrdma_stage *st = req->stage;

	if (!st)
		return;
	if (st->retiring) {
		st->retiring = false;
		if (!chain_completed || st->inv_failed)
			xprtrdma_stage_kill(req, st);
	} else if (!chain_completed && req->stage_posted) {
		xprtrdma_stage_kill(req, st);
	}
	req->stage = NULL;
	req->stage_posted = false;
}

/**
 * xprtrdma_stage_drop - forget @req's stage without fencing it
 * @req: request whose stage was never posted, or whose QP is drained
 *
 * Context: under @req->mr_mutex, from xprtrdma_mrs_drop().
 */
void xprtrdma_stage_drop(struct xprtrdma_req *req)
{
	struct xprtrdma_stage *st = req->stage;

	if (!st)
		return;
	/* A REG_MR built but never posted left the key invalid. */
	st->reg_pending = false;
	/*
	 * Posted and never retired: only teardown gets here, and it frees
	 * the stage next (so no trace: nothing is lost).
	 */
	if (req->stage_posted)
		st->state = XPRTRDMA_STAGE_DEAD;
	req->stage = NULL;
	req->stage_posted = false;
}
