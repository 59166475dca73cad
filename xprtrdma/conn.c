// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: connection management on RDMA-CM.
 *
 * The connect worker builds a whole connection synchronously: it steps
 * RDMA-CM through address and route resolution and the connect exchange,
 * waiting for the CM handler to report each step.  After ESTABLISHED the
 * CM handler only reports that the connection went away; the teardown
 * itself always runs in ->close (xprt_autoclose, under XPRT_LOCKED), never
 * in a CM callback, because a cm_id must not be destroyed from its own
 * handler.
 */

#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/xprt.h>
#include <nfsrdma/rc.h>

#include "xprtrdma.h"
#include "trace.h"

/*
 * RDMA has no keepalive of its own: a server that vanishes without a
 * Disconnect leaves an idle connection up forever, and the mount notices
 * only when an RPC times out.  A zero-length RDMA Write needs no buffer
 * or rkey at the server but must be acknowledged, so a dead peer shows up
 * as a failed completion within the transport's retry time.
 */
static unsigned int xprtrdma_keepalive = 30;
module_param_named(keepalive, xprtrdma_keepalive, uint, 0644);
MODULE_PARM_DESC(keepalive,
		 "Seconds between zero-length RDMA Write probes of each connection (0: none)");

/* How long our QP, and the server's, wait for an ACK: include/nfsrdma/rc.h. */
static unsigned int xprtrdma_ack_timeout = NFSRDMA_ACK_TIMEOUT_DEFAULT;
module_param_named(ack_timeout, xprtrdma_ack_timeout, uint, 0644);
MODULE_PARM_DESC(ack_timeout,
		 "RC ACK timeout of new connections, 4.096 us * 2^value (0: rdma_cm's, up to 31, default 16: about 268 ms)");

/* Every live connection, for the device-removal client. */
static LIST_HEAD(xprtrdma_eps);
static DEFINE_SPINLOCK(xprtrdma_eps_lock);
static DECLARE_WAIT_QUEUE_HEAD(xprtrdma_eps_wait);

static const char *xprtrdma_peer(struct xprtrdma_ep *ep)
{
	return ep->xp->xprt.address_strings[RPC_DISPLAY_ADDR];
}

/* Connection setup steps end here, successful or not. */
static void xprtrdma_cm_step_done(struct xprtrdma_ep *ep, int status)
{
	ep->cm_status = status;
	complete(&ep->cm_done);
}

static int xprtrdma_cm_handler(struct rdma_cm_id *id,
			       struct rdma_cm_event *event)
{
	struct xprtrdma_ep *ep = id->context;

	trace_xprtrdma_cm_event(ep->xp, event);
	switch (event->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		xprtrdma_cm_step_done(ep, 0);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		xprtrdma_cm_step_done(ep, -EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		xprtrdma_cm_step_done(ep, -ENETUNREACH);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		/* Bad or absent private data leaves the RFC 8797 defaults. */
		nfsrdma_wire_decode_cm_pdata(&ep->peer,
					     event->param.conn.private_data,
					     event->param.conn.private_data_len);
		set_bit(XPRTRDMA_EP_ESTABLISHED, &ep->flags);
		xprtrdma_cm_step_done(ep, 0);
		break;
	case RDMA_CM_EVENT_REJECTED:
		pr_info_ratelimited("xprtrdma: %s rejected the connection: %s\n",
				    xprtrdma_peer(ep),
				    rdma_reject_msg(id, event->status));
		xprtrdma_cm_step_done(ep, -ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		xprtrdma_cm_step_done(ep, -ENETUNREACH);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		xprtrdma_cm_step_done(ep, -ENOTCONN);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		/* Whoever clears the bit first, we or ->close, acts on it. */
		if (test_and_clear_bit(XPRTRDMA_EP_ESTABLISHED, &ep->flags)) {
			trace_xprtrdma_disconnect(ep->xp,
						  rdma_event_msg(event->event),
						  event->status);
			xprt_force_disconnect(&ep->xp->xprt);
		} else {
			xprtrdma_cm_step_done(ep, -ENOTCONN);
		}
		break;
	default:
		break;
	}
	/* Non-zero would make the CM destroy the id behind our back. */
	return 0;
}

static void xprtrdma_qp_event(struct ib_event *event, void *context)
{
	struct xprtrdma_ep *ep = context;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_QP_LAST_WQE_REACHED:
		break;
	default:
		pr_warn_ratelimited("xprtrdma: QP event %s for %s\n",
				    ib_event_msg(event->event),
				    xprtrdma_peer(ep));
		/* Providers may report QP events from atomic context. */
		xprtrdma_force_disconnect(ep->xp);
		break;
	}
}

/**
 * xprtrdma_wr_failed - report a failed work request and break the connection
 * @ep: connection the work request was posted on
 * @what: which kind of work request, for the log
 * @wc: its completion
 *
 * Every failed completion is traced.  The first error names the peer and
 * the reason in the log; the flushes that follow it (the QP has left RTS,
 * so every outstanding work request completes with IB_WC_WR_FLUSH_ERR)
 * are logged once per connection, unless our own teardown or fence
 * (xprtrdma_qp_fence(), whose caller logs why) caused them.
 * The connection is then closed (unless a disconnect was already acted
 * on), and the RPC client reconnects and retransmits.
 *
 * Context: any (completion handlers run in softirq or a workqueue).
 */
void xprtrdma_wr_failed(struct xprtrdma_ep *ep, const char *what,
			struct ib_wc *wc)
{
	struct xprtrdma_xprt *xp = ep->xp;

