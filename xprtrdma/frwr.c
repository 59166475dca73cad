// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: FRWR memory registration for chunks.
 *
 * Each connection owns a pool of fast-registration MRs sized from the
 * device's page-list limit.  A chunk is registered by posting REG_MR work
 * requests ahead of the Send that carries the call (chained in front of it,
 * or on rxe, behind outstanding Sends, completed on a registration QP
 * first, below), and is fenced again with LOCAL_INV (or by the server's
 * Send With Invalidate) before the RPC completes, so the server can no
 * longer reach pages the upper layer is about to reuse.
 *
 * A REG_MR chain on the connection's QP starts with a LOCAL_INV of a fence
 * MR that is never registered (on rxe it goes there only unfenced, and only
 * when nothing can be retried, below).  Soft-RoCE (rxe, at least through
 * 6.1.192) executes local work requests as soon as its requester reaches
 * them, but retires them only in order; when a transport retry then rewinds
 * the send queue to an unacknowledged Send in front of them, it executes
 * them again, and a second REG_MR of an MR that is already valid fails
 * ("not free") and leaves the QP stalled.  rxe holds a LOCAL_INV until
 * every earlier work request has completed (IBA 10.6.5.1), so the
 * registrations behind the fence are reached only when nothing before them
 * can be retried (the keepalive probe, which posts without XPRT_LOCKED, is
 * kept out of the chain by ep->post_lock).  The verbs allow invalidating a
 * key that is not valid (siw says so explicitly; rxe, rdmavt and mlx5
 * accept it), so elsewhere the fence is one extra no-op work request.
 *
 * On rxe the fence has a price: a call's registrations, and so its Send,
 * wait for the acknowledgement of every Send before it, which takes away
 * the pipelining of a deep queue of small chunked calls (4 KiB random
 * reads from a server with 4 KiB inline ran at 0.56 of the same calls
 * unfenced).  So on rxe the registrations go instead to a registration QP
 * of the connection's PD: an RC QP moved to RTS with the connection's own
 * path but no remote access at all, given only local work requests, so it
 * never sends a packet and never retries, and nothing behind a
 * registration can be rewound over it.  A key from it is valid on the
 * connection's QP (keys belong to the PD); the call's Send is posted once
 * the chain has completed there, which takes a completion, not a round
 * trip.  When the connection fails or is fenced, the registration QP is
 * retired with it: an MR whose LOCAL_INV was flushed may go back to the
 * pool still valid, and a REG_MR of it must flush, not fail.
 *
 * Only a Send still outstanding can be rewound to: rxe retires a finished
 * local work request at the head of the send queue before it considers a
 * retry, and a LOCAL_INV (the only local work request posted outside the
 * sender) runs only at the head.  So a call posted while no Send, nor the
 * keepalive probe, is outstanding on the connection's QP puts its REG_MRs
 * in front of its Send there, as on any other device but without the
 * fence; only with Sends outstanding does it pay the registration QP's
 * completion and wakeup.  ep->sends_out, raised under ep->post_lock by
 * every post that puts packets on the wire and lowered by their
 * completions, decides it at the moment of the post (xprtrdma_post_wire());
 * a lone call (QD1 I/O, a stream of metadata operations) never waits for
 * a registration.
 *
 * The same holds a LOCAL_INV on the connection's QP until every Send ahead
 * of it is acknowledged, so a reply whose chunks the server did not
 * invalidate would wait for other calls' round trips.  With staging on
 * (no remote invalidation offered, so every registered chunk needs one),
 * the registration QP gets room for every slot's chain and LOCAL_INVs go
 * there too, and run at once, once the call's Send has completed: until
 * then its REG_MRs may still be queued ahead of it on the connection's
 * QP, and the two QPs are not ordered.  A chain flushed on the
 * registration QP (it was retired) may leave keys valid, so the
 * connection's QP is then fenced before the MRs go back to the pool.
 */

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/sunrpc/xdr.h>

#include "xprtrdma.h"
#include "trace.h"

/* REG_MR is posted unsignaled: this only runs when it failed. */
static void xprtrdma_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xprtrdma_mr *mr =
		container_of(wc->wr_cqe, struct xprtrdma_mr, reg_cqe);

	if (wc->status != IB_WC_SUCCESS)
		xprtrdma_wr_failed(mr->ep, "REG_MR", wc);
}

static void xprtrdma_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xprtrdma_mr *mr =
		container_of(wc->wr_cqe, struct xprtrdma_mr, inv_cqe);

	if (wc->status != IB_WC_SUCCESS)
		xprtrdma_wr_failed(mr->ep, "LOCAL_INV", wc);
	/*
	 * The chain is ordered and only its last WR is signaled, so this
	 * completion (even a flush) means every LOCAL_INV before it is done.
	 */
	if (mr->signaled)
		complete(&mr->req->inv_done);
}

/* The fence is posted unsignaled: this only runs when it failed. */
static void xprtrdma_fence_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xprtrdma_ep *ep =
		container_of(wc->wr_cqe, struct xprtrdma_ep, fence_cqe);

	if (wc->status != IB_WC_SUCCESS)
		xprtrdma_wr_failed(ep, "LOCAL_INV (fence)", wc);
}

