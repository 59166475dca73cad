/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svcrdma tracepoints (TRACE_SYSTEM svcrdma).
 *
 * Every event about a connection copies the peer's address into the ring
 * buffer: the connection may be freed long before the trace is read (a
 * listener's peer prints as the wildcard address).  The
 * hot path has two events, svcrdma_reply and, for a call with Read
 * chunks, svcrdma_read_chunks; the others fire on connection setup and
 * teardown, on backchannel traffic, and when something goes wrong or has
 * to wait.
 *
 *   echo 1 > /sys/kernel/tracing/events/svcrdma/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM svcrdma

#if !defined(SVCRDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SVCRDMA_TRACE_H

#include <linux/tracepoint.h>
#include <linux/socket.h>
#include <linux/in6.h>
#include <rdma/ib_verbs.h>

#include "svcrdma.h"

/*
 * A connection's peer.  sockaddr_in6 holds an AF_INET address too; the
 * copy comes from the cm_id, which every connection has from the CM's
 * CONNECT_REQUEST on, unlike xpt_remote which is set only at accept.
 */
#define SVCRDMA_PEER_LEN	sizeof(struct sockaddr_in6)
#define svcrdma_peer_of(xp)	((const void *)&(xp)->cm_id->route.addr.dst_addr)

TRACE_EVENT(svcrdma_accept,
	TP_PROTO(const struct svcrdma_xprt *xp),
	TP_ARGS(xp),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__field(u32, credits)
		__field(u32, recv_size)
		__field(u32, inline_send)
		__field(u32, peer_send)
		__field(u32, peer_recv)
		__field(u8, ord)
		__field(u8, ird)
		__field(bool, snd_w_inv)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		__entry->credits = xp->credits;
		__entry->recv_size = xp->recv_size;
		__entry->inline_send = xp->inline_send;
		__entry->peer_send = xp->peer.send_size;
		__entry->peer_recv = xp->peer.recv_size;
		__entry->ord = xp->ord;
		__entry->ird = xp->ird;
		__entry->snd_w_inv = xp->snd_w_inv;
	),
	TP_printk("peer=%pISpc credits=%u recv_size=%u inline_send=%u peer_send=%u peer_recv=%u ord=%u ird=%u send_with_inv=%s",
		  __get_sockaddr(peer), __entry->credits, __entry->recv_size,
		  __entry->inline_send, __entry->peer_send, __entry->peer_recv,
		  __entry->ord, __entry->ird,
		  __entry->snd_w_inv ? "yes" : "no")
);

TRACE_EVENT(svcrdma_disconnect,
	TP_PROTO(const struct svcrdma_xprt *xp, const char *reason, int status),
	TP_ARGS(xp, reason, status),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__string(reason, reason)
		__field(int, status)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		nfsrdma_assign_str(reason, reason);
		__entry->status = status;
	),
	TP_printk("peer=%pISpc reason=\"%s\" status=%d",
		  __get_sockaddr(peer), __get_str(reason), __entry->status)
);

/*
 * A work completion other than a flush.  wc->opcode is undefined when
 * the status is not success, so @op names what we had posted.  The
 * status text is copied: it lives in ib_core, and the trace reader may
 * not dereference another module's memory.
 */
TRACE_EVENT(svcrdma_wc_error,
	TP_PROTO(const struct svcrdma_xprt *xp, const char *op,
		 const struct ib_wc *wc),
	TP_ARGS(xp, op, wc),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__string(op, op)
		__string(status_msg, ib_wc_status_msg(wc->status))
		__field(int, status)
		__field(u32, vendor_err)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		nfsrdma_assign_str(op, op);
		nfsrdma_assign_str(status_msg, ib_wc_status_msg(wc->status));
		__entry->status = wc->status;
		__entry->vendor_err = wc->vendor_err;
	),
	TP_printk("peer=%pISpc op=%s status=%s (%d) vendor_err=0x%x",
		  __get_sockaddr(peer), __get_str(op), __get_str(status_msg),
		  __entry->status, __entry->vendor_err)
);

