// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: the NFSv4.1 backchannel (RFC 8167, bidirectional RPC).
 *
 * The server sends backward-direction Calls (CB_NULL, CB_SEQUENCE,
 * CB_RECALL, ...) over our connection as ordinary RDMA_MSG messages; they
 * arrive in the forward receive buffers, which is why a few receives are
 * posted beyond the credit limit.  Each Call is copied into a slot of our
 * own and queued to the NFS callback service exactly the way the stream
 * transports queue theirs; the service encodes its Reply into the slot and
 * transmits it through ->send_request, which hands it back here.  Calls
 * and Replies in this direction always travel inline: the callback
 * channel attributes the client advertises keep them small.
 */

#include <linux/slab.h>
#include <linux/sunrpc/bc_xprt.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/xprt.h>

#include "xprtrdma.h"
#include "trace.h"

/* Slots per transport; the server runs one callback at a time per session. */
#define XPRTRDMA_BC_SLOTS	4

static void xprtrdma_bc_reset_bufs(struct xprtrdma_bc *bc)
{
	xdr_buf_init(&bc->rqst.rq_rcv_buf, page_address(bc->rcv_page),
		     PAGE_SIZE);
	xdr_buf_init(&bc->rqst.rq_snd_buf, page_address(bc->snd_page),
		     PAGE_SIZE);
}

static void xprtrdma_bc_free_one(struct xprtrdma_bc *bc)
{
	if (bc->rcv_page)
		__free_page(bc->rcv_page);
	if (bc->snd_page)
		__free_page(bc->snd_page);
	kfree(bc->sc.buf);
	kfree(bc);
}

/**
 * xprtrdma_bc_setup - preallocate backchannel slots (rpc_xprt_ops.bc_setup)
 * @xprt: transport
 * @min_reqs: slots the caller wants at least
 *
 * Called once per NFSv4.1 session; slots are shared by all sessions on
 * the transport and live as long as it does.
 *
 * Context: process context.
 *
 * Return: 0 or %-ENOMEM.
 */
int xprtrdma_bc_setup(struct rpc_xprt *xprt, unsigned int min_reqs)
{
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);
	unsigned int want = max_t(unsigned int, min_reqs, XPRTRDMA_BC_SLOTS);

	while (READ_ONCE(xp->nr_bc) < want) {
		struct xprtrdma_bc *bc = kzalloc(sizeof(*bc), GFP_KERNEL);

		if (!bc)
			return -ENOMEM;
		bc->rcv_page = alloc_page(GFP_KERNEL);
		bc->snd_page = alloc_page(GFP_KERNEL);
		if (!bc->rcv_page || !bc->snd_page ||
		    xprtrdma_sendctx_init(&bc->sc, xp)) {
			xprtrdma_bc_free_one(bc);
			return -ENOMEM;
		}
		bc->rqst.rq_xprt = xprt;
#ifndef NFSRDMA_BC_LWQ
		INIT_LIST_HEAD(&bc->rqst.rq_bc_list);
#endif
		spin_lock(&xp->bc_lock);
		list_add(&bc->all, &xp->bc_all);
		list_add_tail(&bc->list, &xp->bc_free);
		xp->nr_bc++;
		spin_unlock(&xp->bc_lock);
	}
	return 0;
}

/**
 * xprtrdma_bc_maxpayload - largest backward Call or Reply we accept
 * @xprt: transport
 *
 * Both must fit one inline message; a Reply larger than the server's
 * receive buffer is refused by xprtrdma_bc_send().
 *
 * Context: any.
 *
 * Return: size in bytes.
 */
size_t xprtrdma_bc_maxpayload(struct rpc_xprt *xprt)
{
	/* Called under RCU only: the connection cannot be looked at. */
	return min_t(u32, xprtrdma_xp(xprt)->inline_recv -
		     NFSRDMA_WIRE_MIN_MSG_SIZE, PAGE_SIZE);
}

/**
 * xprtrdma_bc_num_slots - backchannel slots to offer in CREATE_SESSION
 * @xprt: transport
 *
 * Context: any.
 *
 * Return: the number of slots.
 */
unsigned int xprtrdma_bc_num_slots(struct rpc_xprt *xprt)
{
	return XPRTRDMA_BC_SLOTS;
}