	trace_xprtrdma_wc_error(xp, what, wc);
	/*
	 * LOCAL_INVs flushed from here on leave their MRs valid: they must
	 * not reach the registration QP, where a REG_MR of them would run.
	 */
	WRITE_ONCE(ep->regq_dead, true);
	if (READ_ONCE(ep->draining))
		return;
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_warn_ratelimited("xprtrdma: %s for %s failed: %s (status %d, vendor error %u); reconnecting\n",
				    what, xprtrdma_peer(ep),
				    ib_wc_status_msg(wc->status), wc->status,
				    wc->vendor_err);
	else if (!test_and_set_bit(XPRTRDMA_EP_FLUSHED, &ep->flags))
		pr_warn_ratelimited("xprtrdma: connection to %s left RTS: %s flushed; reconnecting\n",
				    xprtrdma_peer(ep), what);
	/*
	 * Once the CM handler has seen the disconnect it has closed the
	 * transport itself; a second close, deferred, could hit the next
	 * connection.
	 */
	if (test_bit(XPRTRDMA_EP_ESTABLISHED, &ep->flags))
		xprtrdma_force_disconnect(xp);
}

/**
 * xprtrdma_post_wire - post a chain that ends in a packet-carrying work request
 * @ep: connection whose QP takes the chain
 * @first: the chain; its last work request is a Send or the keepalive probe
 * @bad: where the provider reports the first work request it refused, or NULL
 *
 * @ep->sends_out decides whether a call's REG_MR chain may skip the
 * registration QP on rxe (see frwr.c), so it is raised before the post:
 * the completion that lowers it may run before ib_post_send() returns.
 * A refused post put nothing of the chain's final work request on the
 * wire, so the count drops back.
 *
 * Context: any; the caller holds @ep->post_lock, which orders the raise
 * against an idle check made under the same lock.
 *
 * Return: 0 once posted, or the provider's error.
 */
int xprtrdma_post_wire(struct xprtrdma_ep *ep, const struct ib_send_wr *first,
		       const struct ib_send_wr **bad)
{
	int ret;

	lockdep_assert_held(&ep->post_lock);
	atomic_inc(&ep->sends_out);
	ret = ib_post_send(ep->cm_id->qp, first, bad);
	if (ret)
		atomic_dec(&ep->sends_out);
	return ret;
}

static void xprtrdma_ka_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xprtrdma_ep *ep =
		container_of(wc->wr_cqe, struct xprtrdma_ep, ka_cqe);

	atomic_dec(&ep->sends_out);
	if (wc->status == IB_WC_SUCCESS || wc->status == IB_WC_WR_FLUSH_ERR ||
	    READ_ONCE(ep->draining)) {
		/*
		 * A probe's completion is not progress: it queues behind any
		 * stalled Send, so completing while an older Send is still
		 * busy means the provider lost that Send's completion, the
		 * very stall xprtrdma_send_stalled() must see.
		 */
		if (wc->status != IB_WC_SUCCESS)
			xprtrdma_wr_failed(ep, "keepalive probe", wc);
	} else {
		/* The probe's own verdict, in the words admins look for. */
		trace_xprtrdma_wc_error(ep->xp, "keepalive probe", wc);
		pr_info_ratelimited("xprtrdma: %s stopped answering (%s); reconnecting\n",
				    xprtrdma_peer(ep),
				    ib_wc_status_msg(wc->status));
		xprtrdma_force_disconnect(ep->xp);
	}
	clear_bit(XPRTRDMA_EP_KA_BUSY, &ep->flags);
}