/* Free one MR; the caller unlinks it from whatever lists matter. */
static void xprtrdma_mr_free(struct xprtrdma_mr *mr)
{
	if (mr->mr)
		ib_dereg_mr(mr->mr);
	kfree(mr->sg);
	kfree(mr);
}

/*
 * Add up to @count MRs to @ep's pool, never beyond @ep->mr_cap.  Growing
 * may happen while calls are in flight (from the sender, under
 * XPRT_LOCKED), so the new MRs go on both lists under @ep->mr_lock.
 * Returns how many were added.
 */
static unsigned int xprtrdma_mr_pool_add(struct xprtrdma_ep *ep,
					 unsigned int count, gfp_t gfp)
{
	enum ib_mr_type type = ep->mr_gaps ? IB_MR_TYPE_SG_GAPS :
					     IB_MR_TYPE_MEM_REG;
	unsigned int added = 0;

	while (added < count && READ_ONCE(ep->nr_mrs) < ep->mr_cap) {
		struct xprtrdma_mr *mr;
		struct ib_mr *ibmr;

		mr = kzalloc(sizeof(*mr), gfp);
		if (!mr)
			break;
		mr->sg = kcalloc(ep->mr_depth, sizeof(*mr->sg), gfp);
		if (!mr->sg) {
			xprtrdma_mr_free(mr);
			break;
		}
		ibmr = ib_alloc_mr(ep->pd, type, ep->mr_depth);
		if (IS_ERR(ibmr)) {
			xprtrdma_mr_free(mr);
			/* The device is out of MRs: stop asking it. */
			if (ep->nr_mrs)
				ep->mr_cap = ep->nr_mrs;
			break;
		}
		mr->mr = ibmr;
		mr->ep = ep;
		mr->reg_cqe.done = xprtrdma_reg_done;
		mr->inv_cqe.done = xprtrdma_inv_done;
		INIT_LIST_HEAD(&mr->list);
		spin_lock(&ep->mr_lock);
		list_add_tail(&mr->all, &ep->mr_all);
		list_add_tail(&mr->list, &ep->mr_free);
		WRITE_ONCE(ep->nr_mrs, ep->nr_mrs + 1);
		spin_unlock(&ep->mr_lock);
		added++;
	}
	atomic_long_add(added, &ep->xp->stats.mrs_allocated);
	return added;
}

/**
 * xprtrdma_mr_pool_create - allocate a connection's FRWR MRs
 * @ep: connection with a PD
 * @count: number of MRs to start with
 * @cap: most MRs the pool may grow to (xprtrdma_mr_get() adds more on
 *	demand)
 *
 * MRs are of type SG_GAPS where the device offers it: one MR then covers
 * a chunk whose pieces do not meet at page boundaries (an xdr_buf's head,
 * pages and tail), where a MEM_REG MR needs one per piece.
 *
 * Context: process context, may sleep.
 *
 * Return: 0, or a negative errno with everything allocated so far freed.
 */
int xprtrdma_mr_pool_create(struct xprtrdma_ep *ep, unsigned int count,
			    unsigned int cap)
{
	u32 depth;

	depth = min_t(u32, ep->device->attrs.max_fast_reg_page_list_len,
		      XPRTRDMA_MAX_MR_DEPTH);
	ep->mr_gaps = !!(ep->device->attrs.kernel_cap_flags &
			 IBK_SG_GAPS_REG);
	/* One page would leave no room past a misaligned first page. */
	if (depth < 2)
		return -EOPNOTSUPP;
	ep->mr_depth = depth;
	ep->mr_cap = max(cap, count);

	ep->fence_mr = ib_alloc_mr(ep->pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(ep->fence_mr)) {
		int ret = PTR_ERR(ep->fence_mr);

		ep->fence_mr = NULL;
		return ret;
	}
	ep->fence_cqe.done = xprtrdma_fence_done;

	if (xprtrdma_mr_pool_add(ep, count, GFP_KERNEL) < count) {
		xprtrdma_mr_pool_destroy(ep);
		return -ENOMEM;
	}
	return 0;
}

/**
 * xprtrdma_mr_pool_destroy - free a connection's MRs
 * @ep: connection whose QP is drained and whose requests hold no MRs
 *
 * Context: process context.
 */
void xprtrdma_mr_pool_destroy(struct xprtrdma_ep *ep)
{
	struct xprtrdma_mr *mr, *tmp;

	list_for_each_entry_safe(mr, tmp, &ep->mr_all, all) {
		list_del(&mr->all);
		xprtrdma_mr_free(mr);
	}
	ep->nr_mrs = 0;
	INIT_LIST_HEAD(&ep->mr_free);
	if (ep->fence_mr) {
		ib_dereg_mr(ep->fence_mr);
		ep->fence_mr = NULL;
	}
}

/**
 * xprtrdma_reg_fence - put the fence in front of a REG_MR chain
 * @ep: connection the chain will be posted on
 * @regs: first REG_MR of the chain
 *
 * See the top of this file for why.  @ep has one fence work request,
 * which is enough because chains are only posted under XPRT_LOCKED and
 * ib_post_send() copies the request before it returns.
 *
 * Context: process context, under XPRT_LOCKED.
 *
 * Return: the new head of the chain.
 */
