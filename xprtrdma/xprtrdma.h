/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xprtrdma: internal types of the RPC-over-RDMA Version 1 client transport.
 *
 * Object model (NVMe-oF host shaped):
 *
 *   struct xprtrdma_xprt   one per rpc_xprt; lives as long as the rpc_xprt.
 *                          Owns the request slots (struct xprtrdma_req) and
 *                          at most one connection (struct xprtrdma_ep).
 *   struct xprtrdma_ep     one per connection attempt: cm_id, PD, CQs, QP,
 *                          the MR pool and the posted receives.  Built by
 *                          the connect worker, torn down by ->close.
 *   struct xprtrdma_req    one per RPC slot; embeds the rpc_rqst, owns a
 *                          send buffer and the MRs registered for its chunks.
 *   struct xprtrdma_rep    one posted receive buffer.
 *   struct xprtrdma_mr     one FRWR memory region from the ep's pool.
 *   struct xprtrdma_stage  one slot's staging buffer on a connection, for
 *                          small chunks copied instead of registered
 *                          (staging=1; stage.c).
 *
 * Lifetime rule: an ep is only created or destroyed while the transport
 * write lock (XPRT_LOCKED) is held, by the connect worker or by ->close, so
 * ->send_request (which also runs under XPRT_LOCKED) always sees a stable
 * ep.  Completion handlers only run between QP creation and the drain of
 * both queues in teardown.
 */
#ifndef XPRTRDMA_XPRTRDMA_H
#define XPRTRDMA_XPRTRDMA_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/sunrpc/xprt.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <nfsrdma/wire.h>

/*
 * Inline sizes we advertise in RFC 8797 private data: the defaults of the
 * rdma_max_inline_read/write sysctls and their bounds.  The private data
 * carries multiples of 1 KiB; the upper bound keeps each send and receive
 * buffer an order-2 allocation at most.  The default is 8 KiB, not the
 * in-tree's 4 KiB: a server that advertises as much (ours does) returns a
 * 4 KiB READ inline in one Send, where at 4 KiB it needs a Write chunk and
 * an MR registered and invalidated per call.  Against a server that
 * advertises 4 KiB or none, the negotiated size is the smaller one anyway.
 */
#define XPRTRDMA_INLINE_DEFAULT		8192
#define XPRTRDMA_INLINE_MIN		1024
#define XPRTRDMA_INLINE_MAX		16384

/* Largest RPC payload a mount may negotiate over this transport. */
#define XPRTRDMA_MAX_PAYLOAD		(1024 * 1024)

/* Credits we ask the server for; also the number of receives posted. */
#define XPRTRDMA_MAX_CREDITS		128
#define XPRTRDMA_MIN_SLOTS		4

/* Receives beyond the credit limit, for backchannel calls and slack. */
#define XPRTRDMA_EXTRA_RECVS		4

/*
 * Work requests one RPC can put on the send queue: the fence and a REG_MR
 * for each MR of its chunks plus the Send, and later a LOCAL_INV for each
 * MR.
 */
#define XPRTRDMA_MAX_MRS_PER_REQ	8
/*
 * How long a request's LOCAL_INV chain may wait without the connection
 * making any progress before the QP is fenced: only a send queue stalled
 * by the server holds it this long.
 */
#define XPRTRDMA_INV_TIMEOUT		(20 * HZ)
/*
 * Longest wait for a LOCAL_INV chain whatever the connection does: a
 * server that completes a call now and then must not hold a killed task
 * in the fence for ever.  Well above the longest wait seen behind a slow
 * but moving queue (soft-iWARP under TCG).
 */
#define XPRTRDMA_INV_MAX_WAIT		(300 * HZ)
/* A registration QP's chain is local work: far less than a round trip. */
#define XPRTRDMA_REGQ_WAIT		(30 * HZ)
#define XPRTRDMA_WRS_PER_REQ		(2 * XPRTRDMA_MAX_MRS_PER_REQ + 2)

/*
 * Bytes of one staging buffer: a 4 KiB READ or WRITE payload with its
 * XDR pad, or a Reply chunk of up to 8 KiB.  A staged chunk counts as one
 * of the call's XPRTRDMA_MAX_MRS_PER_REQ, so the send queue budget holds.
 */
