/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xprtrdma: tracepoints of the RPC-over-RDMA client transport.
 *
 * Enable them with
 *	echo 1 > /sys/kernel/tracing/events/xprtrdma/enable
 * Every event copies what it shows into the ring buffer (the peer address
 * and port as strings, the XID in host order), so nothing it prints can
 * have gone away by the time the buffer is read.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xprtrdma

#if !defined(XPRTRDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define XPRTRDMA_TRACE_H

#include <linux/tracepoint.h>
#include <linux/sunrpc/xprt.h>
#include <rdma/ib_verbs.h>
#include <nfsrdma/wire.h>

#include "xprtrdma.h"

#define XPRTRDMA_TRACE_PEER_FIELDS(xp)					\
	__string(addr, (xp)->xprt.address_strings[RPC_DISPLAY_ADDR])	\
	__string(port, (xp)->xprt.address_strings[RPC_DISPLAY_PORT])

#define XPRTRDMA_TRACE_PEER_ASSIGN(xp)					\
	do {								\
		nfsrdma_assign_str(addr,					\
			     (xp)->xprt.address_strings[RPC_DISPLAY_ADDR]); \
		nfsrdma_assign_str(port,					\
			     (xp)->xprt.address_strings[RPC_DISPLAY_PORT]); \
	} while (0)

TRACE_EVENT(xprtrdma_connect,
	TP_PROTO(const struct xprtrdma_xprt *xp, int status),
	TP_ARGS(xp, status),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(int, status)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->status = status;
	),
	TP_printk("peer=%s:%s status=%d", __get_str(addr), __get_str(port),
		  __entry->status)
);

/*
 * A connection attempt queued: how long it waits first (the reconnect
 * backoff) and what the next attempt will wait if this one fails (0 until
 * a connection has been made once: no backoff before that).
 */
TRACE_EVENT(xprtrdma_connect_scheduled,
	TP_PROTO(const struct xprtrdma_xprt *xp, unsigned long delay,
		 unsigned long next),
	TP_ARGS(xp, delay, next),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(unsigned int, delay_ms)
		__field(unsigned int, next_ms)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->delay_ms = jiffies_to_msecs(delay);
		__entry->next_ms = jiffies_to_msecs(next);
	),
	TP_printk("peer=%s:%s delay_ms=%u next_ms=%u", __get_str(addr),
		  __get_str(port), __entry->delay_ms, __entry->next_ms)
);

/* Every RDMA-CM event on the client's cm_id: the connection's state. */
TRACE_EVENT(xprtrdma_cm_event,
	TP_PROTO(const struct xprtrdma_xprt *xp,
		 const struct rdma_cm_event *event),
	TP_ARGS(xp, event),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__string(event, rdma_event_msg(event->event))
		__field(int, status)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		nfsrdma_assign_str(event, rdma_event_msg(event->event));
		__entry->status = event->status;
	),
	TP_printk("peer=%s:%s event=\"%s\" status=%d", __get_str(addr),
		  __get_str(port), __get_str(event), __entry->status)
);

/* What a new connection settled on, from both sides' limits. */
TRACE_EVENT(xprtrdma_established,
	TP_PROTO(const struct xprtrdma_xprt *xp,
		 const struct xprtrdma_ep *ep),
	TP_ARGS(xp, ep),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, max_reqs)
		__field(u32, max_send)
		__field(u32, max_recv)
		__field(unsigned int, nr_mrs)
		__field(u32, mr_depth)
		__field(bool, remote_inv)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->max_reqs = ep->max_reqs;
		__entry->max_send = ep->max_send;
		__entry->max_recv = ep->max_recv;
		__entry->nr_mrs = ep->nr_mrs;
		__entry->mr_depth = ep->mr_depth;
		__entry->remote_inv = ep->peer.remote_inv;
	),
	TP_printk("peer=%s:%s max_credits=%u inline_send=%u inline_recv=%u mrs=%u mr_pages=%u remote_inv=%s",
		  __get_str(addr), __get_str(port), __entry->max_reqs,
		  __entry->max_send, __entry->max_recv, __entry->nr_mrs,
		  __entry->mr_depth, __entry->remote_inv ? "yes" : "no")
);

/* The credits we use changed: the server's grant, clamped to 1..slots. */
TRACE_EVENT(xprtrdma_credits,
	TP_PROTO(const struct xprtrdma_xprt *xp, u32 granted, u32 old,
		 u32 now),
	TP_ARGS(xp, granted, old, now),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, granted)
		__field(u32, old)
		__field(u32, now)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->granted = granted;
		__entry->old = old;
		__entry->now = now;
	),
	TP_printk("peer=%s:%s granted=%u credits=%u->%u", __get_str(addr),
		  __get_str(port), __entry->granted, __entry->old, __entry->now)
);

/*
 * A call could not be sent yet and goes back to the RPC client to wait.
 * Most credit waits happen before: in the core's xprt_reserve_xprt_cong(),
 * traced by sunrpc's own xprt_reserve_cong event.
 */