struct ib_send_wr *xprtrdma_reg_fence(struct xprtrdma_ep *ep,
				      struct ib_send_wr *regs)
{
	struct ib_send_wr *wr = &ep->fence_wr;

	memset(wr, 0, sizeof(*wr));
	wr->opcode = IB_WR_LOCAL_INV;
	wr->wr_cqe = &ep->fence_cqe;
	wr->ex.invalidate_rkey = ep->fence_mr->rkey;
	wr->next = regs;
	return wr;
}

/* Ends every chain on the registration QP: the one signaled WR. */
static void xprtrdma_regq_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xprtrdma_ep *ep =
		container_of(wc->wr_cqe, struct xprtrdma_ep, regq_cqe);

	if (wc->status != IB_WC_SUCCESS)
		xprtrdma_wr_failed(ep, "LOCAL_INV (registration QP)", wc);
	WRITE_ONCE(ep->regq_status, wc->status);
	complete(&ep->regq_done);
}

/* Steps the registration QP to RTS with the connection's own attributes. */
static int xprtrdma_regq_ready(struct xprtrdma_ep *ep)
{
	static const enum ib_qp_state steps[] = {
		IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS,
	};
	struct ib_qp_attr attr;
	int i, mask, ret;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = steps[i];
		ret = rdma_init_qp_attr(ep->cm_id, &attr, &mask);
		if (ret)
			return ret;
		/*
		 * The connection's path and PSNs, but nothing the server
		 * could reach through this QP: no remote access, no RDMA
		 * Read or atomic resources.  It sends nothing; its peer is
		 * itself.
		 */
		attr.qp_access_flags = 0;
		attr.max_dest_rd_atomic = 0;
		attr.max_rd_atomic = 0;
		if (steps[i] == IB_QPS_RTR)
			attr.dest_qp_num = ep->regq->qp_num;
		ret = ib_modify_qp(ep->regq, &attr, mask);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * xprtrdma_regq_create - give a connection its registration QP, if it needs one
 * @ep: connection that has just reached ESTABLISHED and carries no call yet
 *
 * Only rxe gets one (see the top of this file); elsewhere, and if it
 * cannot be made, registrations stay behind the fence on the
 * connection's QP, which is correct everywhere.
 *
 * Context: process context, the connect worker.
 */
void xprtrdma_regq_create(struct xprtrdma_ep *ep)
{
	const struct ib_device_attr *attrs = &ep->device->attrs;
	struct ib_qp_init_attr init = {};
	/* A call's REG_MRs (its stage's among them), the end, a drain. */
	unsigned int depth = XPRTRDMA_MAX_MRS_PER_REQ + 3;
	/*
	 * With staging on, no remote invalidation is offered and every
	 * registered chunk needs a LOCAL_INV: room for every slot's chain at
	 * once, its staged key among them.  Otherwise they are rare and the
	 * queue is not grown for them (a few hundred KiB per connection).
	 */
	unsigned int invs = ep->stages ?
			    ep->xp->nr_reqs * XPRTRDMA_MAX_MRS_PER_REQ : 0;
	struct ib_cq *cq;
	struct ib_qp *qp;
	int ret;

	if (ep->device->ops.driver_id != RDMA_DRIVER_RXE)
		return;
	/* Flushed, every work request completes: the CQ holds them all. */
	ep->regq_inv = invs && depth + invs <= attrs->max_qp_wr &&
		       depth + invs + 1 <= attrs->max_cqe;
	if (ep->regq_inv)
		depth += invs;
	cq = ib_alloc_cq_any(ep->device, ep, depth + 1, IB_POLL_SOFTIRQ);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto out_warn;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	init.qp_type = IB_QPT_RC;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.cap.max_send_wr = depth;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_wr = 1;
	init.cap.max_recv_sge = 1;
	qp = ib_create_qp(ep->pd, &init);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto out_free_cq;
	}
	ep->regq = qp;
	ret = xprtrdma_regq_ready(ep);
	if (ret)
		goto out_destroy_qp;
	ep->regq_cq = cq;
	init_completion(&ep->regq_done);
	ep->regq_cqe.done = xprtrdma_regq_done;
	return;

out_destroy_qp:
	ep->regq = NULL;
	ib_destroy_qp(qp);
out_free_cq:
	ib_free_cq(cq);
out_warn:
	ep->regq_inv = false;
	pr_warn_ratelimited("xprtrdma: no registration QP for %s (%d); registering behind a fence\n",
			    ep->xp->xprt.address_strings[RPC_DISPLAY_ADDR], ret);
}

/**
 * xprtrdma_regq_retire - post nothing more on the registration QP
 * @ep: connection that failed, is fenced, or whose chain went wrong
 *
 * Moves the QP to Error, so what was posted and has not executed is
 * flushed rather than run after the caller has moved on.
 *
 * Context: process context; takes @ep->regq_lock, so the QP cannot be
 * destroyed under it by a teardown running meanwhile.
 */
void xprtrdma_regq_retire(struct xprtrdma_ep *ep)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	WRITE_ONCE(ep->regq_dead, true);
	mutex_lock(&ep->regq_lock);
	if (ep->regq)
		ib_modify_qp(ep->regq, &attr, IB_QP_STATE);
	mutex_unlock(&ep->regq_lock);
}

