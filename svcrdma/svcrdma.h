/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svcrdma internal types: the RPC-over-RDMA Version 1 server transport.
 *
 * One struct svcrdma_xprt per svc_xprt.  A listener owns only an rdma_cm
 * id and a queue of connection requests that an nfsd thread has not
 * accepted yet; a connection owns a PD, two CQs, an RC QP, a ring of
 * receive contexts and a pool of send contexts.
 */
#ifndef SVCRDMA_SVCRDMA_H
#define SVCRDMA_SVCRDMA_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/wait.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include <linux/scatterlist.h>
#include <linux/sunrpc/svc_xprt.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

#include <nfsrdma/wire.h>

/* Largest NFS READ/WRITE payload we let nfsd negotiate over RDMA. */
#define SVCRDMA_MAX_PAYLOAD	(1024 * 1024)

/*
 * Bytes of reply pages one connection's RDMA Writes may keep pinned after
 * nfsd has moved on (send.c).  Past it, nfsd waits for the Writes, which
 * also paces a client that reads faster than it acknowledges.
 */
#define SVCRDMA_HELD_MAX	(16 * 1024 * 1024)

/* Bits in struct svcrdma_xprt.flags */
enum {
	SVCRDMA_F_LISTENER,	/* this is a listening endpoint */
	SVCRDMA_F_ACCEPTED,	/* svc_xprt_init() done; svc owns the lifetime */
	SVCRDMA_F_PEER_GONE,	/* CM reported the connection dead */
	SVCRDMA_F_ON_DEVLIST,	/* linked on the per-module connection list */
	SVCRDMA_F_KA_BUSY,	/* a keepalive probe is in flight */
	SVCRDMA_F_CREDITED,	/* @credits is counted in credits_in_use */
	SVCRDMA_F_THROTTLED,	/* a call waits for one of ours to be released */
	SVCRDMA_F_STOPPING,	/* the stall check is stopping the connection */
	SVCRDMA_F_STOPPED,	/* stopping: posts are refused from now on */
	SVCRDMA_F_MARKER_POSTED, /* the flush marker is on the send queue */
	SVCRDMA_F_MARKER_DONE,	/* the flush marker completed */
	SVCRDMA_F_LX_GONE,	/* listener being freed: never listen again */
};

/*
 * Module-wide counters and gauges, shown read-only under
 * /proc/sys/sunrpc/svcrdma/ (stats.c).  Gauges go up when a resource is
 * taken and down when it is given back, so an idle server shows the same
 * values before and after any number of connections.
 */
enum svcrdma_stat {
	SVCRDMA_STAT_CALLS_RECEIVED,
	SVCRDMA_STAT_READ_CHUNKS,
	SVCRDMA_STAT_READ_BYTES,
	SVCRDMA_STAT_WRITE_CHUNKS,
	SVCRDMA_STAT_WRITE_BYTES,
	SVCRDMA_STAT_REPLY_CHUNKS,
	SVCRDMA_STAT_REPLY_BYTES,
	SVCRDMA_STAT_INLINE_REPLIES,
	SVCRDMA_STAT_ERR_VERS_SENT,
	SVCRDMA_STAT_ERR_CHUNK_SENT,
	SVCRDMA_STAT_BAD_INPUT_CLOSES,
	SVCRDMA_STAT_STALL_CLOSES,
	SVCRDMA_STAT_LOST_COMPLETIONS,
	SVCRDMA_STAT_THROTTLED,
	SVCRDMA_STAT_WC_ERRORS,
	SVCRDMA_STAT_CONNS_ACCEPTED,
	SVCRDMA_STAT_REQUESTS_REFUSED,
	SVCRDMA_STAT_RELISTENS,
	SVCRDMA_STAT_WRITE_WAITS,
	SVCRDMA_STAT_READ_TURNS,
	SVCRDMA_STAT_MR_POOL_WAITS,
	/* gauges from here on */
	SVCRDMA_STAT_REQUESTS_PENDING,
	SVCRDMA_STAT_CONNS_ACTIVE,
	SVCRDMA_STAT_CREDITS_IN_USE,
	SVCRDMA_STAT_RECV_CTXTS,
	SVCRDMA_STAT_SEND_CTXTS,
	SVCRDMA_STAT_MEMORY_BYTES,
	SVCRDMA_STAT_NR
};

