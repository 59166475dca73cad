// SPDX-License-Identifier: GPL-2.0
/*
 * svcrdma: the NFSv4.1 backchannel (RFC 8167, bidirectional RPC-over-RDMA).
 *
 * nfsd sends callbacks through an rpc_clnt whose rpc_xprt we provide
 * (class XPRT_TRANSPORT_BC_RDMA).  That rpc_xprt never connects: it
 * borrows the client's forechannel connection, sends each Call inline
 * as an RDMA_MSG, and receives the Reply among the forechannel's calls,
 * where svcrdma_recvfrom() spots the RPC direction and hands it here.
 *
 * Lifetime follows the TCP backchannel: the svc_xprt holds a reference
 * on the rpc_xprt (dropped in svc_xprt_free()), the rpc_xprt points back
 * without one, and nfsd stops using it when the connection is lost.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/addr.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/sunrpc/sched.h>

#include "svcrdma.h"
#include "trace.h"

/* nfsd passes its own timeouts; this only covers a caller that does not. */
static const struct rpc_timeout svcrdma_bc_timeout = {
	.to_initval	= 60 * HZ,
	.to_maxval	= 60 * HZ,
	.to_retries	= 2,
};

static int svcrdma_bc_buf_alloc(struct rpc_task *task)
{
	struct rpc_rqst *rqst = task->tk_rqstp;
	void *buf;

	buf = kmalloc(rqst->rq_callsize + rqst->rq_rcvsize,
		      rpc_task_gfp_mask() | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	svcrdma_mem_add(rqst->rq_callsize + rqst->rq_rcvsize);
	rqst->rq_buffer = buf;
	rqst->rq_rbuffer = (char *)buf + rqst->rq_callsize;
	return 0;
}

static void svcrdma_bc_buf_free(struct rpc_task *task)
{
	struct rpc_rqst *rqst = task->tk_rqstp;

	/* The sizes are those of the allocation: call_allocate() runs once. */
	if (rqst->rq_buffer)
		svcrdma_mem_sub(rqst->rq_callsize + rqst->rq_rcvsize);
	kfree(rqst->rq_buffer);
}

static int svcrdma_bc_send_request(struct rpc_rqst *rqst)
{
	struct svc_xprt *sx = rqst->rq_xprt->bc_xprt;
	int ret;

	if (!sx || svc_xprt_is_dead(sx))
		return -ENOTCONN;
	ret = svcrdma_send_bc_call(svcrdma_of(sx), rqst->rq_xid,
				   &rqst->rq_snd_buf);
	trace_svcrdma_cb_call(svcrdma_of(sx), rqst->rq_xid,
			      rqst->rq_snd_buf.len, ret);
	return ret == -ENOTCONN ? -ENOTCONN : ret ? -EIO : 0;
}

/*
 * The backchannel cannot reconnect on its own: the client owns the
 * connection.  Fail the caller; nfsd marks the callback path down and
 * the client binds a new connection to the session.
 */
static void svcrdma_bc_connect(struct rpc_xprt *xprt, struct rpc_task *task)
{
	xprt_clear_connecting(xprt);
	xprt_wake_pending_tasks(xprt, -ENOTCONN);
}

static void svcrdma_bc_close(struct rpc_xprt *xprt)
{
	xprt_disconnect_done(xprt);
}

static void svcrdma_bc_free_strings(struct rpc_xprt *xprt)
{
	int i;

	for (i = 0; i < RPC_DISPLAY_MAX; i++)
		kfree(xprt->address_strings[i]);
}

static void svcrdma_bc_destroy(struct rpc_xprt *xprt)
{
	svcrdma_bc_free_strings(xprt);
	xprt_free(xprt);
	module_put(THIS_MODULE);
}

static void svcrdma_bc_print_stats(struct rpc_xprt *xprt, struct seq_file *seq)
{
}

static const struct rpc_xprt_ops svcrdma_bc_ops = {
	.reserve_xprt		= xprt_reserve_xprt,
	.release_xprt		= xprt_release_xprt,
	.alloc_slot		= xprt_alloc_slot,
	.free_slot		= xprt_free_slot,
	.buf_alloc		= svcrdma_bc_buf_alloc,
	.buf_free		= svcrdma_bc_buf_free,
	.send_request		= svcrdma_bc_send_request,
	.wait_for_reply_request	= xprt_wait_for_reply_request_def,
	.connect		= svcrdma_bc_connect,
	.close			= svcrdma_bc_close,
	.destroy		= svcrdma_bc_destroy,
	.print_stats		= svcrdma_bc_print_stats,
};

static struct xprt_class svcrdma_bc_class;

static struct rpc_xprt *svcrdma_bc_setup(struct xprt_create *args)
{
	struct sockaddr *sa = args->dstaddr;
	struct svcrdma_xprt *xp;
	struct rpc_xprt *xprt;
	char buf[INET6_ADDRSTRLEN + 8];

	if (!args->bc_xprt || args->bc_xprt->xpt_class != &svcrdma_class)
		return ERR_PTR(-EINVAL);
	if (args->addrlen > sizeof(xprt->addr))
		return ERR_PTR(-EBADF);
	xp = svcrdma_of(args->bc_xprt);

	xprt = xprt_alloc(args->net, sizeof(*xprt), 2, 16);
	if (!xprt)
		return ERR_PTR(-ENOMEM);
	/* Reliable and connection-oriented, like TCP: no retransmit timer. */
	xprt->prot = IPPROTO_TCP;
	xprt->xprt_class = &svcrdma_bc_class;
	xprt->ops = &svcrdma_bc_ops;
	xprt->timeout = &svcrdma_bc_timeout;
	memcpy(&xprt->addr, sa, args->addrlen);
	xprt->addrlen = args->addrlen;
	/* A Call must fit one inline Send behind a minimal header. */
	xprt->max_payload = xp->inline_send - NFSRDMA_WIRE_MIN_MSG_SIZE;
	xprt_set_bound(xprt);
	xprt->bind_timeout = 0;
	xprt->reestablish_timeout = 0;
	xprt->idle_timeout = 0;

	snprintf(buf, sizeof(buf), "%pISc", sa);
	xprt->address_strings[RPC_DISPLAY_ADDR] = kstrdup(buf, GFP_KERNEL);
	snprintf(buf, sizeof(buf), "%u", rpc_get_port(sa));
	xprt->address_strings[RPC_DISPLAY_PORT] = kstrdup(buf, GFP_KERNEL);
	xprt->address_strings[RPC_DISPLAY_PROTO] = kstrdup("rdma", GFP_KERNEL);
	xprt->address_strings[RPC_DISPLAY_NETID] =
		kstrdup(sa->sa_family == AF_INET6 ? "rdma6" : "rdma", GFP_KERNEL);

	if (!try_module_get(THIS_MODULE)) {
		svcrdma_bc_free_strings(xprt);
		xprt_free(xprt);
		return ERR_PTR(-EINVAL);
	}
	/* The svc_xprt's reference; svc_xprt_free() drops it. */
	xprt_get(xprt);
	args->bc_xprt->xpt_bc_xprt = xprt;
	xprt->bc_xprt = args->bc_xprt;
	xprt_set_connected(xprt);
	return xprt;
}

static struct xprt_class svcrdma_bc_class = {
	.list	= LIST_HEAD_INIT(svcrdma_bc_class.list),
	.name	= "rdma backchannel",
	.owner	= THIS_MODULE,
	.ident	= XPRT_TRANSPORT_BC_RDMA,
	.setup	= svcrdma_bc_setup,
	.netid	= { "" },
};

/**
 * svcrdma_bc_reply - complete a backchannel Call with the client's Reply
 * @xp: connection the Reply arrived on
 * @msg: the RPC Reply, inline after the transport header
 * @len: its length
 *
 * Context: nfsd thread in recvfrom.
 *
 * Return: 0 if a waiting Call took the Reply, -ENOENT if it was dropped:
 * no Call matched (a late or forged Reply), or it was too short or too
 * large.  svcrdma_cb_reply traces which.
 */
int svcrdma_bc_reply(struct svcrdma_xprt *xp, const void *msg, u32 len)
{
	struct rpc_xprt *xprt = xp->xprt.xpt_bc_xprt;
	struct rpc_rqst *req;
	struct kvec *dst;
	__be32 xid = 0;
	int why = -ENOENT;

	if (len < 4) {
		why = -EINVAL;
		goto out_drop;
	}
	memcpy(&xid, msg, sizeof(xid));
	if (!xprt)
		goto out_drop;

	spin_lock(&xprt->queue_lock);
	req = xprt_lookup_rqst(xprt, xid);
	if (!req)
		goto out_unlock;
	memcpy(&req->rq_private_buf, &req->rq_rcv_buf, sizeof(struct xdr_buf));
	dst = &req->rq_private_buf.head[0];
	/* Callback Replies are small; one that is not is refused whole. */
	if (len > dst->iov_len) {
		why = -EMSGSIZE;
		goto out_unlock;
	}
	memcpy(dst->iov_base, msg, len);
	req->rq_private_buf.len = len;
	xprt_complete_rqst(req->rq_task, len);
	spin_unlock(&xprt->queue_lock);
	trace_svcrdma_cb_reply(xp, xid, len, 0);
	return 0;

out_unlock:
	spin_unlock(&xprt->queue_lock);
out_drop:
	trace_svcrdma_cb_reply(xp, xid, len, why);
	pr_warn_ratelimited("svcrdma: backchannel reply from %s (xid 0x%08x) dropped: %s\n",
			    xp->xprt.xpt_remotebuf, be32_to_cpu(xid),
			    why == -EMSGSIZE ? "too large" :
			    why == -EINVAL ? "too short" : "no matching call");
	return -ENOENT;
}

/**
 * svcrdma_bc_init - register the backchannel rpc_xprt class
 *
 * Context: module init.
 *
 * Return: 0 or the error from xprt_register_transport().
 */
int svcrdma_bc_init(void)
{
	return xprt_register_transport(&svcrdma_bc_class);
}

/**
 * svcrdma_bc_exit - unregister the backchannel rpc_xprt class
 *
 * Context: module exit; every backchannel rpc_xprt holds a module
 * reference, so none is left.
 */
void svcrdma_bc_exit(void)
{
	xprt_unregister_transport(&svcrdma_bc_class);
}