/**
 * xprtrdma_bc_free_rqst - return a slot after its Reply (rpc_xprt_ops)
 * @rqst: the slot's request
 *
 * Drops the transport reference taken when the Call was queued.  The
 * Reply's Send may still be in flight; the slot's next user waits for it.
 * The slot goes to the tail of the free list, so the slots whose Sends
 * completed long ago are taken first and a lost Send stalls a later Call
 * only once every other slot is busy.
 *
 * Context: any process context.
 */
void xprtrdma_bc_free_rqst(struct rpc_rqst *rqst)
{
	struct xprtrdma_bc *bc = container_of(rqst, struct xprtrdma_bc, rqst);
	struct rpc_xprt *xprt = rqst->rq_xprt;
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);

	smp_mb__before_atomic();
	clear_bit(RPC_BC_PA_IN_USE, &rqst->rq_bc_pa_state);
	smp_mb__after_atomic();

	spin_lock(&xp->bc_lock);
	list_add_tail(&bc->list, &xp->bc_free);
	spin_unlock(&xp->bc_lock);
	xprt_put(xprt);
}

/**
 * xprtrdma_bc_destroy - release backchannel slots (rpc_xprt_ops.bc_destroy)
 * @xprt: transport
 * @max_reqs: slots no longer needed
 *
 * Slots stay until the transport is destroyed (xprtrdma_bc_free_all()):
 * one may still be in the hands of the callback service.
 *
 * Context: process context.
 */
void xprtrdma_bc_destroy(struct rpc_xprt *xprt, unsigned int max_reqs)
{
}

/**
 * xprtrdma_bc_free_all - free every backchannel slot
 * @xp: transport being destroyed; no slot is in use, since each in-use
 *	slot holds a transport reference
 *
 * Context: process context.
 */
void xprtrdma_bc_free_all(struct xprtrdma_xprt *xp)
{
	struct xprtrdma_bc *bc, *tmp;

	list_for_each_entry_safe(bc, tmp, &xp->bc_all, all) {
		list_del(&bc->all);
		xprtrdma_bc_free_one(bc);
	}
	INIT_LIST_HEAD(&xp->bc_free);
	xp->nr_bc = 0;
}

/**
 * xprtrdma_bc_receive - queue a backward-direction Call to the callback service
 * @xp: transport it arrived on
 * @xid: the Call's XID
 * @inl: the RPC Call message (starting with its XID)
 * @ilen: its length
 *
 * A Call nobody can take (no callback service, no free slot, too big) is
 * dropped; the server retries or marks its callback path down.
 *
 * The slot's previous Reply may still be on the wire: it travels in the
 * slot's send buffer, which only xprtrdma_bc_send() touches, and that
 * waits for it; the pages reused here were copied out when it was sent.
 *
 * Context: receive CQ work; does not sleep.
 */