/**
 * struct svcrdma_xprt - one listener or one connection
 * @xprt: the generic server transport; svc_xprt_init() clears it
 * @cm_id: connection manager id; destroyed only from xpo_free, or for a
 *	listener also from @relisten, under @listen_lock
 * @flags: SVCRDMA_F_* bits
 * @listener: for a queued connection request, the listener it arrived on
 * @accept_node: link on the listener's @accept_q until accepted
 * @accept_lock: protects @accept_q and the listener's XPT_CONN bit
 * @accept_q: connection requests waiting for xpo_accept (listener only)
 * @nr_pending: entries on @accept_q and places reserved for them, under
 *	@accept_lock
 * @listen_lock: serialises replacing a listener's @cm_id with freeing it
 * @relisten: replaces a listener's @cm_id after an address change
 * @relisten_tries: failed attempts since the last successful relisten
 * @dev_node: link on svcrdma_conns while verbs resources exist
 * @peer: the client's RFC 8797 private data, or the defaults
 * @ord: RDMA Reads the client lets us have outstanding (from its CM REQ)
 * @ird: RDMA Reads the client wants to have outstanding against us
 * @read_piece: on rxe, the most bytes of a large call's Reads in flight
 *	(0: no limit); see svcrdma_build_call()
 * @read_mutex: lets one large call at a time read, piece by piece
 * @dev: RDMA device the connection runs on
 * @port: its port number
 * @pd: protection domain
 * @rcq: receive completion queue
 * @scq: send completion queue (Send, RDMA Read and RDMA Write)
 * @qp: the RC queue pair (also @cm_id->qp)
 * @credits: credit grant advertised in every reply
 * @recv_size: size of each posted receive buffer (advertised to the peer)
 * @inline_send: largest message we Send; bounded by the peer's receive size
 * @snd_w_inv: the peer accepts Send With Invalidate and the device can
 *	post it
 * @nr_recvs: entries in @recvs
 * @recvs: every receive context, for teardown
 * @ready_lock: protects @ready
 * @ready: received messages waiting for an nfsd thread
 * @held: calls handed to nfsd threads and not yet released
 * @send_lock: protects @send_free
 * @send_free: idle send contexts
 * @send_wait: threads waiting for a send context
 * @nr_sends: entries in @sends
 * @sends: every send context, for teardown
 * @sq_depth: send queue slots in all; a chain needing more is refused
 * @sq_avail: send queue slots not in use
 * @sq_wait: threads waiting for send queue slots, or for rdma_rw
 *	contexts to come back (@rw_releases)
 * @rw_releases: sets of RDMA operations released, so that a Read that
 *	found the QP's MR pool dry knows when to try again
 * @post_sem: read-held around every ib_post_send() on @qp, write-held
 *	while the flush marker is posted, so that it follows them all
 * @marker_cqe: completion entry of the flush marker
 * @held_lock: protects @held_bytes and every send context's @writes_held
 * @held_bytes: page bytes async replies still pin, bounded by
 *	SVCRDMA_HELD_MAX
 * @writes_releasing: releases of async replies' Writes under way
 * @health: periodic stall check and dead-peer probe
 * @ka_last: jiffies when the last probe was posted
 * @ka_cqe: completion entry of the probe (a zero-length RDMA Write)
 */
struct svcrdma_xprt {
	struct svc_xprt		xprt;
	struct rdma_cm_id	*cm_id;
	unsigned long		flags;

	struct svcrdma_xprt	*listener;
	struct list_head	accept_node;
	spinlock_t		accept_lock;
	struct list_head	accept_q;
	unsigned int		nr_pending;
	struct mutex		listen_lock;
	struct delayed_work	relisten;
	unsigned int		relisten_tries;