TRACE_EVENT(xprtrdma_send_deferred,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid,
		 const char *reason),
	TP_ARGS(xp, xid, reason),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, xid)
		__field(u32, credits)
		__string(reason, reason)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->xid = be32_to_cpu(xid);
		__entry->credits = xp->credits;
		nfsrdma_assign_str(reason, reason);
	),
	TP_printk("peer=%s:%s xid=0x%08x credits=%u reason=\"%s\"",
		  __get_str(addr), __get_str(port), __entry->xid,
		  __entry->credits, __get_str(reason))
);

/* Events that name one call by its XID. */
DECLARE_EVENT_CLASS(xprtrdma_call_class,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid),
	TP_ARGS(xp, xid),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, xid)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->xid = be32_to_cpu(xid);
	),
	TP_printk("peer=%s:%s xid=0x%08x", __get_str(addr), __get_str(port),
		  __entry->xid)
);

/*
 * The core asked for a (re)transmission of a call whose reply had
 * already come: nothing is sent, and its buffers are left as the reply
 * placed them.
 */
DEFINE_EVENT(xprtrdma_call_class, xprtrdma_send_skipped,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid),
	TP_ARGS(xp, xid));

/*
 * A call's chunks went to the registration QP, because Sends were
 * outstanding on the connection's QP (see frwr.c).
 */
DEFINE_EVENT(xprtrdma_call_class, xprtrdma_regq_chain,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid),
	TP_ARGS(xp, xid));

/* A retransmission retires the MRs its earlier attempt registered. */
TRACE_EVENT(xprtrdma_mr_recover,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid,
		 unsigned int nr_mrs),
	TP_ARGS(xp, xid, nr_mrs),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, xid)
		__field(unsigned int, nr_mrs)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->xid = be32_to_cpu(xid);
		__entry->nr_mrs = nr_mrs;
	),
	TP_printk("peer=%s:%s xid=0x%08x mrs=%u", __get_str(addr),
		  __get_str(port), __entry->xid, __entry->nr_mrs)
);

/*
 * A staging buffer's key changed state (stage.c): "register" (a REG_MR
 * under a fresh key goes out with this call), "retire" (LOCAL_INV after
 * a retransmission, a call sent twice, a refused reply or a task gone),
 * "invalidated by server" (Send With Invalidate of the key), "unusable"
 * (its state is unknown: not used again on this connection).
 */
TRACE_EVENT(xprtrdma_stage,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid, unsigned int slot,
		 u32 rkey, const char *what),
	TP_ARGS(xp, xid, slot, rkey, what),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, xid)
		__field(unsigned int, slot)
		__field(u32, rkey)
		__string(what, what)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->xid = be32_to_cpu(xid);
		__entry->slot = slot;
		__entry->rkey = rkey;
		nfsrdma_assign_str(what, what);
	),
	TP_printk("peer=%s:%s xid=0x%08x slot=%u rkey=0x%08x %s",
		  __get_str(addr), __get_str(port), __entry->xid,
		  __entry->slot, __entry->rkey, __get_str(what))
);

/* A backward-direction (NFSv4.1 callback) Call from the server. */
TRACE_EVENT(xprtrdma_cb_call,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid, u32 len,
		 const char *verdict),
	TP_ARGS(xp, xid, len, verdict),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, xid)
		__field(u32, len)
		__string(verdict, verdict)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->xid = be32_to_cpu(xid);
		__entry->len = len;
		nfsrdma_assign_str(verdict, verdict);
	),
	TP_printk("peer=%s:%s xid=0x%08x len=%u %s", __get_str(addr),
		  __get_str(port), __entry->xid, __entry->len,
		  __get_str(verdict))
);

/* Our Reply to a backward-direction Call. */
TRACE_EVENT(xprtrdma_cb_reply,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid, u32 len,
		 int status),
	TP_ARGS(xp, xid, len, status),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, xid)
		__field(u32, len)
		__field(int, status)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->xid = be32_to_cpu(xid);
		__entry->len = len;
		__entry->status = status;
	),
	TP_printk("peer=%s:%s xid=0x%08x len=%u status=%d", __get_str(addr),
		  __get_str(port), __entry->xid, __entry->len,
		  __entry->status)
);

/* The RDMA device under a connection is being removed. */
TRACE_EVENT(xprtrdma_device_removal,
	TP_PROTO(const struct xprtrdma_xprt *xp, const struct ib_device *dev),
	TP_ARGS(xp, dev),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__string(device, dev_name(&dev->dev))
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		nfsrdma_assign_str(device, dev_name(&dev->dev));
	),
	TP_printk("peer=%s:%s device=%s", __get_str(addr), __get_str(port),
		  __get_str(device))
);

TRACE_EVENT(xprtrdma_disconnect,
	TP_PROTO(const struct xprtrdma_xprt *xp, const char *reason,
		 int status),
	TP_ARGS(xp, reason, status),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__string(reason, reason)
		__field(int, status)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		nfsrdma_assign_str(reason, reason);
		__entry->status = status;
	),
	TP_printk("peer=%s:%s reason=\"%s\" status=%d", __get_str(addr),
		  __get_str(port), __get_str(reason), __entry->status)
);