#define XPRTRDMA_STAGE_SIZE		8192

/* Pages in one MR at most; a 1 MiB payload starting mid-page needs 257. */
#define XPRTRDMA_MAX_MR_DEPTH		(XPRTRDMA_MAX_PAYLOAD / PAGE_SIZE + 1)

/*
 * A Send not completed after this long, with no progress of any kind on
 * the connection for as long, means the send queue has stopped; the
 * keepalive work checks at every probe interval.  It is also as long as
 * anything waits for one Send to complete (to reuse its buffer, or to
 * complete the RPC it carried): a Send the provider lost never completes.
 */
#define XPRTRDMA_SEND_STALL_SECS	30

/*
 * Reconnect backoff: a connection that carried replies and lasted at least
 * this long reconnects at once (as a TCP transport's does); each attempt
 * after that waits this long, doubling up to max_reconnect_timeout (60 s;
 * NFSv4 lowers it to half the lease).  A server that answers and drops
 * each connection at once keeps backing us off: no reconnect storm.
 */
#define XPRTRDMA_INIT_REEST_TO		(3U * HZ)

/* Connection setup time limits, in milliseconds. */
#define XPRTRDMA_RESOLVE_TIMEOUT_MS	5000
#define XPRTRDMA_CONNECT_TIMEOUT_MS	10000

extern int xprtrdma_max_slots;
extern int xprtrdma_max_inline_read;
extern int xprtrdma_max_inline_write;
extern struct xprt_class xprtrdma_class;

/**
 * struct xprtrdma_stats - transport counters shown in /proc/self/mountstats
 * @read_segs: Read chunk segments sent (mountstats "read_chunk_count")
 * @write_segs: Write chunk segments offered ("write_chunk_count")
 * @reply_segs: Reply chunk segments offered ("reply_chunk_count")
 * @registered_bytes: bytes registered for chunks of any kind
 *	("total_rdma_request")
 * @rdma_bytes_in: bytes the server pushed with RDMA Write, as its replies
 *	report them ("total_rdma_reply")
 * @pullup_bytes: bytes of page data copied into inline sends
 *	("pullup_copy_count")
 * @fixup_bytes: bytes of inline reply copied past the receive head, into
 *	the page list or tail ("fixup_copy_count")
 * @failed_marshal: calls that could not be marshaled ("failed_marshal_count")
 * @bad_replies: replies dropped or refused as malformed ("bad_reply_count")
 * @nomsg_calls: calls sent as RDMA_NOMSG ("nomsg_call_count")
 * @mrs_recycled: MRs returned to the free pool for reuse ("mrs_recycled")
 * @mrs_allocated: MRs allocated over the life of the transport
 *	("mrs_allocated")
 * @local_invs: MRs invalidated with LOCAL_INV ("local_inv_needed")
 * @reply_waits_send: replies that arrived before their Send completed
 *	("reply_waits_for_send")
 *
 * Updated without a common lock from the sender (XPRT_LOCKED), the reply
 * work item, ->buf_free and the connect worker, so every counter is an
 * atomic_long_t; readers see each counter consistently but not the set as
 * a snapshot.
 */
struct xprtrdma_stats {
	atomic_long_t read_segs;
	atomic_long_t write_segs;
	atomic_long_t reply_segs;
	atomic_long_t registered_bytes;
	atomic_long_t rdma_bytes_in;
	atomic_long_t pullup_bytes;
	atomic_long_t fixup_bytes;
	atomic_long_t failed_marshal;
	atomic_long_t bad_replies;
	atomic_long_t nomsg_calls;
	atomic_long_t mrs_recycled;
	atomic_long_t mrs_allocated;
	atomic_long_t local_invs;
	atomic_long_t reply_waits_send;
};

struct xprtrdma_ep;
struct xprtrdma_req;