/*
 * Has a call's Send been waiting for its completion longer than any live
 * peer could take?  A probe queues behind such a Send (RC keeps order), so
 * only the age of the oldest Send shows a send queue that stopped moving:
 * a provider that lost track of it, or a server that never reposts its
 * receives while we retry RNR forever.  But an old Send alone is not
 * enough: on a slow fabric with a deep queue (soft-iWARP carries the
 * server's RDMA Reads of our Read chunks on the same TCP stream as our
 * Sends) a Send can wait long behind traffic that is moving.  So the
 * connection must also have made no progress at all for as long.
 */
static bool xprtrdma_send_stalled(struct xprtrdma_ep *ep)
{
	struct xprtrdma_xprt *xp = ep->xp;
	unsigned int i;

	if (!xprtrdma_ep_idle_for(ep, XPRTRDMA_SEND_STALL_SECS * HZ))
		return false;

	for (i = 0; i < xp->nr_reqs; i++) {
		struct xprtrdma_sendctx *sc = &xp->reqs[i].sc;

		if (!test_bit(XPRTRDMA_SEND_BUSY, &sc->flags))
			continue;
		/* Pairs with the barrier before the bit is set. */
		smp_rmb();
		if (READ_ONCE(sc->ep) == ep &&
		    time_after(jiffies, READ_ONCE(sc->posted) +
			       XPRTRDMA_SEND_STALL_SECS * HZ))
			return true;
	}
	return false;
}

static void xprtrdma_ka_work(struct work_struct *work)
{
	struct xprtrdma_ep *ep = container_of(to_delayed_work(work),
					      struct xprtrdma_ep, ka_work);
	unsigned int secs = READ_ONCE(xprtrdma_keepalive);
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_RDMA_WRITE,
			.wr_cqe = &ep->ka_cqe,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	unsigned long flags;
	int ret = 0;

	if (xprtrdma_send_stalled(ep)) {
		pr_warn_ratelimited("xprtrdma: a Send to %s has not completed in %u s, nor anything else; reconnecting\n",
				    xprtrdma_peer(ep), XPRTRDMA_SEND_STALL_SECS);
		/*
		 * A sender may be waiting, holding XPRT_LOCKED, for that very
		 * Send's completion (a retransmission reusing its slot), and
		 * the transport cannot close while the lock is held.  In the
		 * Error state the QP flushes the Send, which frees the sender;
		 * ep_free cancels this work before the QP goes away.
		 */
		xprtrdma_qp_fence(ep);
		xprtrdma_force_disconnect(ep->xp);
		return;
	}
	/* One probe at a time: a probe still in flight proves nothing yet. */
	if (secs && !test_and_set_bit(XPRTRDMA_EP_KA_BUSY, &ep->flags)) {
		spin_lock_irqsave(&ep->post_lock, flags);
		ret = -ESHUTDOWN;
		if (!ep->draining)
			ret = xprtrdma_post_wire(ep, &wr.wr, NULL);
		spin_unlock_irqrestore(&ep->post_lock, flags);
		if (ret) {
			clear_bit(XPRTRDMA_EP_KA_BUSY, &ep->flags);
			if (ret != -ESHUTDOWN)
				xprtrdma_force_disconnect(ep->xp);
			return;
		}
	}
	queue_delayed_work(system_wq, &ep->ka_work, (secs ?: 30) * HZ);
}

/* Wait for the CM handler to finish one setup step. */
static int xprtrdma_cm_wait(struct xprtrdma_ep *ep, unsigned int ms)
{
	/* Margin over the CM's own timeout, which reports an error event. */
	if (!wait_for_completion_timeout(&ep->cm_done,
					 msecs_to_jiffies(ms + 1000)))
		return -ETIMEDOUT;
	return ep->cm_status;
}

/**
 * xprtrdma_post_recv - post one receive buffer
 * @rep: receive to post
 *
 * Context: any.  Refused once teardown has started, so that nothing is
 * posted behind the drain marker.
 *
 * Return: 0, %-ESHUTDOWN during teardown, or the provider's error.
 */
int xprtrdma_post_recv(struct xprtrdma_rep *rep)
{
	struct xprtrdma_ep *ep = rep->ep;
	unsigned long flags;
	int ret = -ESHUTDOWN;

	spin_lock_irqsave(&ep->post_lock, flags);
	if (!ep->draining)
		ret = ib_post_recv(ep->cm_id->qp, &rep->wr, NULL);
	spin_unlock_irqrestore(&ep->post_lock, flags);
	return ret;
}

