// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: the rpc_xprt side of the client transport.
 *
 * Setup and destruction of a transport instance, the request slots, RPC
 * buffers, the connect/close entry points and the statistics line.  The
 * connection itself lives in conn.c, the data path in marshal.c/reply.c.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/sunrpc/addr.h>
#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/sched.h>
#include <linux/sunrpc/xprt.h>

#include "xprtrdma.h"
#include "trace.h"

#define XPRTRDMA_IDLE_DISC_TO	(5U * 60 * HZ)
#define XPRTRDMA_BIND_TO	(60U * HZ)

static const struct rpc_timeout xprtrdma_default_timeout = {
	.to_initval	= 60 * HZ,
	.to_maxval	= 60 * HZ,
	.to_retries	= 2,
};

static void xprtrdma_alloc_slot(struct rpc_xprt *xprt, struct rpc_task *task)
{
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);
	struct xprtrdma_req *req;

	spin_lock(&xprt->reserve_lock);
	req = list_first_entry_or_null(&xp->free_reqs, struct xprtrdma_req,
				       free);
	if (!req) {
		/* Slots are fixed; wait for xprtrdma_free_slot to hand one on. */
		xprt_add_backlog(xprt, task);
		spin_unlock(&xprt->reserve_lock);
		task->tk_status = -EAGAIN;
		return;
	}
	list_del_init(&req->free);
	xprt->num_reqs++;
	xprt->stat.max_slots = max_t(unsigned long, xprt->stat.max_slots,
				     xprt->num_reqs);
	spin_unlock(&xprt->reserve_lock);

	task->tk_rqstp = &req->rqst;
	task->tk_status = 0;
}

static void xprtrdma_free_slot(struct rpc_xprt *xprt, struct rpc_rqst *rqst)
{
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);
	struct xprtrdma_req *req = xprtrdma_req(rqst);

	spin_lock(&xprt->reserve_lock);
	/* A waiting task takes the slot over as it is, still counted. */
	if (!xprt_wake_up_backlog(xprt, rqst)) {
		memset(rqst, 0, sizeof(*rqst));
		list_add(&req->free, &xp->free_reqs);
		xprt->num_reqs--;
	}
	spin_unlock(&xprt->reserve_lock);
}

static int xprtrdma_buf_alloc(struct rpc_task *task)
{
	struct rpc_rqst *rqst = task->tk_rqstp;
	size_t callsize = ALIGN(rqst->rq_callsize, 8);
	void *buf;

	/*
	 * kmalloc, not vmalloc: chunks may cover these buffers, and FRWR
	 * needs them physically contiguous within each page run.
	 */
	buf = kmalloc(callsize + rqst->rq_rcvsize,
		      rpc_task_gfp_mask() | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	rqst->rq_buffer = buf;
	rqst->rq_rbuffer = buf + callsize;
	return 0;
}

static void xprtrdma_buf_free(struct rpc_task *task)
{
	struct rpc_rqst *rqst = task->tk_rqstp;
	struct xprtrdma_req *req = xprtrdma_req(rqst);

	/*
	 * An RPC that ended without a reply (signal, timeout) may still have
	 * chunks open to the server: fence them before the memory goes.
	 */
	mutex_lock(&req->mr_mutex);
	if (xprtrdma_req_has_chunks(req))
		xprtrdma_invalidate(req, false, 0, false);
	/* The slot's next call has not been sent anywhere yet. */
	WRITE_ONCE(req->sent_gen, 0);
	mutex_unlock(&req->mr_mutex);

	kfree(rqst->rq_buffer);
	rqst->rq_buffer = NULL;
	rqst->rq_rbuffer = NULL;
}

static void xprtrdma_connect(struct rpc_xprt *xprt, struct rpc_task *task)
{
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);
	unsigned long delay = 0, next = 0;

	/* The worker owns the write lock until it has an answer. */
	WARN_ON_ONCE(!xprt_lock_connect(xprt, task, xp));

	/*
	 * The core stamped connect_start just now, so the delay is the whole
	 * re-establish timeout: 0 after a connection that carried replies
	 * and lasted, else it doubles per attempt up to the cap.  The old
	 * connection's receive handlers have all finished (ep teardown
	 * drained them), so @replied is stable here.
	 */
	if (xprt->stat.connect_count) {
		if (READ_ONCE(xp->replied) &&
		    time_after_eq(jiffies, xp->up_since + XPRTRDMA_INIT_REEST_TO))
			xprt->reestablish_timeout = 0;
		WRITE_ONCE(xp->replied, false);
		delay = xprt_reconnect_delay(xprt);
		xprt_reconnect_backoff(xprt, XPRTRDMA_INIT_REEST_TO);
		next = xprt->reestablish_timeout;
	}
	trace_xprtrdma_connect_scheduled(xp, delay, next);
	queue_delayed_work(xprtiod_workqueue, &xp->connect_work, delay);
}