TRACE_EVENT(svcrdma_err_sent,
	TP_PROTO(const struct svcrdma_xprt *xp, __be32 xid, bool vers,
		 int reason, const char *where),
	TP_ARGS(xp, xid, vers, reason, where),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__field(u32, xid)
		__field(bool, vers)
		__field(int, reason)
		__string(where, where)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		__entry->xid = be32_to_cpu(xid);
		__entry->vers = vers;
		__entry->reason = reason;
		nfsrdma_assign_str(where, where);
	),
	TP_printk("peer=%pISpc xid=0x%08x %s reason=%d in=%s",
		  __get_sockaddr(peer), __entry->xid,
		  __entry->vers ? "ERR_VERS" : "ERR_CHUNK", __entry->reason,
		  __get_str(where))
);

/* Input we neither serve nor answer: dropped, or the connection closed. */
TRACE_EVENT(svcrdma_bad_input,
	TP_PROTO(const struct svcrdma_xprt *xp, u32 len, const char *why,
		 bool closed),
	TP_ARGS(xp, len, why, closed),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__field(u32, len)
		__string(why, why)
		__field(bool, closed)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		__entry->len = len;
		nfsrdma_assign_str(why, why);
		__entry->closed = closed;
	),
	TP_printk("peer=%pISpc len=%u why=\"%s\" %s",
		  __get_sockaddr(peer), __entry->len, __get_str(why),
		  __entry->closed ? "closing" : "dropped")
);

TRACE_EVENT(svcrdma_reply,
	TP_PROTO(const struct svcrdma_xprt *xp, __be32 xid, u32 inline_bytes,
		 u32 write_chunks, u32 write_bytes, u32 reply_bytes,
		 bool invalidate),
	TP_ARGS(xp, xid, inline_bytes, write_chunks, write_bytes, reply_bytes,
		invalidate),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__field(u32, xid)
		__field(u32, inline_bytes)
		__field(u32, write_chunks)
		__field(u32, write_bytes)
		__field(u32, reply_bytes)
		__field(bool, invalidate)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		__entry->xid = be32_to_cpu(xid);
		__entry->inline_bytes = inline_bytes;
		__entry->write_chunks = write_chunks;
		__entry->write_bytes = write_bytes;
		__entry->reply_bytes = reply_bytes;
		__entry->invalidate = invalidate;
	),
	TP_printk("peer=%pISpc xid=0x%08x inline=%u write_chunks=%u write_bytes=%u reply_chunk_bytes=%u send_with_inv=%s",
		  __get_sockaddr(peer), __entry->xid, __entry->inline_bytes,
		  __entry->write_chunks, __entry->write_bytes,
		  __entry->reply_bytes, __entry->invalidate ? "yes" : "no")
);

/* Every RDMA-CM event, on a listener (no peer yet) or a connection. */
TRACE_EVENT(svcrdma_cm_event,
	TP_PROTO(const struct rdma_cm_id *id, const struct rdma_cm_event *ev),
	TP_ARGS(id, ev),
	TP_STRUCT__entry(
		__sockaddr(local, SVCRDMA_PEER_LEN)
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__string(event, rdma_event_msg(ev->event))
		__field(int, status)
	),
	TP_fast_assign(
		__assign_sockaddr(local, &id->route.addr.src_addr,
				  SVCRDMA_PEER_LEN);
		__assign_sockaddr(peer, &id->route.addr.dst_addr,
				  SVCRDMA_PEER_LEN);
		nfsrdma_assign_str(event, rdma_event_msg(ev->event));
		__entry->status = ev->status;
	),
	TP_printk("local=%pISpc peer=%pISpc event=\"%s\" status=%d",
		  __get_sockaddr(local), __get_sockaddr(peer),
		  __get_str(event), __entry->status)
);