static void xprtrdma_reps_free(struct xprtrdma_ep *ep)
{
	unsigned int i;

	for (i = 0; i < ep->nr_reps; i++) {
		struct xprtrdma_rep *rep = &ep->reps[i];

		ib_dma_unmap_single(ep->device, rep->dma, ep->xp->inline_recv,
				    DMA_FROM_DEVICE);
		kfree(rep->buf);
	}
	kfree(ep->reps);
	ep->reps = NULL;
	ep->nr_reps = 0;
}

static int xprtrdma_reps_create(struct xprtrdma_ep *ep, unsigned int count)
{
	u32 size = ep->xp->inline_recv;
	unsigned int i;

	ep->reps = kcalloc(count, sizeof(*ep->reps), GFP_KERNEL);
	if (!ep->reps)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		struct xprtrdma_rep *rep = &ep->reps[i];

		rep->buf = kmalloc(size, GFP_KERNEL);
		if (!rep->buf)
			goto out_free;
		rep->dma = ib_dma_map_single(ep->device, rep->buf, size,
					     DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ep->device, rep->dma)) {
			kfree(rep->buf);
			goto out_free;
		}
		rep->ep = ep;
		rep->cqe.done = xprtrdma_recv_done;
		rep->sge.addr = rep->dma;
		rep->sge.length = size;
		rep->sge.lkey = ep->pd->local_dma_lkey;
		rep->wr.wr_cqe = &rep->cqe;
		rep->wr.sg_list = &rep->sge;
		rep->wr.num_sge = 1;
		ep->nr_reps++;
	}
	return 0;

out_free:
	xprtrdma_reps_free(ep);
	return -ENOMEM;
}

/*
 * After the QP and the send CQ are gone: a Send the provider never
 * completed would keep its call from being retransmitted on the next
 * connection (see xprtrdma_sendctx_reap()).
 */
static void xprtrdma_reap_sends(struct xprtrdma_ep *ep)
{
	struct xprtrdma_xprt *xp = ep->xp;
	struct xprtrdma_bc *bc;
	unsigned int i, lost = 0;

	for (i = 0; i < xp->nr_reqs; i++)
		lost += xprtrdma_sendctx_reap(&xp->reqs[i].sc, ep);
	spin_lock(&xp->bc_lock);
	list_for_each_entry(bc, &xp->bc_all, all)
		lost += xprtrdma_sendctx_reap(&bc->sc, ep);
	spin_unlock(&xp->bc_lock);
	if (lost)
		pr_warn_ratelimited("xprtrdma: %u Send(s) to %s never completed on the old connection; released\n",
				    lost, xprtrdma_peer(ep));
}

/*
 * Release everything an ep holds, in reverse order of creation.  Safe on
 * a partially built ep: each step checks whether it was reached.
 */
static void xprtrdma_ep_free(struct xprtrdma_ep *ep)
{
	struct xprtrdma_xprt *xp = ep->xp;
	unsigned long flags;
	unsigned int i;

	/* Before the drain: the probe must not be posted behind its marker. */
	cancel_delayed_work_sync(&ep->ka_work);
	if (ep->cm_id->qp) {
		/*
		 * Draining from here on: rdma_disconnect() moves the QP to
		 * Error, and the flushes it causes are ours, not news.
		 */
		spin_lock_irqsave(&ep->post_lock, flags);
		ep->draining = true;
		spin_unlock_irqrestore(&ep->post_lock, flags);
		if (test_and_clear_bit(XPRTRDMA_EP_ESTABLISHED, &ep->flags))
			rdma_disconnect(ep->cm_id);
		/*
		 * Every posted WR completes (or flushes) before these
		 * return.  In between, a Send still outstanding is taken
		 * as lost: a reply handled from here on that would wait
		 * for it is dropped instead (one already waiting runs its
		 * bounded wait out).
		 */
		ib_drain_sq(ep->cm_id->qp);
		set_bit(XPRTRDMA_EP_SQ_DRAINED, &ep->flags);
		ib_drain_rq(ep->cm_id->qp);
	}
	/*
	 * The registration QP has nothing posted either once this returns;
	 * it goes before the MRs are taken back.
	 */
	xprtrdma_regq_destroy(ep);

	/* No WR is left that could use an MR; take them back from requests. */
	for (i = 0; i < xp->nr_reqs; i++) {
		struct xprtrdma_req *req = &xp->reqs[i];

		mutex_lock(&req->mr_mutex);
		if (xprtrdma_req_has_chunks(req))
			xprtrdma_mrs_drop(req);
		mutex_unlock(&req->mr_mutex);
	}

	if (!list_empty(&ep->mr_all) || ep->fence_mr)
		xprtrdma_mr_pool_destroy(ep);
	if (ep->stages)
		xprtrdma_stages_destroy(ep);
	if (ep->reps)
		xprtrdma_reps_free(ep);
	if (ep->cm_id->qp)
		rdma_destroy_qp(ep->cm_id);
	if (ep->recv_cq)
		ib_free_cq(ep->recv_cq);
	if (ep->send_cq)
		ib_free_cq(ep->send_cq);
	if (ep->device)
		xprtrdma_reap_sends(ep);
	if (ep->pd)
		ib_dealloc_pd(ep->pd);

	if (ep->device) {
		spin_lock(&xprtrdma_eps_lock);
		list_del(&ep->list);
		spin_unlock(&xprtrdma_eps_lock);
		wake_up_all(&xprtrdma_eps_wait);
	}
	rdma_destroy_id(ep->cm_id);
	kfree(ep->scratch);
	mutex_destroy(&ep->regq_lock);
	kfree(ep);
}