static void xprtrdma_close(struct rpc_xprt *xprt)
{
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);

	/* Runs under XPRT_LOCKED (autoclose or destroy): no sender races. */
	xprtrdma_ep_destroy(xp);
	xprt_disconnect_done(xprt);
}

static void xprtrdma_free_reqs(struct xprtrdma_xprt *xp)
{
	unsigned int i;

	for (i = 0; i < xp->nr_reqs; i++)
		kfree(xp->reqs[i].sc.buf);
	kfree(xp->reqs);
}

static void xprtrdma_free_addresses(struct rpc_xprt *xprt)
{
	kfree(xprt->address_strings[RPC_DISPLAY_ADDR]);
	kfree(xprt->address_strings[RPC_DISPLAY_PORT]);
	kfree(xprt->address_strings[RPC_DISPLAY_HEX_ADDR]);
	kfree(xprt->address_strings[RPC_DISPLAY_HEX_PORT]);
}

static void xprtrdma_destroy(struct rpc_xprt *xprt)
{
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);

	cancel_delayed_work_sync(&xp->connect_work);
	xprtrdma_ep_destroy(xp);
	/* Drained: no completion handler can queue it again. */
	cancel_work_sync(&xp->force_work);
	xprtrdma_free_reqs(xp);
	xprtrdma_bc_free_all(xp);
	kfree(xp->hdr);
	xprtrdma_free_addresses(xprt);
	xprt_free(xprt);
	module_put(THIS_MODULE);
}

static void xprtrdma_set_connect_timeout(struct rpc_xprt *xprt,
					 unsigned long connect_timeout,
					 unsigned long reconnect_timeout)
{
	spin_lock(&xprt->transport_lock);
	if (reconnect_timeout < xprt->max_reconnect_timeout)
		xprt->max_reconnect_timeout = reconnect_timeout;
	if (connect_timeout < xprt->connect_timeout)
		xprt->connect_timeout = connect_timeout;
	spin_unlock(&xprt->transport_lock);
}

static void xprtrdma_set_port(struct rpc_xprt *xprt, unsigned short port)
{
	char buf[8];

	rpc_set_port((struct sockaddr *)&xprt->addr, port);
	kfree(xprt->address_strings[RPC_DISPLAY_PORT]);
	kfree(xprt->address_strings[RPC_DISPLAY_HEX_PORT]);
	snprintf(buf, sizeof(buf), "%u", port);
	xprt->address_strings[RPC_DISPLAY_PORT] = kstrdup(buf, GFP_KERNEL);
	snprintf(buf, sizeof(buf), "%4hx", port);
	xprt->address_strings[RPC_DISPLAY_HEX_PORT] = kstrdup(buf, GFP_KERNEL);
}

/*
 * The line has the generic fields first (as every stream transport prints
 * them) and then the seventeen RDMA counters with the meanings and in the
 * order of the in-tree client, which is what mountstats(8) and nfsiostat
 * label them by: read_chunk_count, write_chunk_count, reply_chunk_count
 * (segments), total_rdma_request, total_rdma_reply, pullup_copy_count,
 * fixup_copy_count, hardway_register_count, failed_marshal_count,
 * bad_reply_count, nomsg_call_count, mrs_recycled, mrs_orphaned,
 * mrs_allocated, local_inv_needed, empty_sendctx_q, reply_waits_for_send.
 * We never register "the hard way", never orphan an MR (teardown takes
 * them all back) and have no shared send-context queue, so those three are
 * 0.
 */