/**
 * struct xprtrdma_mr - one FRWR memory region
 * @list: on &xprtrdma_ep.mr_free or on &xprtrdma_req.mrs
 * @all: on &xprtrdma_ep.mr_all, for teardown
 * @ep: connection whose PD the MR belongs to
 * @mr: the verbs MR (IB_MR_TYPE_MEM_REG, or SG_GAPS where offered)
 * @sg: scatterlist describing the registered memory
 * @nents: entries of @sg in use
 * @mapped: @sg is DMA mapped
 * @dir: DMA direction of the mapping
 * @reg_wr: REG_MR work request
 * @inv_wr: LOCAL_INV work request
 * @reg_cqe: completion of @reg_wr (only errors are reported)
 * @inv_cqe: completion of @inv_wr
 * @invalidated: the server invalidated the rkey (Send With Invalidate)
 * @req: request that the MR is registered for, for LOCAL_INV completion
 * @signaled: @inv_wr is the signaled end of its LOCAL_INV chain
 */
struct xprtrdma_mr {
	struct list_head list;
	struct list_head all;
	struct xprtrdma_ep *ep;
	struct ib_mr *mr;
	struct scatterlist *sg;
	int nents;
	bool mapped;
	enum dma_data_direction dir;
	struct ib_reg_wr reg_wr;
	struct ib_send_wr inv_wr;
	struct ib_cqe reg_cqe;
	struct ib_cqe inv_cqe;
	bool invalidated;
	struct xprtrdma_req *req;
	bool signaled;
};

/* States of &xprtrdma_stage.state */
enum xprtrdma_stage_state {
	XPRTRDMA_STAGE_UNREG,	/* key not valid: REG_MR before the next use */
	XPRTRDMA_STAGE_LIVE,	/* key valid since a REG_MR we posted */
	XPRTRDMA_STAGE_DEAD,	/* unknown (a post failed partway, a LOCAL_INV
				 * failed or was flushed, the QP was fenced):
				 * not used again on this connection */
};

/**
 * struct xprtrdma_stage - one request slot's staging buffer on a connection
 * @ep: connection whose PD holds @mr
 * @req: the slot that uses it
 * @buf: %XPRTRDMA_STAGE_SIZE bytes, page aligned
 * @dma: DMA address of @buf, mapped bidirectionally for the connection's
 *	life
 * @mapped: @dma is valid
 * @sg: @buf as one DMA-mapped scatterlist entry, for ib_map_mr_sg()
 * @mr: FRWR MR over @buf
 * @reg_wr: REG_MR of @mr
 * @inv_wr: LOCAL_INV of @mr
 * @reg_cqe: completion of @reg_wr (only errors are reported)
 * @inv_cqe: completion of @inv_wr
 * @state: XPRTRDMA_STAGE_*; changed only under @req's mr_mutex
 * @reg_pending: @reg_wr is chained for the transmission being marshalled
 * @retiring: @inv_wr is chained for the request's invalidation
 * @signaled: @inv_wr is the signaled end of its LOCAL_INV chain
 * @inv_failed: the last LOCAL_INV of @mr completed with an error
 */
struct xprtrdma_stage {
	struct xprtrdma_ep *ep;
	struct xprtrdma_req *req;
	void *buf;
	u64 dma;
	bool mapped;
	struct scatterlist sg;
	struct ib_mr *mr;
	struct ib_reg_wr reg_wr;
	struct ib_send_wr inv_wr;
	struct ib_cqe reg_cqe;
	struct ib_cqe inv_cqe;
	enum xprtrdma_stage_state state;
	bool reg_pending;
	bool retiring;
	bool signaled;
	bool inv_failed;
};

/**
 * struct xprtrdma_rep - one posted receive
 * @ep: owning connection
 * @buf: receive buffer, &xprtrdma_xprt.inline_recv bytes
 * @dma: DMA address of @buf
 * @cqe: receive completion
 * @wr: receive work request
 * @sge: its single SGE
 */
struct xprtrdma_rep {
	struct xprtrdma_ep *ep;
	void *buf;
	u64 dma;
	struct ib_cqe cqe;
	struct ib_recv_wr wr;
	struct ib_sge sge;
};