static int xprtrdma_ep_resolve(struct xprtrdma_ep *ep)
{
	struct rpc_xprt *xprt = &ep->xp->xprt;
	int ret;

	/*
	 * Each step is named for the log line a failed attempt earns: "-110"
	 * alone does not tell an admin an unanswered connection request from
	 * an address that did not resolve.
	 */
	ep->xp->connect_step = "address resolution";
	reinit_completion(&ep->cm_done);
	ret = rdma_resolve_addr(ep->cm_id, NULL, (struct sockaddr *)&xprt->addr,
				XPRTRDMA_RESOLVE_TIMEOUT_MS);
	if (ret)
		return ret;
	ret = xprtrdma_cm_wait(ep, XPRTRDMA_RESOLVE_TIMEOUT_MS);
	if (ret)
		return ret;

	ep->xp->connect_step = "route resolution";
	reinit_completion(&ep->cm_done);
	ret = rdma_resolve_route(ep->cm_id, XPRTRDMA_RESOLVE_TIMEOUT_MS);
	if (ret)
		return ret;
	return xprtrdma_cm_wait(ep, XPRTRDMA_RESOLVE_TIMEOUT_MS);
}

static int xprtrdma_ep_create_qp(struct xprtrdma_ep *ep)
{
	struct ib_device_attr *attrs = &ep->device->attrs;
	struct ib_qp_init_attr qp_attr = {};
	u32 send_depth, recv_depth;
	unsigned int nr_reqs = ep->xp->nr_reqs;

	/*
	 * One more of each for the drain markers of ib_drain_sq() and
	 * ib_drain_rq().  A send queue too short for every slot's worst case
	 * caps the calls in flight instead (xprtrdma_update_credits), so no
	 * post can overrun it.
	 */
	if (attrs->max_qp_wr < XPRTRDMA_WRS_PER_REQ + 2)
		return -EINVAL;
	ep->max_reqs = min_t(u32, nr_reqs,
			     (attrs->max_qp_wr - 2) / XPRTRDMA_WRS_PER_REQ);
	recv_depth = nr_reqs + XPRTRDMA_EXTRA_RECVS;
	/* And one for the keepalive probe. */
	send_depth = ep->max_reqs * XPRTRDMA_WRS_PER_REQ + 1;
	if (recv_depth + 1 > attrs->max_qp_wr)
		return -EINVAL;

	ep->send_cq = ib_alloc_cq(ep->device, ep, send_depth + 1, 0,
				  IB_POLL_SOFTIRQ);
	if (IS_ERR(ep->send_cq)) {
		int ret = PTR_ERR(ep->send_cq);

		ep->send_cq = NULL;
		return ret;
	}
	/* Reply handling waits for invalidation, so it needs a workqueue. */
	ep->recv_cq = ib_alloc_cq(ep->device, ep, recv_depth + 1, 0,
				  IB_POLL_WORKQUEUE);
	if (IS_ERR(ep->recv_cq)) {
		int ret = PTR_ERR(ep->recv_cq);

		ep->recv_cq = NULL;
		return ret;
	}

	qp_attr.event_handler = xprtrdma_qp_event;
	qp_attr.qp_context = ep;
	qp_attr.send_cq = ep->send_cq;
	qp_attr.recv_cq = ep->recv_cq;
	qp_attr.cap.max_send_wr = send_depth + 1;
	qp_attr.cap.max_recv_wr = recv_depth + 1;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 1;
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.qp_type = IB_QPT_RC;
	return rdma_create_qp(ep->cm_id, ep->pd, &qp_attr);
}