	struct list_head	dev_node;
	struct nfsrdma_wire_cm_pdata peer;
	u8			ord;
	u8			ird;
	u32			read_piece;
	struct mutex		read_mutex;

	struct ib_device	*dev;
	u32			port;
	struct ib_pd		*pd;
	struct ib_cq		*rcq;
	struct ib_cq		*scq;
	struct ib_qp		*qp;

	u32			credits;
	u32			recv_size;
	u32			inline_send;
	bool			snd_w_inv;

	unsigned int		nr_recvs;
	struct svcrdma_recv_ctxt **recvs;
	spinlock_t		ready_lock;
	struct list_head	ready;
	atomic_t		held;

	spinlock_t		send_lock;
	struct list_head	send_free;
	wait_queue_head_t	send_wait;
	unsigned int		nr_sends;
	struct svcrdma_send_ctxt **sends;

	u32			sq_depth;
	atomic_t		sq_avail;
	wait_queue_head_t	sq_wait;
	atomic_t		rw_releases;
	struct rw_semaphore	post_sem;
	struct ib_cqe		marker_cqe;
	spinlock_t		held_lock;
	u64			held_bytes;
	atomic_t		writes_releasing;

	struct delayed_work	health;
	unsigned long		ka_last;
	struct ib_cqe		ka_cqe;
};

/**
 * struct svcrdma_payload - a result payload nfsd reported for DDP
 * @offset: byte offset of the payload in rqstp->rq_res
 * @length: payload length in bytes, without XDR padding
 */
struct svcrdma_payload {
	u32 offset;
	u32 length;
};

/**
 * struct svcrdma_rw_set - RDMA Reads or Writes posted as one chain
 * @ops: list of struct svcrdma_rw_op, in posting order
 * @nr_wrs: work requests the chain needs on the send queue
 * @dir: DMA_FROM_DEVICE for RDMA Read, DMA_TO_DEVICE for RDMA Write
 * @cqe: completion entry of a Read chain's last (signaled) WR
 * @done: completed by the Read chain's completion handler
 * @status: its work completion status
 * @pinned: svcrdma_rw_pin() took a page reference per scatter entry,
 *	which svcrdma_rw_release() drops
 * @posted_wrs: a Read set's work requests in chains of the same call
 *	already posted and completed (see svcrdma_read_add())
 * @paced: a Read set read one piece at a time (svcrdma_read_add())
 * @paced_since: when a paced set's call took the connection's read mutex
 * @paced_bytes: bytes of the piece a paced set is filling
 */
struct svcrdma_rw_set {
	struct list_head	ops;
	unsigned int		nr_wrs;
	enum dma_data_direction	dir;
	struct ib_cqe		cqe;
	struct completion	done;
	enum ib_wc_status	status;
	bool			pinned;
	unsigned int		posted_wrs;
	bool			paced;
	unsigned long		paced_since;
	u32			paced_bytes;
};

/**
 * struct svcrdma_recv_ctxt - one posted receive buffer and the call in it
 * @node: link on &svcrdma_xprt.ready
 * @xp: owning connection
 * @cqe: completion entry for the Receive
 * @wr: the Receive work request
 * @sge: its single scatter entry
 * @buf: the receive buffer, @xp->recv_size bytes, DMA-mapped for its life
 * @byte_len: bytes the last completion delivered
 * @nr_payloads: entries used in @payloads
 * @payloads: DDP-eligible results, matched in order to Write chunks
 * @hdr: the decoded transport header, from svcrdma_hdr_alloc() while
 *	the call is being served (NULL while the buffer is posted); kept
 *	until the reply is sent because the reply needs the call's Write
 *	list and Reply chunk, and then rewritten in place into the reply's
 *	header
 * @reads: the call's RDMA Read chain; here rather than on the stack so
 *	that a completion the provider lost and delivers late still lands
 *	in memory that lives until the CQs are gone
 */