/**
 * xprtrdma_regq_destroy - free a connection's registration QP
 * @ep: connection being torn down
 *
 * Waits for a chain still outstanding (a REG_MR chain whose wait timed
 * out, a LOCAL_INV chain a request still waits for) to complete or flush,
 * so no completion can reach a freed @ep.  The QP is taken away under
 * @ep->regq_lock first: from then on a request fencing its MRs finds none
 * to retire or post on, and the drain moves it to Error anyway.
 *
 * Context: process context, may sleep; under XPRT_LOCKED or from the
 * transport's destructor, so no REG_MR chain is being posted.
 */
void xprtrdma_regq_destroy(struct xprtrdma_ep *ep)
{
	struct ib_qp *qp;

	mutex_lock(&ep->regq_lock);
	qp = ep->regq;
	ep->regq = NULL;
	mutex_unlock(&ep->regq_lock);
	if (!qp)
		return;
	ib_drain_sq(qp);
	ib_destroy_qp(qp);
	ib_free_cq(ep->regq_cq);
	ep->regq_cq = NULL;
}

/**
 * xprtrdma_regq_post - register a call's chunks on the registration QP
 * @ep: connection with a registration QP
 * @regs: first REG_MR of the chain
 * @last: last REG_MR of the chain
 * @bad: on error, the first WR that was not posted (none after it was), or
 *	NULL when any of them may have executed
 *
 * Posts the chain with a signaled no-op (a LOCAL_INV of the fence MR,
 * never registered) behind it and waits until it has completed, so
 * every key is valid before the call's Send can carry it.  On any
 * failure the registration QP is retired (xprtrdma_regq_retire()).
 *
 * Context: process context, under XPRT_LOCKED (one chain at a time, so
 * one completion per connection is enough) and the request's mr_mutex.
 * Sleeps for the completion, at most XPRTRDMA_REGQ_WAIT.
 *
 * Return: 0 when every key is registered; a negative errno otherwise,
 * after which the connection must be closed.
 */
int xprtrdma_regq_post(struct xprtrdma_ep *ep, struct ib_send_wr *regs,
		       struct ib_send_wr *last, const struct ib_send_wr **bad)
{
	struct ib_send_wr *wr = &ep->regq_wr;
	int ret;

	*bad = NULL;
	if (READ_ONCE(ep->regq_dead)) {
		*bad = regs;
		return -ENOTCONN;
	}
	memset(wr, 0, sizeof(*wr));
	wr->opcode = IB_WR_LOCAL_INV;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->wr_cqe = &ep->regq_cqe;
	wr->ex.invalidate_rkey = ep->fence_mr->rkey;
	last->next = wr;
	reinit_completion(&ep->regq_done);
	ret = ib_post_send(ep->regq, regs, bad);
	if (ret) {
		/* What went in has no signaled end: flush what has not run. */
		xprtrdma_regq_retire(ep);
		/* A refused end leaves every REG_MR posted. */
		if (*bad == wr)
			*bad = NULL;
		return ret;
	}
	if (!wait_for_completion_timeout(&ep->regq_done, XPRTRDMA_REGQ_WAIT)) {
		/* A late completion must not end a later chain's wait. */
		xprtrdma_regq_retire(ep);
		pr_warn_ratelimited("xprtrdma: registration for %s did not complete; reconnecting\n",
				    ep->xp->xprt.address_strings[RPC_DISPLAY_ADDR]);
		return -ETIMEDOUT;
	}
	if (READ_ONCE(ep->regq_status) != IB_WC_SUCCESS) {
		xprtrdma_regq_retire(ep);
		return -EIO;
	}
	return 0;
}

static struct xprtrdma_mr *xprtrdma_mr_take(struct xprtrdma_ep *ep)
{
	struct xprtrdma_mr *mr;

	spin_lock(&ep->mr_lock);
	mr = list_first_entry_or_null(&ep->mr_free, struct xprtrdma_mr, list);
	if (mr)
		list_del_init(&mr->list);
	spin_unlock(&ep->mr_lock);
	return mr;
}

/*
 * An idle MR, growing the pool when none is left.  The pool starts at
 * what typical calls need (a data chunk and a Reply chunk per slot), but
 * a run of calls that each need more (a Reply chunk of head, pages and
 * tail is three MRs without SG_GAPS) would otherwise leave senders
 * waiting for MRs that only come back as other calls complete.  The
 * sender may be writing back pages for memory reclaim, so the allocation
 * must not recurse into I/O; if it fails, the call is deferred as before.
 */
static struct xprtrdma_mr *xprtrdma_mr_get(struct xprtrdma_ep *ep)
{
	struct xprtrdma_mr *mr;
	unsigned int noio;