/**
 * struct xprtrdma_ep - one RDMA connection
 * @xp: owning transport
 * @list: on the global list the device-removal client walks
 * @cm_id: RDMA-CM identifier
 * @device: RDMA device, set once the address is resolved
 * @pd: protection domain
 * @send_cq: Send, REG_MR and LOCAL_INV completions (softirq)
 * @recv_cq: receive completions (workqueue: reply handling may sleep)
 * @cm_done: completed by the CM handler at each connection-setup step
 * @cm_status: result of the last connection-setup step
 * @draining: teardown has begun; nothing new may be posted
 * @post_lock: orders posts from completion handlers against @draining,
 *	and a call's REG_MR chain against @sends_out
 * @sends_out: work requests that put packets on the wire (Sends, the
 *	keepalive probe) posted on the connection's QP and not yet completed;
 *	raised only under @post_lock, lowered by their completion handlers
 * @peer: the server's RFC 8797 private data, or the defaults
 * @max_send: largest RPC-over-RDMA message we may send: the smaller of
 *	our send buffers and the server's receive size
 * @max_recv: largest RPC-over-RDMA message the server may send us inline:
 *	the smaller of our receive buffers and the server's send size
 * @max_reqs: calls the send queue can carry at once, at most one per slot
 * @mr_depth: pages (SG_GAPS: scatterlist entries) per MR
 * @mr_gaps: the MRs are of type SG_GAPS
 * @mr_lock: protects @mr_free; additions to @mr_all and @nr_mrs are made
 *	under it too, but only by the sender (under XPRT_LOCKED) or the
 *	connect worker, so they may read both without it, and teardown
 *	(also under XPRT_LOCKED, after every MR is back) walks @mr_all bare
 * @mr_free: idle MRs
 * @mr_all: every MR, for teardown
 * @nr_mrs: entries on @mr_all; the pool grows on demand (from the sender,
 *	under XPRT_LOCKED) up to @mr_cap
 * @mr_cap: most MRs the pool may hold; lowered to @nr_mrs when the
 *	device refuses another
 * @fence_mr: never registered; its LOCAL_INV heads every REG_MR chain
 *	posted on the connection's QP of a device without @regq (see frwr.c)
 * @fence_wr: that LOCAL_INV
 * @fence_cqe: its completion (only errors are reported)
 * @regq: registration QP (rxe only, see frwr.c) for the REG_MR chains of
 *	calls posted while Sends are outstanding (the others go unfenced in
 *	front of their Send), and with @regq_inv for LOCAL_INV chains, or
 *	NULL: REG_MR chains are then posted behind the fence on the
 *	connection's QP
 * @regq_cq: @regq's completion queue
 * @regq_wr: the signaled no-op that ends each REG_MR chain on @regq
 * @regq_cqe: its completion
 * @regq_done: completed by @regq_cqe; one REG_MR chain at a time
 *	(XPRT_LOCKED)
 * @regq_status: the status @regq_wr completed with
 * @regq_dead: the connection failed, or a chain did: post nothing more
 *	on @regq
 * @regq_lock: held to move @regq to Error and to take it away for
 *	teardown: a request fencing its MRs (under its mr_mutex, without
 *	XPRT_LOCKED) may retire @regq while the connection is being freed,
 *	and to post LOCAL_INV chains on @regq
 * @regq_inv: staging is on and @regq has room for every slot's LOCAL_INV
 *	chain at once, so requests fence their MRs there once their Send
 *	has completed (xprtrdma_inv_post())
 * @stages: one staging buffer per slot, indexed like &xprtrdma_xprt.reqs,
 *	or NULL when staging is off or could not be set up
 * @reps: receive objects
 * @nr_reps: entries in @reps
 * @flags: XPRTRDMA_EP_* bits
 * @progress: jiffies when the server last showed it is working through
 *	our send queue: a Send completed, or a reply completed a call (not
 *	the keepalive probe, which a lost Send completion would let through)
 * @ka_work: periodic keepalive probe
 * @ka_cqe: completion of the probe
 * @scratch: decoded header of the reply being handled; the receive CQ is
 *	polled by one work item at a time, so one is enough
 * @pdata: our private data, kept for rdma_connect
 * @gen: this connection's number on its transport (never 0): a reply is
 *	taken only for a call whose latest transmission went out on it
 */