static void xprtrdma_print_stats(struct rpc_xprt *xprt, struct seq_file *seq)
{
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);
	struct xprtrdma_stats *s = &xp->stats;
	long idle_time = 0;

	if (xprt_connected(xprt))
		idle_time = (long)(jiffies - xprt->last_used) / HZ;

	seq_printf(seq, "\txprt:\trdma %u %lu %lu %lu %ld %lu %lu %lu %llu %llu ",
		   0U, xprt->stat.bind_count, xprt->stat.connect_count,
		   xprt->stat.connect_time / HZ, idle_time,
		   xprt->stat.sends, xprt->stat.recvs, xprt->stat.bad_xids,
		   xprt->stat.req_u, xprt->stat.bklog_u);
	seq_printf(seq, "%lu %lu %lu %lu %lu %lu %lu %lu %lu %lu ",
		   atomic_long_read(&s->read_segs),
		   atomic_long_read(&s->write_segs),
		   atomic_long_read(&s->reply_segs),
		   atomic_long_read(&s->registered_bytes),
		   atomic_long_read(&s->rdma_bytes_in),
		   atomic_long_read(&s->pullup_bytes),
		   atomic_long_read(&s->fixup_bytes),
		   0UL,
		   atomic_long_read(&s->failed_marshal),
		   atomic_long_read(&s->bad_replies));
	seq_printf(seq, "%lu %lu %lu %lu %lu %lu %lu\n",
		   atomic_long_read(&s->nomsg_calls),
		   atomic_long_read(&s->mrs_recycled),
		   0UL,
		   atomic_long_read(&s->mrs_allocated),
		   atomic_long_read(&s->local_invs),
		   0UL,
		   atomic_long_read(&s->reply_waits_send));
}

static void xprtrdma_inject_disconnect(struct rpc_xprt *xprt)
{
	xprt_force_disconnect(xprt);
}

/*
 * A request timed out with no reply (called from the RPC task, in process
 * context).  Its chunks are still registered and the server may still be
 * moving data through them; retransmitting on this connection would race
 * that and spend a receive the server never granted.  Start over on a new
 * connection, where the retransmission gets fresh registrations.
 *
 * Only a call sent on the current connection may close it.  When many
 * calls time out together, the first one's close already replaced the
 * connection the others were sent on; closing again would tear down the
 * replacement too, over and over while the backlog drains.
 */
static void xprtrdma_timer(struct rpc_xprt *xprt, struct rpc_task *task)
{
	if (task->tk_rqstp->rq_connect_cookie != READ_ONCE(xprt->connect_cookie))
		return;
	xprt_force_disconnect(xprt);
}

/*
 * Swap over NFS (rpc_clnt_swap_activate).  Everything a call needs once it
 * has a slot is preallocated per connection (send buffers, receives, MRs),
 * and the RPC buffer of a swapper task comes from the reserves because
 * rpciod runs such tasks with PF_MEMALLOC.  What is left is the connection
 * itself: while a swap file is active, the connect worker may use the
 * reserves too (xprtrdma_connect_worker), as a socket transport's does.
 */
static int xprtrdma_enable_swap(struct rpc_xprt *xprt)
{
	atomic_inc(&xprt->swapper);
	return 0;
}

static void xprtrdma_disable_swap(struct rpc_xprt *xprt)
{
	atomic_dec(&xprt->swapper);
}

static const struct rpc_xprt_ops xprtrdma_ops = {
	.reserve_xprt		= xprt_reserve_xprt_cong,
	.release_xprt		= xprt_release_xprt_cong,
	.alloc_slot		= xprtrdma_alloc_slot,
	.free_slot		= xprtrdma_free_slot,
	.release_request	= xprt_release_rqst_cong,
	.set_port		= xprtrdma_set_port,
	.connect		= xprtrdma_connect,
	.buf_alloc		= xprtrdma_buf_alloc,
	.buf_free		= xprtrdma_buf_free,
	.send_request		= xprtrdma_send_request,
	.wait_for_reply_request	= xprt_wait_for_reply_request_def,
	.timer			= xprtrdma_timer,
	.close			= xprtrdma_close,
	.destroy		= xprtrdma_destroy,
	.set_connect_timeout	= xprtrdma_set_connect_timeout,
	.print_stats		= xprtrdma_print_stats,
	.inject_disconnect	= xprtrdma_inject_disconnect,
	.enable_swap		= xprtrdma_enable_swap,
	.disable_swap		= xprtrdma_disable_swap,
	.bc_setup		= xprtrdma_bc_setup,
	.bc_maxpayload		= xprtrdma_bc_maxpayload,
	.bc_num_slots		= xprtrdma_bc_num_slots,
	.bc_free_rqst		= xprtrdma_bc_free_rqst,
	.bc_destroy		= xprtrdma_bc_destroy,
};