	mr = xprtrdma_mr_take(ep);
	if (mr || READ_ONCE(ep->nr_mrs) >= ep->mr_cap)
		return mr;
	/*
	 * Growing is an optimisation: never wait for memory with
	 * XPRT_LOCKED held (rpciod must not block, and the pages that
	 * reclaim wants cleaned may need this transport), and never
	 * spend the PF_MEMALLOC reserves of a swap transport on it.
	 */
	if (current->flags & PF_MEMALLOC)
		return NULL;
	noio = memalloc_noio_save();
	xprtrdma_mr_pool_add(ep, XPRTRDMA_MAX_MRS_PER_REQ,
			     GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	memalloc_noio_restore(noio);
	return xprtrdma_mr_take(ep);
}

static void xprtrdma_mr_put(struct xprtrdma_mr *mr)
{
	struct xprtrdma_ep *ep = mr->ep;

	if (mr->mapped) {
		ib_dma_unmap_sg(ep->device, mr->sg, mr->nents, mr->dir);
		mr->mapped = false;
	}
	mr->req = NULL;
	spin_lock(&ep->mr_lock);
	list_add(&mr->list, &ep->mr_free);
	spin_unlock(&ep->mr_lock);
	atomic_long_inc(&ep->xp->stats.mrs_recycled);
}

/**
 * xprtrdma_xdr_piece - find the piece of an xdr_buf at a byte position
 * @xdr: buffer whose head, pages and tail form one byte stream
 * @pos: byte position in that stream
 * @left: most bytes wanted
 * @page: the page holding byte @pos
 * @off: offset of byte @pos in @page
 * @len: bytes from there to the end of the page, of the buffer's part
 *	(head, pages or tail) or of @left, whichever comes first
 *
 * Head and tail are kmalloc memory, so virt_to_page() is valid for them.
 * Registration (xprtrdma_register_xdr()) and staging (stage.c) both walk
 * an xdr_buf with it, so a staged chunk's bytes go exactly where a
 * registered chunk's would.
 *
 * Context: any.
 *
 * Return: false if @pos is beyond the buffer or its page is missing.
 */
bool xprtrdma_xdr_piece(const struct xdr_buf *xdr, u32 pos, u32 left,
			struct page **page, u32 *off, u32 *len)
{
	const struct kvec *head = &xdr->head[0];
	const struct kvec *tail = &xdr->tail[0];
	void *base;
	u32 avail;

	if (pos < head->iov_len) {
		base = head->iov_base + pos;
		avail = head->iov_len - pos;
		goto out_virt;
	}
	pos -= head->iov_len;
	if (pos < xdr->page_len) {
		u32 p = xdr->page_base + pos;

		*page = xdr->pages[p >> PAGE_SHIFT];
		*off = offset_in_page(p);
		*len = min3((u32)PAGE_SIZE - *off, xdr->page_len - pos, left);
		return *page != NULL;
	}
	pos -= xdr->page_len;
	if (pos < tail->iov_len) {
		base = tail->iov_base + pos;
		avail = tail->iov_len - pos;
		goto out_virt;
	}
	return false;

out_virt:
	*page = virt_to_page(base);
	*off = offset_in_page(base);
	*len = min3((u32)PAGE_SIZE - *off, avail, left);
	return true;
}

/* Take an idle MR for @req, or NULL if none can be had (retry later). */
static struct xprtrdma_mr *xprtrdma_req_mr(struct xprtrdma_req *req,
					   struct xprtrdma_ep *ep)
{
	struct xprtrdma_mr *mr = xprtrdma_mr_get(ep);

	if (!mr)
		return NULL;
	mr->req = req;
	mr->invalidated = false;
	list_add_tail(&mr->list, &req->mrs);
	req->nr_mrs++;
	return mr;
}

/*
 * DMA map the @n entries of @mr->sg, load them into the MR under a fresh
 * key, chain its REG_MR onto @first..@last and describe it in @seg.
 */
static int xprtrdma_mr_chain(struct xprtrdma_mr *mr, int n, bool remote_write,
			     struct nfsrdma_wire_seg *seg,
			     struct ib_send_wr **first, struct ib_send_wr **last)
{
	struct xprtrdma_ep *ep = mr->ep;
	int mapped;

	sg_mark_end(&mr->sg[n - 1]);
	mr->dir = remote_write ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	mapped = ib_dma_map_sg(ep->device, mr->sg, n, mr->dir);
	if (!mapped)
		return -EIO;
	mr->nents = n;
	mr->mapped = true;
	if (ib_map_mr_sg(mr->mr, mr->sg, mapped, NULL, PAGE_SIZE) != mapped)
		return -EIO;

	/* A fresh key: a stale handle from a retired call must miss. */
	ib_update_fast_reg_key(mr->mr, ib_inc_rkey(mr->mr->rkey));

	memset(&mr->reg_wr, 0, sizeof(mr->reg_wr));
	mr->reg_wr.wr.opcode = IB_WR_REG_MR;
	mr->reg_wr.wr.wr_cqe = &mr->reg_cqe;
	mr->reg_wr.mr = mr->mr;
	mr->reg_wr.key = mr->mr->rkey;
	mr->reg_wr.access = remote_write ?
		IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE :
		IB_ACCESS_REMOTE_READ;
	if (*last)
		(*last)->next = &mr->reg_wr.wr;
	else
		*first = &mr->reg_wr.wr;
	*last = &mr->reg_wr.wr;