static int xprtrdma_ep_connect(struct xprtrdma_ep *ep)
{
	struct ib_device_attr *attrs = &ep->device->attrs;
	struct nfsrdma_wire_cm_pdata ours = {
		.send_size = ep->xp->inline_send,
		.recv_size = ep->xp->inline_recv,
		/* A server that used it would retire staged keys per call. */
		.remote_inv = !ep->stages,
	};
	struct rdma_conn_param param = {};
	int ret;

	ret = nfsrdma_wire_encode_cm_pdata(ep->pdata, sizeof(ep->pdata), &ours);
	if (ret < 0)
		return ret;
	param.private_data = ep->pdata;
	param.private_data_len = ret;
	/* The server pulls Read chunks from us with RDMA Read. */
	param.responder_resources = min_t(int, attrs->max_qp_rd_atom, 16);
	param.initiator_depth = min_t(int, attrs->max_qp_init_rd_atom, 16);
	param.retry_count = 6;
	/* Credits keep the server's receives stocked; RNR is a last resort. */
	param.rnr_retry_count = 7;
	param.flow_control = 1;

	ep->xp->connect_step = "connection request";
	reinit_completion(&ep->cm_done);
	ret = rdma_connect(ep->cm_id, &param);
	if (ret)
		return ret;
	return xprtrdma_cm_wait(ep, XPRTRDMA_CONNECT_TIMEOUT_MS);
}