struct xprtrdma_ep {
	struct xprtrdma_xprt *xp;
	struct list_head list;
	struct rdma_cm_id *cm_id;
	struct ib_device *device;
	struct ib_pd *pd;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	struct completion cm_done;
	int cm_status;
	bool draining;
	spinlock_t post_lock;
	atomic_t sends_out;
	struct nfsrdma_wire_cm_pdata peer;
	u32 max_send;
	u32 max_recv;
	u32 max_reqs;
	u32 mr_depth;
	bool mr_gaps;
	spinlock_t mr_lock;
	struct list_head mr_free;
	struct list_head mr_all;
	unsigned int nr_mrs;
	unsigned int mr_cap;
	struct ib_mr *fence_mr;
	struct ib_send_wr fence_wr;
	struct ib_cqe fence_cqe;
	struct ib_qp *regq;
	struct ib_cq *regq_cq;
	struct ib_send_wr regq_wr;
	struct ib_cqe regq_cqe;
	struct completion regq_done;
	int regq_status;
	bool regq_dead;
	struct mutex regq_lock;
	bool regq_inv;
	struct xprtrdma_stage *stages;
	struct xprtrdma_rep *reps;
	unsigned int nr_reps;
	unsigned long flags;
	unsigned long progress;
	struct delayed_work ka_work;
	struct ib_cqe ka_cqe;
	struct nfsrdma_wire_hdr *scratch;
	u8 pdata[NFSRDMA_WIRE_CM_PDATA_SIZE];
	u32 gen;
};

/* Bits in &xprtrdma_ep.flags */
enum {
	XPRTRDMA_EP_KA_BUSY,		/* a keepalive probe is in flight */
	XPRTRDMA_EP_ESTABLISHED,	/* CM said ESTABLISHED, no disconnect since */
	XPRTRDMA_EP_FLUSHED,		/* flushes logged, or we fenced the QP */
	XPRTRDMA_EP_SEND_LOST,		/* the reply path gave up on a Send */
	XPRTRDMA_EP_SQ_DRAINED,		/* teardown: every Send that can has completed */
};

/* Bits in &xprtrdma_sendctx.flags */
enum {
	XPRTRDMA_SEND_BUSY,		/* Send posted, not completed */
};

/**
 * struct xprtrdma_sendctx - one Send work request and the buffer it carries
 * @xp: owning transport
 * @ep: connection the Send was posted on
 * @buf: transport header plus inline RPC message,
 *	&xprtrdma_xprt.inline_send bytes
 * @dma: DMA address of @buf while the Send is in flight
 * @len: bytes of @buf being sent
 * @posted: jiffies when the Send was posted, for the stall check
 * @flags: XPRTRDMA_SEND_* bits
 * @cqe: Send completion
 * @wr: the Send work request
 * @sge: its SGE
 *
 * Forward calls and backchannel replies both send through one of these;
 * @buf is not reused until the previous Send has completed.
 */
struct xprtrdma_sendctx {
	struct xprtrdma_xprt *xp;
	struct xprtrdma_ep *ep;
	void *buf;
	u64 dma;
	u32 len;
	unsigned long posted;
	unsigned long flags;
	struct ib_cqe cqe;
	struct ib_send_wr wr;
	struct ib_sge sge;
};

/**
 * struct xprtrdma_bc - one backchannel (RFC 8167) request slot
 * @rqst: the generic request handed to the NFS callback service
 * @list: on &xprtrdma_xprt.bc_free while idle
 * @all: on &xprtrdma_xprt.bc_all for the slot's whole life
 * @sc: Send of the reply
 * @rcv_page: buffer for the incoming call
 * @snd_page: buffer the callback service encodes the reply into
 */
struct xprtrdma_bc {
	struct rpc_rqst rqst;
	struct list_head list;
	struct list_head all;
	struct xprtrdma_sendctx sc;
	struct page *rcv_page;
	struct page *snd_page;
};

/*
 * What &xprtrdma_req.write_pad must own alone while it is DMA mapped: a
 * cache line, or the DMA alignment where that is larger (arm64: 128).
 */
#define XPRTRDMA_PAD_ALIGN	(ARCH_DMA_MINALIGN > L1_CACHE_BYTES ? \
				 ARCH_DMA_MINALIGN : L1_CACHE_BYTES)