	seg->handle = mr->mr->rkey;
	seg->length = mr->mr->length;
	seg->offset = mr->mr->iova;
	return 0;
}

/**
 * xprtrdma_register_xdr - register a byte range of an xdr_buf as a chunk
 * @req: request the chunk belongs to; the MRs go on its list
 * @xdr: buffer whose head, pages and tail form one byte stream
 * @offset: first byte of the range in that stream
 * @length: bytes in the range
 * @remote_write: the server writes (Write/Reply chunk) rather than reads
 * @segs: where to store the resulting segments
 * @max_segs: room in @segs
 * @first: in/out head of the REG_MR chain
 * @last: in/out tail of the REG_MR chain
 *
 * One MR covers as many pages as are virtually contiguous, up to the
 * pool's depth; a discontinuity starts the next MR unless the MRs are of
 * type SG_GAPS.  The work requests are only built here; the caller posts
 * them ahead of the Send.
 *
 * Context: process context, under XPRT_LOCKED; may sleep briefly growing
 * the MR pool (no I/O, no retries).
 *
 * Return: the number of segments written, %-ENOBUFS if the MR pool is
 * empty and could not grow (retry later), %-E2BIG if @max_segs is too
 * small or the call would need more than XPRTRDMA_MAX_MRS_PER_REQ MRs, or
 * %-EIO.  On error the MRs taken so far stay on @req's list for the
 * caller to drop.
 */
int xprtrdma_register_xdr(struct xprtrdma_req *req, struct xdr_buf *xdr,
			  u32 offset, u32 length, bool remote_write,
			  struct nfsrdma_wire_seg *segs, unsigned int max_segs,
			  struct ib_send_wr **first, struct ib_send_wr **last)
{
	struct xprtrdma_ep *ep = req->xp->ep;
	unsigned int nsegs = 0;
	u32 pos = offset, left = length;
	int ret;

	while (left) {
		struct xprtrdma_mr *mr;
		bool aligned_end = true;
		int n = 0;

		if (nsegs == max_segs || req->nr_mrs == XPRTRDMA_MAX_MRS_PER_REQ)
			return -E2BIG;
		mr = xprtrdma_req_mr(req, ep);
		if (!mr)
			return -ENOBUFS;

		sg_init_table(mr->sg, ep->mr_depth);
		while (left && n < ep->mr_depth) {
			struct page *page;
			u32 off, len;

			if (!xprtrdma_xdr_piece(xdr, pos, left, &page, &off,
						&len))
				return -EIO;
			/* FRWR maps whole pages: gaps end the MR. */
			if (n && !ep->mr_gaps && (off || !aligned_end))
				break;
			/*
			 * The server may claim bytes it never wrote, and we
			 * cannot tell: whatever it left alone must read as
			 * zeros, not as what this memory held before (stale
			 * heap or page cache reaching user space through a
			 * READ, READLINK or GETACL).  Every transmission
			 * zeroes what it registers, because a retransmission
			 * may register memory an earlier one did not (a Reply
			 * chunk after a reconnect lowered the inline size).
			 * That cannot wipe a reply: the reply handler places
			 * and completes under @mr_mutex, which
			 * xprtrdma_post_call() holds here and under which it
			 * sends nothing for a call already complete.
			 */
			if (remote_write)
				memzero_page(page, off, len);
			sg_set_page(&mr->sg[n], page, len, off);
			aligned_end = off + len == PAGE_SIZE;
			n++;
			pos += len;
			left -= len;
		}
		ret = xprtrdma_mr_chain(mr, n, remote_write, &segs[nsegs],
					first, last);
		if (ret)
			return ret;
		nsegs++;
	}
	return nsegs;
}

/**
 * xprtrdma_register_pad - offer room for a Write chunk's XDR pad
 * @req: request whose Write chunk ends @pad bytes short of an XDR word
 * @pad: 1 to 3
 * @seg: where to store the segment
 * @first: in/out head of the REG_MR chain
 * @last: in/out tail of the REG_MR chain
 *
 * RFC 8166 section 3.4.6 says a responder does not write the XDR pad of
 * a data item into a Write chunk, but servers built to RFC 5666 may, and
 * an RDMA Write past the chunk's end breaks the connection (and would
 * again after every reconnect).  The extra segment points at
 * @req->write_pad, scratch memory no one reads, so a pad written there
 * never lands in the caller's pages (user memory for O_DIRECT).
 *
 * Context: process context, under XPRT_LOCKED; may sleep briefly growing
 * the MR pool.
 *
 * Return: 0, %-ENOBUFS if no MR is free and the pool could not grow
 * (retry later), %-E2BIG if the call already has all the MRs it may
 * have, or %-EIO.
 */
int xprtrdma_register_pad(struct xprtrdma_req *req, u32 pad,
			  struct nfsrdma_wire_seg *seg,
			  struct ib_send_wr **first, struct ib_send_wr **last)
{
	struct xprtrdma_mr *mr;