TRACE_EVENT(xprtrdma_wc_error,
	TP_PROTO(const struct xprtrdma_xprt *xp, const char *wr,
		 const struct ib_wc *wc),
	TP_ARGS(xp, wr, wc),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__string(wr, wr)
		__string(msg, ib_wc_status_msg(wc->status))
		__field(unsigned int, status)
		__field(u32, vendor_err)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		nfsrdma_assign_str(wr, wr);
		nfsrdma_assign_str(msg, ib_wc_status_msg(wc->status));
		__entry->status = wc->status;
		__entry->vendor_err = wc->vendor_err;
	),
	TP_printk("peer=%s:%s wr=%s status=%u (%s) vendor_err=0x%x",
		  __get_str(addr), __get_str(port), __get_str(wr),
		  __entry->status, __get_str(msg), __entry->vendor_err)
);

TRACE_EVENT(xprtrdma_reply_rejected,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid, int err,
		 const char *reason),
	TP_ARGS(xp, xid, err, reason),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, xid)
		__field(int, err)
		__string(reason, reason)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->xid = be32_to_cpu(xid);
		__entry->err = err;
		nfsrdma_assign_str(reason, reason);
	),
	TP_printk("peer=%s:%s xid=0x%08x err=%d reason=\"%s\"",
		  __get_str(addr), __get_str(port), __entry->xid, __entry->err,
		  __get_str(reason))
);

TRACE_EVENT(xprtrdma_marshal_failed,
	TP_PROTO(const struct xprtrdma_xprt *xp, __be32 xid, int err),
	TP_ARGS(xp, xid, err),
	TP_STRUCT__entry(
		XPRTRDMA_TRACE_PEER_FIELDS(xp)
		__field(u32, xid)
		__field(int, err)
	),
	TP_fast_assign(
		XPRTRDMA_TRACE_PEER_ASSIGN(xp);
		__entry->xid = be32_to_cpu(xid);
		__entry->err = err;
	),
	TP_printk("peer=%s:%s xid=0x%08x err=%d", __get_str(addr),
		  __get_str(port), __entry->xid, __entry->err)
);

TRACE_EVENT(xprtrdma_marshal,
	TP_PROTO(const struct xprtrdma_req *req,
		 const struct nfsrdma_wire_hdr *hdr, u32 inline_len,
		 u32 read_bytes),
	TP_ARGS(req, hdr, inline_len, read_bytes),
	TP_STRUCT__entry(
		__field(u32, xid)
		__field(u32, proc)
		__field(u32, inline_len)
		__field(u32, read_segs)
		__field(u32, read_bytes)
		__field(u32, write_segs)
		__field(u32, write_bytes)
		__field(bool, reply)
		__field(u32, reply_bytes)
	),
	TP_fast_assign(
		__entry->xid = be32_to_cpu(hdr->xid);
		__entry->proc = hdr->proc;
		__entry->inline_len = inline_len;
		__entry->read_segs = hdr->nr_read;
		__entry->read_bytes = read_bytes;
		__entry->write_segs = hdr->nr_write ? hdr->write[0].nr_segs : 0;
		__entry->write_bytes = req->write_offered;
		__entry->reply = hdr->has_reply;
		__entry->reply_bytes = req->reply_offered;
	),
	TP_printk("xid=0x%08x %s inline=%u read=%u/%u write=%u/%u reply=%s/%u",
		  __entry->xid,
		  __entry->proc == NFSRDMA_WIRE_PROC_NOMSG ? "RDMA_NOMSG" :
		  "RDMA_MSG", __entry->inline_len, __entry->read_segs,
		  __entry->read_bytes, __entry->write_segs,
		  __entry->write_bytes, __entry->reply ? "yes" : "no",
		  __entry->reply_bytes)
);

TRACE_EVENT(xprtrdma_reply,
	TP_PROTO(const struct xprtrdma_xprt *xp,
		 const struct nfsrdma_wire_hdr *hdr, bool remote_inv),
	TP_ARGS(xp, hdr, remote_inv),
	TP_STRUCT__entry(
		__field(u32, xid)
		__field(u32, proc)
		__field(u32, credits)
		__field(bool, remote_inv)
	),
	TP_fast_assign(
		__entry->xid = be32_to_cpu(hdr->xid);
		__entry->proc = hdr->proc;
		__entry->credits = hdr->credits;
		__entry->remote_inv = remote_inv;
	),
	TP_printk("xid=0x%08x %s credits=%u remote_inv=%s", __entry->xid,
		  __entry->proc == NFSRDMA_WIRE_PROC_NOMSG ? "RDMA_NOMSG" :
		  "RDMA_MSG", __entry->credits,
		  __entry->remote_inv ? "yes" : "no")
);

#endif /* XPRTRDMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