static void xprtrdma_force_work(struct work_struct *work)
{
	struct xprtrdma_xprt *xp = container_of(work, struct xprtrdma_xprt,
						force_work);

	xprt_force_disconnect(&xp->xprt);
}

/**
 * xprtrdma_force_disconnect - break the connection from any context
 * @xp: transport
 *
 * xprt_force_disconnect() takes xprt->transport_lock without disabling
 * bottom halves, so softirq completion handlers must not call it: a task
 * holding the lock on the same CPU would never get it back.  Defer it.
 *
 * Context: any.
 */
void xprtrdma_force_disconnect(struct xprtrdma_xprt *xp)
{
	queue_work(xprtiod_workqueue, &xp->force_work);
}

/**
 * xprtrdma_update_credits - follow the credit grant of a reply
 * @xp: transport
 * @credits: rdma_credit value the server sent
 *
 * Keeps the congestion window at exactly the granted credits so that the
 * core never has more calls outstanding than the server has receives.
 *
 * Context: any; takes xprt->transport_lock.
 */
void xprtrdma_update_credits(struct xprtrdma_xprt *xp, u32 credits)
{
	struct rpc_xprt *xprt = &xp->xprt;
	u32 granted = credits;

	/*
	 * Zero would stall us forever; more than the slots, or than the send
	 * queue can carry, is unusable.
	 */
	credits = clamp_t(u32, credits, 1, READ_ONCE(xp->max_credits));
	if (credits == xp->credits)
		return;
	trace_xprtrdma_credits(xp, granted, xp->credits, credits);
	spin_lock(&xprt->transport_lock);
	xp->credits = credits;
	xprt->cwnd = (unsigned long)credits << RPC_CWNDSHIFT;
	spin_unlock(&xprt->transport_lock);
}

static int xprtrdma_alloc_reqs(struct xprtrdma_xprt *xp, unsigned int count)
{
	unsigned int i;

	xp->reqs = kcalloc(count, sizeof(*xp->reqs), GFP_KERNEL);
	if (!xp->reqs)
		return -ENOMEM;
	xp->nr_reqs = count;
	for (i = 0; i < count; i++) {
		struct xprtrdma_req *req = &xp->reqs[i];

		req->xp = xp;
		if (xprtrdma_sendctx_init(&req->sc, xp))
			return -ENOMEM;
		mutex_init(&req->mr_mutex);
		INIT_LIST_HEAD(&req->mrs);
		init_completion(&req->inv_done);
		list_add_tail(&req->free, &xp->free_reqs);
	}
	return 0;
}

static int xprtrdma_format_addresses(struct rpc_xprt *xprt)
{
	struct sockaddr *sap = (struct sockaddr *)&xprt->addr;
	char buf[64];

	switch (sap->sa_family) {
	case AF_INET:
		xprt->address_strings[RPC_DISPLAY_NETID] = RPCBIND_NETID_RDMA;
		snprintf(buf, sizeof(buf), "%08x",
			 ntohl(((struct sockaddr_in *)sap)->sin_addr.s_addr));
		break;
	case AF_INET6:
		xprt->address_strings[RPC_DISPLAY_NETID] = RPCBIND_NETID_RDMA6;
		snprintf(buf, sizeof(buf), "%pi6",
			 &((struct sockaddr_in6 *)sap)->sin6_addr);
		break;
	default:
		return -EAFNOSUPPORT;
	}
	xprt->address_strings[RPC_DISPLAY_HEX_ADDR] = kstrdup(buf, GFP_KERNEL);
	rpc_ntop(sap, buf, sizeof(buf));
	xprt->address_strings[RPC_DISPLAY_ADDR] = kstrdup(buf, GFP_KERNEL);
	/* "rdma" is what NFS prints as proto= in /proc/mounts. */
	xprt->address_strings[RPC_DISPLAY_PROTO] = "rdma";
	xprtrdma_set_port(xprt, rpc_get_port(sap));
	if (!xprt->address_strings[RPC_DISPLAY_HEX_ADDR] ||
	    !xprt->address_strings[RPC_DISPLAY_ADDR] ||
	    !xprt->address_strings[RPC_DISPLAY_PORT] ||
	    !xprt->address_strings[RPC_DISPLAY_HEX_PORT])
		return -ENOMEM;
	return 0;
}