/* An RDMA device we serve on is being removed. */
TRACE_EVENT(svcrdma_device_removal,
	TP_PROTO(const struct ib_device *dev, bool busy),
	TP_ARGS(dev, busy),
	TP_STRUCT__entry(
		__string(device, dev_name(&dev->dev))
		__field(bool, busy)
	),
	TP_fast_assign(
		nfsrdma_assign_str(device, dev_name(&dev->dev));
		__entry->busy = busy;
	),
	TP_printk("device=%s %s", __get_str(device),
		  __entry->busy ? "closing its connections" : "unused")
);

/*
 * The flush marker of a stopped connection completed: every completion
 * a correct provider was going to deliver has been handled.
 */
TRACE_EVENT(svcrdma_flush_marker,
	TP_PROTO(const struct svcrdma_xprt *xp, int status),
	TP_ARGS(xp, status),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__field(int, status)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		__entry->status = status;
	),
	TP_printk("peer=%pISpc status=%d", __get_sockaddr(peer),
		  __entry->status)
);

/* An nfsd thread waits for send queue space (the peer is slow to ack). */
TRACE_EVENT(svcrdma_sq_wait,
	TP_PROTO(const struct svcrdma_xprt *xp, unsigned int wanted),
	TP_ARGS(xp, wanted),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__field(unsigned int, wanted)
		__field(int, avail)
		__field(unsigned int, depth)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		__entry->wanted = wanted;
		__entry->avail = atomic_read(&xp->sq_avail);
		__entry->depth = xp->sq_depth;
	),
	TP_printk("peer=%pISpc wanted=%u available=%d of %u",
		  __get_sockaddr(peer), __entry->wanted, __entry->avail,
		  __entry->depth)
);

/* A call's Read chunks were pulled with RDMA Read. */
TRACE_EVENT(svcrdma_read_chunks,
	TP_PROTO(const struct svcrdma_xprt *xp, __be32 xid, u32 segs,
		 unsigned int wrs, u32 call_len),
	TP_ARGS(xp, xid, segs, wrs, call_len),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__field(u32, xid)
		__field(u32, segs)
		__field(unsigned int, wrs)
		__field(u32, call_len)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		__entry->xid = be32_to_cpu(xid);
		__entry->segs = segs;
		__entry->wrs = wrs;
		__entry->call_len = call_len;
	),
	TP_printk("peer=%pISpc xid=0x%08x segments=%u rdma_reads=%u call_len=%u",
		  __get_sockaddr(peer), __entry->xid, __entry->segs,
		  __entry->wrs, __entry->call_len)
);

/* A backward-direction (NFSv4.1 callback) Call, or its Reply. */
DECLARE_EVENT_CLASS(svcrdma_cb_class,
	TP_PROTO(const struct svcrdma_xprt *xp, __be32 xid, u32 len,
		 int status),
	TP_ARGS(xp, xid, len, status),
	TP_STRUCT__entry(
		__sockaddr(peer, SVCRDMA_PEER_LEN)
		__field(u32, xid)
		__field(u32, len)
		__field(int, status)
	),
	TP_fast_assign(
		__assign_sockaddr(peer, svcrdma_peer_of(xp), SVCRDMA_PEER_LEN);
		__entry->xid = be32_to_cpu(xid);
		__entry->len = len;
		__entry->status = status;
	),
	TP_printk("peer=%pISpc xid=0x%08x len=%u status=%d",
		  __get_sockaddr(peer), __entry->xid, __entry->len,
		  __entry->status)
);

DEFINE_EVENT(svcrdma_cb_class, svcrdma_cb_call,
	TP_PROTO(const struct svcrdma_xprt *xp, __be32 xid, u32 len,
		 int status),
	TP_ARGS(xp, xid, len, status));

DEFINE_EVENT(svcrdma_cb_class, svcrdma_cb_reply,
	TP_PROTO(const struct svcrdma_xprt *xp, __be32 xid, u32 len,
		 int status),
	TP_ARGS(xp, xid, len, status));

#endif /* SVCRDMA_TRACE_H */

/* Out of tree: define_trace.h finds us through -I$(src) (see Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