/**
 * struct xprtrdma_req - transport state of one RPC slot
 * @rqst: the generic request; must stay first for container_of clarity
 * @xp: owning transport
 * @free: on &xprtrdma_xprt.free_reqs while the slot is unused
 * @sc: the Send carrying the call
 * @mr_mutex: guards @mrs and @nr_mrs among the sender, the reply handler,
 *	buf_free and teardown; whoever holds it with @mrs non-empty knows the
 *	connection owning those MRs is still alive.  The reply handler also
 *	holds it while it places a reply and completes the RPC, so that a
 *	transmission's marshalling (which zeroes what it registers) never
 *	overlaps a reply it could wipe
 * @mrs: MRs registered for this call's chunks
 * @nr_mrs: entries on @mrs
 * @write_offered: bytes offered in the Write chunk, 0 if none
 * @reply_offered: bytes offered in the Reply chunk, 0 if none
 * @nr_offered: segments of the Write or Reply chunk offered (a call
 *	offers at most one of the two)
 * @offered: those segments, as sent; the reply's copy of the chunk is
 *	checked against them
 * @inv_done: the signaled LOCAL_INV of this request completed
 * @stage: staging buffer this transmission's chunk went through, or NULL;
 *	like @mrs, guarded by @mr_mutex and taken back by teardown
 * @stage_posted: @stage's key went out with a transmission that has not
 *	yet been answered or retired
 * @stage_used: bytes of @stage this transmission's chunks take (a call
 *	may stage a Reply chunk and a Read chunk together)
 * @stage_at: where in @stage the Write or Reply chunk starts
 * @stage_off: where that chunk starts in the receive xdr_buf
 * @stage_len: bytes to copy from @stage into the receive xdr_buf once the
 *	reply is accepted; 0 if only a Read chunk was staged
 * @sent_gen: &xprtrdma_ep.gen of the connection this call's latest
 *	transmission was posted on; 0 while it is being marshalled, once
 *	it has taken its reply, and while the slot is free; written under
 *	@mr_mutex
 * @write_pad: where a server may RDMA Write the XDR pad of this call's
 *	Write chunk (xprtrdma_register_pad); never read, and alone in its
 *	cache line because it is DMA mapped while the rest of the request
 *	is written by the CPU
 */
struct xprtrdma_req {
	struct rpc_rqst rqst;
	struct xprtrdma_xprt *xp;
	struct list_head free;
	struct xprtrdma_sendctx sc;
	struct mutex mr_mutex;
	struct list_head mrs;
	unsigned int nr_mrs;
	u32 write_offered;
	u32 reply_offered;
	u32 nr_offered;
	struct nfsrdma_wire_seg offered[XPRTRDMA_MAX_MRS_PER_REQ];
	struct completion inv_done;
	struct xprtrdma_stage *stage;
	bool stage_posted;
	u32 stage_used;
	u32 stage_at;
	u32 stage_off;
	u32 stage_len;
	u32 sent_gen;
	u8 write_pad[XPRTRDMA_PAD_ALIGN] __aligned(XPRTRDMA_PAD_ALIGN);
};

/**
 * struct xprtrdma_xprt - one client transport instance
 * @xprt: the generic transport; first, so the core's allocation fits us
 * @list: on the global transport list
 * @ep: the current connection, or NULL
 * @connect_work: builds a connection (queued by ->connect)
 * @force_work: breaks the connection on behalf of softirq-context callers
 * @reqs: the slot array
 * @nr_reqs: entries in @reqs
 * @free_reqs: unused slots, protected by xprt->reserve_lock
 * @credits: credit limit the server granted most recently
 * @max_credits: most calls the current connection can have in flight
 * @hdr: call header being built; ->send_request runs under XPRT_LOCKED,
 *	so one is enough
 * @bc_lock: protects @bc_free and @bc_all
 * @bc_free: idle backchannel slots
 * @bc_all: every backchannel slot
 * @nr_bc: entries on @bc_all
 * @stats: counters for /proc/self/mountstats
 * @inline_send: largest message we send inline, and the size of each send
 *	buffer (rdma_max_inline_write when the transport was created)
 * @inline_recv: size of each receive buffer, the largest inline reply we
 *	accept (rdma_max_inline_read when the transport was created)
 * @connect_step: the setup step the last connect attempt reached, named in
 *	its log line if it failed; written only by the connect worker
 * @last_gen: &xprtrdma_ep.gen of the newest connection; written only by
 *	the connect worker
 * @up_since: when the newest connection was established; written only by
 *	the connect worker
 * @replied: the newest connection carried a valid reply; set by the reply
 *	handler, cleared by ->connect once it has judged the connection gone
 */