struct svcrdma_recv_ctxt {
	struct list_head	node;
	struct svcrdma_xprt	*xp;
	struct ib_cqe		cqe;
	struct ib_recv_wr	wr;
	struct ib_sge		sge;
	void			*buf;
	u32			byte_len;
	unsigned int		nr_payloads;
	struct svcrdma_payload	payloads[NFSRDMA_WIRE_MAX_WRITE_CHUNKS];
	struct nfsrdma_wire_hdr	*hdr;
	struct svcrdma_rw_set	reads;
};

/**
 * struct svcrdma_send_ctxt - one registered send buffer
 * @node: link on &svcrdma_xprt.send_free
 * @xp: owning connection
 * @cqe: completion entry for the Send
 * @wr: the Send work request
 * @sge: its single gather entry
 * @done: completed by the Send's completion handler
 * @status: work completion status of the Send
 * @async: nobody waits; the completion handler recycles the context
 * @inflight: the Send is posted and has not completed
 * @lost: the provider lost the Send's completion (svcrdma_wait_wr()); kept
 *	off @send_free from then on, as the completion might still come
 * @posted: jiffies when it was posted, meaningful with @inflight
 * @sq_slots: send queue slots the post reserved, returned on completion
 * @buf: the send buffer, @xp->inline_send bytes, DMA-mapped for its life
 * @writes: the reply's RDMA Writes, chained in front of the Send
 * @writes_held: an async reply's @writes (and the nfsd pages they pinned)
 *	wait for the Send's completion; under @xp->held_lock, whoever clears
 *	it releases them (the completion handler, a failed post, or
 *	svcrdma_sends_release_lost() for a Send that never completed)
 * @held_bytes: a page's worth per reference @writes took, charged to
 *	@xp->held_bytes
 */
struct svcrdma_send_ctxt {
	struct list_head	node;
	struct svcrdma_xprt	*xp;
	struct ib_cqe		cqe;
	struct ib_send_wr	wr;
	struct ib_sge		sge;
	struct completion	done;
	enum ib_wc_status	status;
	bool			async;
	bool			inflight;
	bool			lost;
	unsigned long		posted;
	unsigned int		sq_slots;
	void			*buf;
	struct svcrdma_rw_set	writes;
	bool			writes_held;
	u32			held_bytes;
};


extern struct svc_xprt_class svcrdma_class;
extern unsigned int svcrdma_credits;
extern unsigned int svcrdma_max_inline;
extern unsigned int svcrdma_keepalive;
extern unsigned int svcrdma_ack_timeout;
extern unsigned int svcrdma_stall_timeout;
extern unsigned int svcrdma_rxe_read_piece;
extern atomic_long_t svcrdma_stats[SVCRDMA_STAT_NR];

static inline void svcrdma_stat_add(enum svcrdma_stat s, long n)
{
	atomic_long_add(n, &svcrdma_stats[s]);
}

static inline void svcrdma_stat_inc(enum svcrdma_stat s)
{
	atomic_long_inc(&svcrdma_stats[s]);
}

static inline void svcrdma_stat_dec(enum svcrdma_stat s)
{
	atomic_long_dec(&svcrdma_stats[s]);
}

/* Memory we allocate, as requested (not as rounded up by the slab). */
static inline void svcrdma_mem_add(size_t bytes)
{
	atomic_long_add(bytes, &svcrdma_stats[SVCRDMA_STAT_MEMORY_BYTES]);
}

static inline void svcrdma_mem_sub(size_t bytes)
{
	atomic_long_sub(bytes, &svcrdma_stats[SVCRDMA_STAT_MEMORY_BYTES]);
}

static inline struct svcrdma_xprt *svcrdma_of(struct svc_xprt *xprt)
{
	return container_of(xprt, struct svcrdma_xprt, xprt);
}

/* stats.c */
int svcrdma_stats_init(void);
void svcrdma_stats_exit(void);