	if (req->nr_mrs == XPRTRDMA_MAX_MRS_PER_REQ)
		return -E2BIG;
	mr = xprtrdma_req_mr(req, req->xp->ep);
	if (!mr)
		return -ENOBUFS;
	sg_init_table(mr->sg, 1);
	sg_set_buf(&mr->sg[0], req->write_pad, pad);
	return xprtrdma_mr_chain(mr, 1, true, seg, first, last);
}

/**
 * xprtrdma_mrs_drop - return a request's MRs to the pool without fencing
 * @req: request whose MRs were never posted, or whose QP is drained
 *
 * Also forgets its stage (xprtrdma_stage_drop()) and retires the chunk
 * offers made with them.
 *
 * Context: process context; the caller guarantees no work request that
 * uses these MRs can still execute.
 */
void xprtrdma_mrs_drop(struct xprtrdma_req *req)
{
	struct xprtrdma_mr *mr, *tmp;

	list_for_each_entry_safe(mr, tmp, &req->mrs, list) {
		list_del_init(&mr->list);
		xprtrdma_mr_put(mr);
	}
	xprtrdma_stage_drop(req);
	req->nr_mrs = 0;
	/*
	 * The offers name these MRs: once they are gone no reply may claim
	 * data through them, not even one that arrives for this slot's XID
	 * before its next transmission is marshalled.
	 */
	req->write_offered = 0;
	req->reply_offered = 0;
	req->nr_offered = 0;
}

/*
 * Post a request's LOCAL_INV chain.  rxe runs a LOCAL_INV only once every
 * work request ahead of it has completed, so on the connection's QP the
 * chain would wait for the acknowledgement of every Send in flight, other
 * calls' included, and the reply that needs it with it.  The registration
 * QP holds only local work requests, and keys belong to the PD, so the
 * chain goes there when it has room for every slot's chain at once
 * (xprtrdma_regq_create()), and once @req's Send has completed: REG_MRs
 * chained in front of it on the connection's QP must have run first, and
 * the two QPs are not ordered (a task that leaves without its reply may
 * get here with its Send outstanding).  @ep->regq_lock keeps the QP from
 * being torn down under the post.  Returns the post's result; *@on_regq
 * says where the chain went.
 */
static int xprtrdma_inv_post(struct xprtrdma_ep *ep, struct xprtrdma_req *req,
			     struct ib_send_wr *first,
			     const struct ib_send_wr **bad, bool *on_regq)
{
	int ret = 0;

	*on_regq = false;
	if (ep->regq_inv && !READ_ONCE(ep->regq_dead) &&
	    !test_bit(XPRTRDMA_SEND_BUSY, &req->sc.flags)) {
		mutex_lock(&ep->regq_lock);
		if (ep->regq && !READ_ONCE(ep->regq_dead)) {
			ret = ib_post_send(ep->regq, first, bad);
			*on_regq = true;
		}
		mutex_unlock(&ep->regq_lock);
		if (*on_regq)
			return ret;
	}
	return ib_post_send(ep->cm_id->qp, first, bad);
}

/*
 * Wait for the request's LOCAL_INV chain.  On the connection's QP it
 * completes only after every earlier work request, so a server that stops
 * acknowledging (unlimited RNR retries, no receives posted) would hold
 * it, and the task waiting here, for ever: even a task already killed,
 * since the MRs must be fenced before its memory is freed.  Once the
 * connection has made no progress for XPRTRDMA_INV_TIMEOUT (a slow but
 * moving queue may hold the chain longer), or the chain has waited
 * XPRTRDMA_INV_MAX_WAIT in all, the QP is moved to Error, which fences
 * every MR and flushes the chain, and the connection is dropped.
 */
static void xprtrdma_inv_wait(struct xprtrdma_req *req, struct xprtrdma_ep *ep)
{
	unsigned long deadline = jiffies + XPRTRDMA_INV_MAX_WAIT;
	struct xprtrdma_xprt *xp = req->xp;
	long left = XPRTRDMA_INV_TIMEOUT;
	unsigned long idle;

	while (!wait_for_completion_timeout(&req->inv_done, left)) {
		if (time_after_eq(jiffies, deadline)) {
			pr_warn_ratelimited("xprtrdma: %s has not let our invalidation through in %u s, dropping the connection\n",
					    xp->xprt.address_strings[RPC_DISPLAY_ADDR],
					    XPRTRDMA_INV_MAX_WAIT / HZ);
			goto fence;
		}
		/* Sleep only until the connection would have been idle long enough. */
		idle = xprtrdma_ep_idle(ep);
		if (idle >= XPRTRDMA_INV_TIMEOUT) {
			pr_warn_ratelimited("xprtrdma: %s acknowledged nothing for %u s, dropping the connection\n",
					    xp->xprt.address_strings[RPC_DISPLAY_ADDR],
					    XPRTRDMA_INV_TIMEOUT / HZ);
			goto fence;
		}
		left = XPRTRDMA_INV_TIMEOUT - idle;
		/* ... and no later than the deadline (which is still ahead). */
		left = min_t(long, left, max_t(long, 1, (long)(deadline - jiffies)));
	}
	return;

fence:
	xprtrdma_qp_fence(ep);
	xprt_force_disconnect(&xp->xprt);
	wait_for_completion(&req->inv_done);
}

/**
 * xprtrdma_invalidate - fence a request's chunks before the RPC completes
 * @req: request with registered MRs or a staged chunk
 * @remote: the server invalidated one rkey with Send With Invalidate
 * @remote_rkey: that rkey, meaningful only if @remote
 * @keep_stage: the transmission ended cleanly, so a staged key may stay
 *	valid for the slot's next call (see stage.c)
 *
 * Posts one LOCAL_INV per MR the server did not already invalidate, and
 * one for the staged key if it must be retired, and waits for the chain
 * (until the connection has made no progress for XPRTRDMA_INV_TIMEOUT, at
 * most XPRTRDMA_INV_MAX_WAIT, before the QP is fenced); then DMA-unmaps
 * the MRs (making RDMA-written data visible to the CPU), returns them to
 * the pool and retires the request's offers.
 *
 * Context: process context, may sleep; caller holds @req->mr_mutex, which
 * keeps the connection's MRs and QP from being freed underneath (its
 * registration QP is taken away under @ep->regq_lock, see
 * xprtrdma_inv_post()).
 *
 * Return: false if @remote named an rkey that none of @req's chunks holds
 * (the server invalidated something this call did not offer), else true.
 */
bool xprtrdma_invalidate(struct xprtrdma_req *req, bool remote, u32 remote_rkey,
			 bool keep_stage)
{
	struct xprtrdma_xprt *xp = req->xp;
	struct ib_send_wr *first = NULL, *last = NULL, *stage_inv;
	const struct ib_send_wr *bad;
	struct xprtrdma_mr *mr, *tail = NULL;
	struct xprtrdma_ep *ep = req->stage ? req->stage->ep : NULL;
	bool ours = !remote, chain_completed = true, on_regq;
	int ret;

	list_for_each_entry(mr, &req->mrs, list) {
		ep = mr->ep;
		if (remote && mr->mr->rkey == remote_rkey) {
			mr->invalidated = true;
			ours = true;
			continue;
		}
		memset(&mr->inv_wr, 0, sizeof(mr->inv_wr));
		mr->inv_wr.opcode = IB_WR_LOCAL_INV;
		mr->inv_wr.wr_cqe = &mr->inv_cqe;
		mr->inv_wr.ex.invalidate_rkey = mr->mr->rkey;
		mr->signaled = false;
		if (last)
			last->next = &mr->inv_wr;
		else
			first = &mr->inv_wr;
		last = &mr->inv_wr;
		tail = mr;
		atomic_long_inc(&xp->stats.local_invs);
	}
	/* The staged key, if it goes, ends the chain. */
	stage_inv = xprtrdma_stage_retire(req, remote, remote_rkey, keep_stage,
					  &ours);
	if (stage_inv) {
		if (last)
			last->next = stage_inv;
		else
			first = stage_inv;
		last = stage_inv;
		atomic_long_inc(&xp->stats.local_invs);
	}

	if (!last)
		goto out_drop;
	if (!READ_ONCE(ep->draining)) {
		if (stage_inv)
			req->stage->signaled = true;
		else
			tail->signaled = true;
		last->send_flags = IB_SEND_SIGNALED;
		reinit_completion(&req->inv_done);
		ret = xprtrdma_inv_post(ep, req, first, &bad, &on_regq);
		if (!ret) {
			xprtrdma_inv_wait(req, ep);
			/*
			 * Retired meanwhile: the chain may have flushed and
			 * left keys valid, so the connection's QP is fenced
			 * before they go back to the pool (see frwr.c).
			 */
			if (!on_regq || !READ_ONCE(ep->regq_dead))
				goto out_drop;
		} else {
			pr_warn_ratelimited("xprtrdma: LOCAL_INV to %s could not be posted (%d)\n",
					    xp->xprt.address_strings[RPC_DISPLAY_ADDR],
					    ret);
			xprt_force_disconnect(&xp->xprt);
		}
	}
	xprtrdma_qp_fence(ep);
	chain_completed = false;
out_drop:
	xprtrdma_stage_retired(req, chain_completed);
	xprtrdma_mrs_drop(req);
	return ours;
}

/**
 * xprtrdma_qp_fence - cut the server off from every MR of a connection
 * @ep: connection whose rkeys cannot be invalidated one by one
 *
 * When LOCAL_INV cannot be posted (the connection is failing or being torn
 * down), the server may still hold valid rkeys for pages the upper layer is
 * about to reuse.  A QP in the Error state answers no further RDMA Read or
 * Write, so moving it there (idempotent, and what teardown does anyway)
 * fences every MR at once and makes it safe to unmap and recycle them.
 *
 * Context: process context; the caller keeps @ep alive (holds the
 * request's mr_mutex, or is the teardown path itself).
 */
void xprtrdma_qp_fence(struct xprtrdma_ep *ep)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	bool logged;
	int ret;

	/*
	 * Every caller has said why it fences: the flushes that follow are
	 * ours, not news about the peer (see xprtrdma_wr_failed()).
	 */
	logged = test_and_set_bit(XPRTRDMA_EP_FLUSHED, &ep->flags);
	xprtrdma_regq_retire(ep);
	ret = ib_modify_qp(ep->cm_id->qp, &attr, IB_QP_STATE);
	if (ret) {
		if (!logged)
			clear_bit(XPRTRDMA_EP_FLUSHED, &ep->flags);
		pr_warn_ratelimited("xprtrdma: cannot move QP %u to Error (%d)\n",
				    ep->cm_id->qp->qp_num, ret);
	}
}