struct xprtrdma_xprt {
	struct rpc_xprt xprt;
	struct list_head list;
	struct xprtrdma_ep *ep;
	struct delayed_work connect_work;
	struct work_struct force_work;
	struct xprtrdma_req *reqs;
	unsigned int nr_reqs;
	struct list_head free_reqs;
	u32 credits;
	u32 max_credits;
	struct nfsrdma_wire_hdr *hdr;
	spinlock_t bc_lock;
	struct list_head bc_free;
	struct list_head bc_all;
	unsigned int nr_bc;
	struct xprtrdma_stats stats;
	u32 inline_send;
	u32 inline_recv;
	const char *connect_step;
	u32 last_gen;
	unsigned long up_since;
	bool replied;
};

/**
 * xprtrdma_ep_progress - note that the server is working through our calls
 * @ep: connection
 *
 * Context: any (completion handlers).
 */
static inline void xprtrdma_ep_progress(struct xprtrdma_ep *ep)
{
	WRITE_ONCE(ep->progress, jiffies);
}

/**
 * xprtrdma_ep_idle - how long has the connection made no progress?
 * @ep: connection
 *
 * Context: any.
 *
 * Return: jiffies since xprtrdma_ep_progress() last noted progress (0 if
 * that is racing with us and looks like the future).
 */
static inline unsigned long xprtrdma_ep_idle(const struct xprtrdma_ep *ep)
{
	unsigned long progress = READ_ONCE(ep->progress);

	return time_after(jiffies, progress) ? jiffies - progress : 0;
}

/**
 * xprtrdma_ep_idle_for - has the connection made no progress for a while?
 * @ep: connection
 * @timeout: jiffies
 *
 * Context: any.
 *
 * Return: true if nothing xprtrdma_ep_progress() notes happened in the
 * last @timeout jiffies.
 */
static inline bool xprtrdma_ep_idle_for(const struct xprtrdma_ep *ep,
					unsigned long timeout)
{
	return xprtrdma_ep_idle(ep) > timeout;
}

static inline struct xprtrdma_xprt *xprtrdma_xp(struct rpc_xprt *xprt)
{
	return container_of(xprt, struct xprtrdma_xprt, xprt);
}

static inline struct xprtrdma_req *xprtrdma_req(struct rpc_rqst *rqst)
{
	return container_of(rqst, struct xprtrdma_req, rqst);
}

/* transport.c */
struct rpc_xprt *xprtrdma_setup(struct xprt_create *args);
void xprtrdma_update_credits(struct xprtrdma_xprt *xp, u32 credits);
void xprtrdma_force_disconnect(struct xprtrdma_xprt *xp);

/* conn.c */
void xprtrdma_connect_worker(struct work_struct *work);
void xprtrdma_ep_destroy(struct xprtrdma_xprt *xp);
void xprtrdma_device_removed(struct ib_device *device);
int xprtrdma_post_recv(struct xprtrdma_rep *rep);
void xprtrdma_wr_failed(struct xprtrdma_ep *ep, const char *what,
			struct ib_wc *wc);
int xprtrdma_post_wire(struct xprtrdma_ep *ep, const struct ib_send_wr *first,
		       const struct ib_send_wr **bad);

/* frwr.c */
int xprtrdma_mr_pool_create(struct xprtrdma_ep *ep, unsigned int count,
			    unsigned int cap);
void xprtrdma_mr_pool_destroy(struct xprtrdma_ep *ep);
int xprtrdma_register_xdr(struct xprtrdma_req *req, struct xdr_buf *xdr,
			  u32 offset, u32 length, bool remote_write,
			  struct nfsrdma_wire_seg *segs, unsigned int max_segs,
			  struct ib_send_wr **first, struct ib_send_wr **last);
int xprtrdma_register_pad(struct xprtrdma_req *req, u32 pad,
			  struct nfsrdma_wire_seg *seg,
			  struct ib_send_wr **first, struct ib_send_wr **last);
bool xprtrdma_invalidate(struct xprtrdma_req *req, bool remote, u32 remote_rkey,
			 bool keep_stage);