/* What we support of the tunables' ranges (tunables.c). */
#define SVCRDMA_CREDITS_MIN	8
#define SVCRDMA_CREDITS_MAX	1024
#define SVCRDMA_INLINE_MIN	1024
#define SVCRDMA_INLINE_MAX	65536

u32 svcrdma_tunable_credits(void);
u32 svcrdma_tunable_inline(void);
u32 svcrdma_tunable_ord(void);
int svcrdma_tunables_init(void);
void svcrdma_tunables_exit(void);

/* transport.c */
int svcrdma_devices_init(void);
void svcrdma_devices_exit(void);
int svcrdma_sq_get(struct svcrdma_xprt *xp, unsigned int n);
void svcrdma_sq_put(struct svcrdma_xprt *xp, unsigned int n);
void svcrdma_post_failed(struct svcrdma_xprt *xp,
			 const struct ib_send_wr *first,
			 const struct ib_send_wr *bad);
/* How long a waiter sleeps before it looks at the send queue again. */
#define SVCRDMA_WAIT_TICK	HZ
void svcrdma_stall_check(struct svcrdma_xprt *xp);
int svcrdma_post(struct svcrdma_xprt *xp, const struct ib_send_wr *first,
		 const struct ib_send_wr **bad);
bool svcrdma_wait_wr(struct svcrdma_xprt *xp, struct completion *done,
		     unsigned long posted, const char *what);
bool svcrdma_hold(struct svcrdma_xprt *xp, const struct svc_rqst *rqstp);
void svcrdma_unhold(struct svcrdma_xprt *xp);

/* recv.c */
struct nfsrdma_wire_hdr *svcrdma_hdr_alloc(void);
void svcrdma_hdr_free(struct nfsrdma_wire_hdr *hdr);
int svcrdma_hdr_pool_init(void);
void svcrdma_hdr_pool_exit(void);
int svcrdma_recvs_create(struct svcrdma_xprt *xp);
void svcrdma_recvs_destroy(struct svcrdma_xprt *xp);
int svcrdma_recvfrom(struct svc_rqst *rqstp);
void svcrdma_release_ctxt(struct svc_xprt *xprt, void *ctxt);

/* send.c */
int svcrdma_sends_create(struct svcrdma_xprt *xp);
void svcrdma_sends_destroy(struct svcrdma_xprt *xp);
void svcrdma_sends_release_lost(struct svcrdma_xprt *xp);
void svcrdma_send_error(struct svcrdma_xprt *xp, __be32 xid, int err,
			const char *where);
int svcrdma_sendto(struct svc_rqst *rqstp);
int svcrdma_result_payload(struct svc_rqst *rqstp, unsigned int offset,
			   unsigned int length);
int svcrdma_send_bc_call(struct svcrdma_xprt *xp, __be32 xid,
			 const struct xdr_buf *xdr);

/* backchannel.c */
int svcrdma_bc_init(void);
void svcrdma_bc_exit(void);
int svcrdma_bc_reply(struct svcrdma_xprt *xp, const void *msg, u32 len);

/* rw.c */
void svcrdma_rw_init(struct svcrdma_rw_set *set, enum dma_data_direction dir);
int svcrdma_rw_add(struct svcrdma_xprt *xp, struct svcrdma_rw_set *set,
		   const struct xdr_buf *xdr, u32 offset, u32 length,
		   u32 rkey, u64 raddr);
struct ib_send_wr *svcrdma_rw_chain(struct svcrdma_xprt *xp,
				    struct svcrdma_rw_set *set,
				    struct ib_send_wr *tail);
int svcrdma_rw_read_wait(struct svcrdma_xprt *xp, struct svcrdma_rw_set *set);
void svcrdma_rw_release(struct svcrdma_xprt *xp, struct svcrdma_rw_set *set);
unsigned int svcrdma_rw_pin(struct svcrdma_rw_set *set);

#endif /* SVCRDMA_SVCRDMA_H */