void xprtrdma_bc_receive(struct xprtrdma_xprt *xp, __be32 xid, void *inl,
			 u32 ilen)
{
	struct rpc_xprt *xprt = &xp->xprt;
	struct svc_serv *serv = xprt->bc_serv;
	struct xprtrdma_bc *bc;
	struct rpc_rqst *rqst;

	if (!serv || ilen > PAGE_SIZE) {
		trace_xprtrdma_cb_call(xp, xid, ilen, serv ?
				       "dropped: too large" :
				       "dropped: no callback service");
		pr_warn_ratelimited("xprtrdma: backchannel call from %s dropped (%s)\n",
				    xprt->address_strings[RPC_DISPLAY_ADDR],
				    serv ? "too large" : "no callback service");
		return;
	}
	spin_lock(&xp->bc_lock);
	bc = list_first_entry_or_null(&xp->bc_free, struct xprtrdma_bc, list);
	if (bc)
		list_del_init(&bc->list);
	spin_unlock(&xp->bc_lock);
	if (!bc) {
		trace_xprtrdma_cb_call(xp, xid, ilen, "dropped: no free slot");
		pr_warn_ratelimited("xprtrdma: backchannel call from %s dropped (no free slot)\n",
				    xprt->address_strings[RPC_DISPLAY_ADDR]);
		return;
	}

	rqst = &bc->rqst;
	xprtrdma_bc_reset_bufs(bc);
	memcpy(rqst->rq_rcv_buf.head[0].iov_base, inl, ilen);
	rqst->rq_rcv_buf.len = ilen;
	memcpy(&rqst->rq_private_buf, &rqst->rq_rcv_buf,
	       sizeof(rqst->rq_private_buf));
	rqst->rq_xprt = xprt;
	rqst->rq_xid = xid;
	rqst->rq_connect_cookie = xprt->connect_cookie;
	rqst->rq_reply_bytes_recvd = 0;
	rqst->rq_task = NULL;
	rqst->rq_cred = NULL;
	rqst->rq_buffer = NULL;
	rqst->rq_release_snd_buf = NULL;
	set_bit(RPC_BC_PA_IN_USE, &rqst->rq_bc_pa_state);
	/* bc_svc_process() decrements it for every Call it is handed. */
	atomic_inc(&xprt->bc_slot_count);

	/* Dropped in xprtrdma_bc_free_rqst(). */
	xprt_get(xprt);
	trace_xprtrdma_cb_call(xp, xid, ilen, "queued");
#ifdef NFSRDMA_BC_LWQ
	lwq_enqueue(&rqst->rq_bc_list, &serv->sv_cb_list);
	svc_pool_wake_idle_thread(&serv->sv_pools[0]);
#else
	spin_lock_bh(&serv->sv_cb_lock);
	list_add(&rqst->rq_bc_list, &serv->sv_cb_list);
	wake_up(&serv->sv_cb_waitq);
	spin_unlock_bh(&serv->sv_cb_lock);
#endif
}

/**
 * xprtrdma_bc_send - transmit a backward-direction Reply
 * @rqst: backchannel slot holding the encoded Reply in rq_snd_buf
 *
 * Context: the callback service's RPC task, holding XPRT_LOCKED.
 *
 * Return: 0 if posted; %-ENOTCONN if the connection is gone (the Reply
 * is dropped and the server retries); %-EIO if it cannot go inline.
 */
int xprtrdma_bc_send(struct rpc_rqst *rqst)
{
	struct xprtrdma_bc *bc = container_of(rqst, struct xprtrdma_bc, rqst);
	struct rpc_xprt *xprt = rqst->rq_xprt;
	struct xprtrdma_xprt *xp = xprtrdma_xp(xprt);
	struct xprtrdma_ep *ep = xp->ep;
	struct nfsrdma_wire_hdr *hdr = xp->hdr;
	struct xdr_buf *snd = &rqst->rq_snd_buf;
	const struct ib_send_wr *bad;
	int hlen, ret;

	if (!ep || !xprt_connected(xprt))
		return -ENOTCONN;
	ret = xprtrdma_sendctx_reuse(&bc->sc, xprt, "backchannel ");
	if (ret)
		return ret;

	hdr->xid = rqst->rq_xid;
	hdr->vers = NFSRDMA_WIRE_VERSION;
	/* In a backward Reply the credit field grants backward Calls. */
	hdr->credits = XPRTRDMA_BC_SLOTS;
	hdr->proc = NFSRDMA_WIRE_PROC_MSG;
	hdr->nr_read = 0;
	hdr->nr_write = 0;
	hdr->has_reply = false;
	hlen = nfsrdma_wire_encode(bc->sc.buf, ep->max_send, hdr);
	if (hlen < 0 || hlen + snd->len > ep->max_send) {
		trace_xprtrdma_cb_reply(xp, rqst->rq_xid, snd->len, -EIO);
		pr_warn_ratelimited("xprtrdma: backchannel reply to %s too large (%u bytes)\n",
				    xprt->address_strings[RPC_DISPLAY_ADDR],
				    snd->len);
		return -EIO;
	}
	xprtrdma_copy_xdr(bc->sc.buf + hlen, snd, 0, true);

	ret = xprtrdma_sendctx_post(&bc->sc, ep, hlen + snd->len, NULL, NULL,
				    false, &bad);
	trace_xprtrdma_cb_reply(xp, rqst->rq_xid, snd->len, ret);
	if (ret) {
		xprt_force_disconnect(xprt);
		return -ENOTCONN;
	}
	return 0;
}