static int xprtrdma_ep_create(struct xprtrdma_xprt *xp)
{
	struct rpc_xprt *xprt = &xp->xprt;
	struct xprtrdma_ep *ep;
	struct rdma_cm_id *id;
	unsigned int i, mr_cap;
	int ret;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return -ENOMEM;
	ep->xp = xp;
	/* 0 means "not posted anywhere" to a request. */
	ep->gen = ++xp->last_gen ?: ++xp->last_gen;
	init_completion(&ep->cm_done);
	spin_lock_init(&ep->mr_lock);
	spin_lock_init(&ep->post_lock);
	mutex_init(&ep->regq_lock);
	INIT_LIST_HEAD(&ep->mr_free);
	INIT_LIST_HEAD(&ep->mr_all);
	INIT_LIST_HEAD(&ep->list);
	INIT_DELAYED_WORK(&ep->ka_work, xprtrdma_ka_work);
	ep->ka_cqe.done = xprtrdma_ka_done;
	nfsrdma_wire_decode_cm_pdata(&ep->peer, NULL, 0);
	ep->scratch = kzalloc(sizeof(*ep->scratch), GFP_KERNEL);
	if (!ep->scratch) {
		kfree(ep);
		return -ENOMEM;
	}

	id = rdma_create_id(xprt->xprt_net, xprtrdma_cm_handler, ep,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		kfree(ep->scratch);
		kfree(ep);
		return PTR_ERR(id);
	}
	ep->cm_id = id;
	/* Before the route: the server's QP takes its timeout from it. */
	ret = nfsrdma_set_ack_timeout(id, READ_ONCE(xprtrdma_ack_timeout));
	if (ret)
		goto out_free;

	ret = xprtrdma_ep_resolve(ep);
	if (ret)
		goto out_free;
	xp->connect_step = "setup";
	ep->device = id->device;
	spin_lock(&xprtrdma_eps_lock);
	list_add(&ep->list, &xprtrdma_eps);
	spin_unlock(&xprtrdma_eps_lock);

	if (!(ep->device->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		pr_warn_ratelimited("xprtrdma: device %s does not support FRWR\n",
				    dev_name(&ep->device->dev));
		ret = -EOPNOTSUPP;
		goto out_free;
	}

	ep->pd = ib_alloc_pd(ep->device, 0);
	if (IS_ERR(ep->pd)) {
		ret = PTR_ERR(ep->pd);
		ep->pd = NULL;
		goto out_free;
	}
	ret = xprtrdma_ep_create_qp(ep);
	if (ret)
		goto out_free;
	/* Before the pool: staging takes an MR per slot, or none at all. */
	xprtrdma_stages_create(ep);
	/*
	 * Two MRs per slot cover a data chunk and most Reply chunks; the pool
	 * grows on demand up to what every slot could use at once.  The
	 * device's own limit keeps one MR for the fence, and the stages'.
	 */
	mr_cap = min_t(u32, xp->nr_reqs * XPRTRDMA_MAX_MRS_PER_REQ,
		       ep->device->attrs.max_mr - 1 -
		       (ep->stages ? xp->nr_reqs : 0));
	ret = xprtrdma_mr_pool_create(ep, min_t(u32, xp->nr_reqs * 2, mr_cap),
				      mr_cap);
	if (ret)
		goto out_free;
	ret = xprtrdma_reps_create(ep, xp->nr_reqs + XPRTRDMA_EXTRA_RECVS);
	if (ret)
		goto out_free;
	for (i = 0; i < ep->nr_reps; i++) {
		ret = xprtrdma_post_recv(&ep->reps[i]);
		if (ret)
			goto out_free;
	}

	ret = xprtrdma_ep_connect(ep);
	if (ret)
		goto out_free;
	/* Needs the connection's attributes, and must precede any call. */
	xprtrdma_regq_create(ep);

	ep->max_send = min_t(u32, xp->inline_send, ep->peer.recv_size);
	ep->max_recv = min_t(u32, xp->inline_recv, ep->peer.send_size);
	xp->ep = ep;
	xprtrdma_ep_progress(ep);
	queue_delayed_work(system_wq, &ep->ka_work,
			   (READ_ONCE(xprtrdma_keepalive) ?: 30) * HZ);
	return 0;

out_free:
	xprtrdma_ep_free(ep);
	return ret;
}

/**
 * xprtrdma_ep_destroy - tear down the current connection, if any
 * @xp: transport
 *
 * Context: process context, may sleep; caller holds XPRT_LOCKED or is the
 * transport's destructor.
 */
void xprtrdma_ep_destroy(struct xprtrdma_xprt *xp)
{
	struct xprtrdma_ep *ep = xp->ep;

	if (!ep)
		return;
	xp->ep = NULL;
	trace_xprtrdma_disconnect(xp, test_bit(XPRTRDMA_EP_ESTABLISHED,
					       &ep->flags) ? "local close" :
				  "teardown after disconnect", 0);
	xprtrdma_ep_free(ep);
}

/*
 * call_connect_status() knows the errors a socket connect can return (the
 * cases passed through below) and fails the call on any other, which a
 * hard mount reports to the application.  Setup can fail in ways a socket
 * cannot (no memory for the QP, a device that went away, one without
 * FRWR, an address that no longer resolves), so translate those once the
 * transport has connected before: reconnects back off, and the device may
 * come back.  Before the first connection there is no backoff and nothing
 * to wait for, so let the mount fail rather than spin until its timeout.
 */
static int xprtrdma_connect_status(struct rpc_xprt *xprt, int status)
{
	switch (status) {
	case 0:
	case -ECONNREFUSED:
	case -ECONNRESET:
	case -ECONNABORTED:
	case -ENETDOWN:
	case -ENETUNREACH:
	case -EHOSTUNREACH:
	case -EADDRINUSE:
	case -ENOTCONN:
	case -ETIMEDOUT:
	case -EAGAIN:
	case -ENOBUFS:
	case -EPIPE:
	case -EPROTO:
		return status;
	case -ENOMEM:
		/* Retried after a short delay, as a socket's would be. */
		return -ENOBUFS;
	}
	return xprt->stat.connect_count ? -EAGAIN : status;
}

/**
 * xprtrdma_connect_worker - establish a connection for a transport
 * @work: &xprtrdma_xprt.connect_work
 *
 * Context: xprtiod workqueue; owns the transport write lock (taken with
 * xprt_lock_connect() by ->connect) until it has a result, and hands the
 * result to the tasks waiting on the pending queue.
 */
void xprtrdma_connect_worker(struct work_struct *work)
{
	struct xprtrdma_xprt *xp = container_of(to_delayed_work(work),
						struct xprtrdma_xprt,
						connect_work);
	struct rpc_xprt *xprt = &xp->xprt;
	unsigned int nofs, noreclaim = 0;
	bool swapper;
	int status;

	/*
	 * Never recurse into NFS for memory while connecting.  With a swap
	 * file on this transport, reconnecting is part of freeing memory,
	 * so it may also use the emergency reserves.
	 */
	nofs = memalloc_nofs_save();
	swapper = atomic_read(&xprt->swapper);
	if (swapper)
		noreclaim = memalloc_noreclaim_save();

	/* A leftover connection would otherwise leak its resources. */
	xprtrdma_ep_destroy(xp);

	/*
	 * The old connection's completions may have asked for a forced
	 * disconnect.  Run now, that request would set XPRT_CLOSE_WAIT while
	 * we hold the write lock, and releasing the lock would then close
	 * the connection we are about to make.  With the old QP gone nothing
	 * queues it again: cancel it and forget what it already asked.  A
	 * new cookie marks every call sent before this point as sent on a
	 * connection that is gone (xprtrdma_timer relies on it).
	 */
	cancel_work_sync(&xp->force_work);
	spin_lock(&xprt->transport_lock);
	clear_bit(XPRT_CLOSE_WAIT, &xprt->state);
	xprt->connect_cookie++;
	spin_unlock(&xprt->transport_lock);

	xp->connect_step = "setup";
	status = xprtrdma_ep_create(xp);
	trace_xprtrdma_connect(xp, status);
	if (!status) {
		spin_lock(&xprt->transport_lock);
		/* Until the server says otherwise, one credit (RFC 8166). */
		xp->credits = 1;
		xp->max_credits = xp->ep->max_reqs;
		xprt->cwnd = RPC_CWNDSCALE;
		spin_unlock(&xprt->transport_lock);
		/*
		 * A payload must fit the MRs one call may use; shallow FRWR
		 * page lists shrink it.  NFS reads this after connecting.
		 */
		xprt->max_payload = min_t(size_t, XPRTRDMA_MAX_PAYLOAD,
					  (size_t)(XPRTRDMA_MAX_MRS_PER_REQ - 2) *
					  (xp->ep->mr_depth - 1) * PAGE_SIZE);
		xprt->stat.connect_count++;
		xprt->stat.connect_time += (long)jiffies -
					   xprt->stat.connect_start;
		xp->up_since = jiffies;
		xprt_set_connected(xprt);
		pr_info("xprtrdma: connected to %s:%s (inline send %u, recv %u%s)\n",
			xprt->address_strings[RPC_DISPLAY_ADDR],
			xprt->address_strings[RPC_DISPLAY_PORT],
			xp->ep->max_send, xp->ep->max_recv,
			xp->ep->peer.remote_inv ? ", remote invalidation" : "");
		trace_xprtrdma_established(xp, xp->ep);
	} else {
		pr_info_ratelimited("xprtrdma: connect to %s:%s failed in %s: %d\n",
				    xprt->address_strings[RPC_DISPLAY_ADDR],
				    xprt->address_strings[RPC_DISPLAY_PORT],
				    xp->connect_step, status);
	}

	/*
	 * Hand the result to the tasks that wait for it before giving up
	 * the write lock, never after.  Once the lock is released, a task
	 * can send on the new connection and sleep on the same pending
	 * queue for its reply; a late wake-up with 0 would then send it to
	 * decode a reply that never came, and the core answers that by
	 * closing this connection (seen on PREEMPT_RT, where the unlock
	 * can preempt us in favour of that task).  A late failure status
	 * would likewise reach a task already waiting on the next attempt.
	 * While we hold the lock, every other sender waits on the sending
	 * queue instead, so the wake-up reaches only this attempt's
	 * waiters.
	 */
	xprt_clear_connecting(xprt);
	xprt_wake_pending_tasks(xprt, xprtrdma_connect_status(xprt, status));
	xprt_unlock_connect(xprt, xp);
	if (swapper)
		memalloc_noreclaim_restore(noreclaim);
	memalloc_nofs_restore(nofs);
}

static bool xprtrdma_device_busy(struct ib_device *device)
{
	struct xprtrdma_ep *ep;
	bool busy = false;

	spin_lock(&xprtrdma_eps_lock);
	list_for_each_entry(ep, &xprtrdma_eps, list)
		if (ep->device == device)
			busy = true;
	spin_unlock(&xprtrdma_eps_lock);
	return busy;
}

/**
 * xprtrdma_device_removed - disconnect every transport using a device
 * @device: RDMA device going away
 *
 * Each affected transport is asked to close; ->close releases the
 * device's resources.  Waits (bounded) until they are gone, because the
 * device must not disappear under a live PD or QP.
 *
 * Context: process context (ib_client remove callback).
 */
void xprtrdma_device_removed(struct ib_device *device)
{
	struct xprtrdma_ep *ep;

	spin_lock(&xprtrdma_eps_lock);
	list_for_each_entry(ep, &xprtrdma_eps, list) {
		if (ep->device != device)
			continue;
		trace_xprtrdma_device_removal(ep->xp, device);
		xprt_force_disconnect(&ep->xp->xprt);
	}
	spin_unlock(&xprtrdma_eps_lock);

	if (!wait_event_timeout(xprtrdma_eps_wait,
				!xprtrdma_device_busy(device), 60 * HZ))
		pr_warn("xprtrdma: connections on %s did not close in time\n",
			dev_name(&device->dev));
}