void xprtrdma_mrs_drop(struct xprtrdma_req *req);
void xprtrdma_qp_fence(struct xprtrdma_ep *ep);
void xprtrdma_regq_create(struct xprtrdma_ep *ep);
void xprtrdma_regq_retire(struct xprtrdma_ep *ep);
void xprtrdma_regq_destroy(struct xprtrdma_ep *ep);
int xprtrdma_regq_post(struct xprtrdma_ep *ep, struct ib_send_wr *regs,
		       struct ib_send_wr *last, const struct ib_send_wr **bad);
struct ib_send_wr *xprtrdma_reg_fence(struct xprtrdma_ep *ep,
				      struct ib_send_wr *regs);
bool xprtrdma_xdr_piece(const struct xdr_buf *xdr, u32 pos, u32 left,
			struct page **page, u32 *off, u32 *len);

/* stage.c */
void xprtrdma_stages_create(struct xprtrdma_ep *ep);
void xprtrdma_stages_destroy(struct xprtrdma_ep *ep);
int xprtrdma_stage_xdr(struct xprtrdma_req *req, struct xprtrdma_ep *ep,
		       struct xdr_buf *xdr, u32 offset, u32 length, u32 room,
		       bool from_server, struct nfsrdma_wire_seg *seg,
		       struct ib_send_wr **first, struct ib_send_wr **last);
void xprtrdma_stage_posted(struct xprtrdma_req *req);
void xprtrdma_stage_post_failed(struct xprtrdma_req *req,
				const struct ib_send_wr *first,
				const struct ib_send_wr *bad);
void xprtrdma_stage_unload(struct xprtrdma_req *req);
struct ib_send_wr *xprtrdma_stage_retire(struct xprtrdma_req *req, bool remote,
					 u32 remote_rkey, bool keep,
					 bool *ours);
void xprtrdma_stage_retired(struct xprtrdma_req *req, bool chain_completed);
void xprtrdma_stage_drop(struct xprtrdma_req *req);

/**
 * xprtrdma_req_has_chunks - is anything registered or staged for @req?
 * @req: request slot
 *
 * Context: caller holds @req->mr_mutex.
 *
 * Return: true if the server may hold a key for this slot's chunks.
 */
static inline bool xprtrdma_req_has_chunks(const struct xprtrdma_req *req)
{
	return !list_empty(&req->mrs) || req->stage;
}

/* marshal.c */
int xprtrdma_send_request(struct rpc_rqst *rqst);
int xprtrdma_sendctx_init(struct xprtrdma_sendctx *sc,
			  struct xprtrdma_xprt *xp);
int xprtrdma_sendctx_post(struct xprtrdma_sendctx *sc, struct xprtrdma_ep *ep,
			  u32 len, struct ib_send_wr *first,
			  struct ib_send_wr *last, bool if_idle,
			  const struct ib_send_wr **bad);
int xprtrdma_sendctx_reuse(struct xprtrdma_sendctx *sc, struct rpc_xprt *xprt,
			   const char *what);
void xprtrdma_copy_xdr(void *dst, const struct xdr_buf *xdr, u32 tail_skip,
		       bool pages);

bool xprtrdma_sendctx_reap(struct xprtrdma_sendctx *sc,
			   struct xprtrdma_ep *ep);

/* backchannel.c */
int xprtrdma_bc_setup(struct rpc_xprt *xprt, unsigned int min_reqs);
size_t xprtrdma_bc_maxpayload(struct rpc_xprt *xprt);
unsigned int xprtrdma_bc_num_slots(struct rpc_xprt *xprt);
void xprtrdma_bc_free_rqst(struct rpc_rqst *rqst);
void xprtrdma_bc_destroy(struct rpc_xprt *xprt, unsigned int max_reqs);
void xprtrdma_bc_free_all(struct xprtrdma_xprt *xp);
int xprtrdma_bc_send(struct rpc_rqst *rqst);
void xprtrdma_bc_receive(struct xprtrdma_xprt *xp, __be32 xid, void *inl,
			 u32 ilen);

/* reply.c */
void xprtrdma_recv_done(struct ib_cq *cq, struct ib_wc *wc);

#endif /* XPRTRDMA_XPRTRDMA_H */