/**
 * xprtrdma_setup - create an RPC-over-RDMA client transport
 * @args: creation arguments from the RPC client
 *
 * Context: process context, may sleep.
 *
 * Return: the new transport, or an ERR_PTR: %-EBADF if the address is too
 * long, %-EAFNOSUPPORT for a family other than IPv4/IPv6, %-ENOMEM, or
 * %-EINVAL if the module is going away.
 */
struct rpc_xprt *xprtrdma_setup(struct xprt_create *args)
{
	unsigned int slots = min_t(int, READ_ONCE(xprtrdma_max_slots),
				   XPRTRDMA_MAX_CREDITS);
	struct xprtrdma_xprt *xp;
	struct rpc_xprt *xprt;
	int ret;

	if (args->addrlen > sizeof(xprt->addr))
		return ERR_PTR(-EBADF);

	/* Our own slots: xprt_alloc's generic ones are not preallocated. */
	xprt = xprt_alloc(args->net, sizeof(*xp), 0, slots);
	if (!xprt)
		return ERR_PTR(-ENOMEM);
	xp = xprtrdma_xp(xprt);
	INIT_LIST_HEAD(&xp->list);
	INIT_LIST_HEAD(&xp->free_reqs);
	spin_lock_init(&xp->bc_lock);
	INIT_LIST_HEAD(&xp->bc_free);
	INIT_LIST_HEAD(&xp->bc_all);
	INIT_DELAYED_WORK(&xp->connect_work, xprtrdma_connect_worker);
	INIT_WORK(&xp->force_work, xprtrdma_force_work);
	/*
	 * RFC 8797 private data carries whole KiB; never promise more.  The
	 * sysctls take the in-tree's range; we use up to INLINE_MAX.
	 */
	xp->inline_send = ALIGN_DOWN(min_t(int, XPRTRDMA_INLINE_MAX,
					   READ_ONCE(xprtrdma_max_inline_write)),
				     1024);
	xp->inline_recv = ALIGN_DOWN(min_t(int, XPRTRDMA_INLINE_MAX,
					   READ_ONCE(xprtrdma_max_inline_read)),
				     1024);

	xprt->num_reqs = 0;
	xprt->timeout = &xprtrdma_default_timeout;
	xprt->connect_timeout = xprt->timeout->to_initval *
				(xprt->timeout->to_retries + 1);
	xprt->max_reconnect_timeout = xprt->timeout->to_maxval;
	xprt->bind_timeout = XPRTRDMA_BIND_TO;
	xprt->reestablish_timeout = XPRTRDMA_INIT_REEST_TO;
	xprt->idle_timeout = XPRTRDMA_IDLE_DISC_TO;
	/* RDMA-CM on RoCE/iWARP uses the TCP port space (RDMA_PS_TCP). */
	xprt->prot = IPPROTO_TCP;
	xprt->xprt_class = &xprtrdma_class;
	xprt->max_payload = XPRTRDMA_MAX_PAYLOAD;
	xprt->resvport = 0;
	xprt->ops = &xprtrdma_ops;

	memcpy(&xprt->addr, args->dstaddr, args->addrlen);
	xprt->addrlen = args->addrlen;
	if (rpc_get_port((struct sockaddr *)&xprt->addr))
		xprt_set_bound(xprt);

	xp->hdr = kzalloc(sizeof(*xp->hdr), GFP_KERNEL);
	if (!xp->hdr) {
		ret = -ENOMEM;
		goto out_free_xprt;
	}
	ret = xprtrdma_alloc_reqs(xp, slots);
	if (ret)
		goto out_free_reqs;
	xp->credits = 1;
	xp->max_credits = 1;
	xprt->cwnd = RPC_CWNDSCALE;

	ret = xprtrdma_format_addresses(xprt);
	if (ret)
		goto out_free_addresses;

	if (!try_module_get(THIS_MODULE)) {
		ret = -EINVAL;
		goto out_free_addresses;
	}
	return xprt;

out_free_addresses:
	xprtrdma_free_addresses(xprt);
out_free_reqs:
	xprtrdma_free_reqs(xp);
	kfree(xp->hdr);
out_free_xprt:
	xprt_free(xprt);
	return ERR_PTR(ret);
}
