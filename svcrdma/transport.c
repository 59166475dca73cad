// SPDX-License-Identifier: GPL-2.0
/*
 * svcrdma: the svc_xprt class, listeners, connections and the CM.
 *
 * Lifetime.  A listener is a svc_xprt from xpo_create on.  A connection
 * request is only our struct plus the new cm_id until an nfsd thread
 * accepts it; from svc_xprt_init() in xpo_accept on, svc's reference
 * count owns it and every failure ends in xpo_free.  cm_ids are destroyed
 * only in xpo_free (or, for requests never accepted, when their listener
 * is freed, and for a listener's replaced id in its relisten work), never
 * from inside a CM callback.
 *
 * The CM handler runs with the cm_id's handler mutex held, so it never
 * races with rdma_destroy_id() on the same id: while the id exists, the
 * struct svcrdma_xprt it points to does too.
 *
 * A listener bound to one address (nfsd's netlink listener-set can ask
 * for one; the portlist cannot) lives on that address's device.  When a
 * bonding failover moves the address, the CM reports ADDR_CHANGE and its
 * id no longer describes where the address is: the listener then swaps
 * in a new id from a work item, retrying while the address cannot be
 * bound, and stays the same svc_xprt to nfsd throughout.  Its listen_lock
 * orders that swap against xpo_create and xpo_free.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/sunrpc/addr.h>
#include <linux/sunrpc/xprt.h>
#include <net/net_namespace.h>
#include <rdma/rw.h>
#include <nfsrdma/rc.h>

#include "svcrdma.h"
#include "trace.h"

/* Connections that hold verbs resources, for device removal. */
static LIST_HEAD(svcrdma_conns);
/* A spinlock: svcrdma_device_busy() runs inside a wait_event() condition. */
static DEFINE_SPINLOCK(svcrdma_conns_lock);
static DECLARE_WAIT_QUEUE_HEAD(svcrdma_conns_wait);

/* Take @n slots if they are free; false if not. */
static bool svcrdma_sq_tryget(struct svcrdma_xprt *xp, unsigned int n)
{
	int avail = atomic_read(&xp->sq_avail);

	do {
		if (avail < (int)n)
			return false;
	} while (!atomic_try_cmpxchg(&xp->sq_avail, &avail, avail - n));
	return true;
}

/* Posted at @posted and still not complete after the stall timeout? */
static bool svcrdma_overdue(unsigned long posted)
{
	return time_after(jiffies, posted + svcrdma_stall_timeout * HZ);
}

/*
 * Liveness is judged by the age of the oldest work request still
 * outstanding, not by whether anything completed lately: a peer that
 * lets one Send through now and then would otherwise keep a queue of
 * stalled replies, and the threads behind them, alive for ever.  Every
 * signaled work request on the send queue is a Send (each in a send
 * context), the keepalive probe, or an RDMA Read chain, whose waiter
 * checks its own age in svcrdma_wait_wr(); the flush marker comes only
 * once the connection is stopped, when liveness no longer matters.
 *
 * Return: what is overdue, for the log, or NULL.
 */
static const char *svcrdma_sq_stalled(struct svcrdma_xprt *xp)
{
	unsigned int i;

	if (test_bit(SVCRDMA_F_KA_BUSY, &xp->flags)) {
		/* Pairs with the barrier in svcrdma_ka_probe(). */
		smp_rmb();
		if (svcrdma_overdue(READ_ONCE(xp->ka_last)))
			return "the keepalive probe";
	}
	for (i = 0; i < xp->nr_sends; i++) {
		const struct svcrdma_send_ctxt *sc = xp->sends[i];

		if (!READ_ONCE(sc->inflight))
			continue;
		/* Pairs with the smp_wmb() in svcrdma_post_send(). */
		smp_rmb();
		if (svcrdma_overdue(READ_ONCE(sc->posted)))
			return "a Send";
	}
	return NULL;
}

/*
 * A zero-length RDMA Write: it names no memory on either side, so it
 * needs no rkey and no buffer, yet it completes only once the peer has
 * acknowledged it (or the QP flushes it).  Both the keepalive probe and
 * the flush marker are one.
 */
static void svcrdma_zlw_init(struct ib_rdma_wr *wr, struct ib_cqe *cqe)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = IB_WR_RDMA_WRITE;
	wr->wr.wr_cqe = cqe;
	wr->wr.send_flags = IB_SEND_SIGNALED;
}

/*
 * The flush marker.  A provider must complete every work request a QP in
 * the Error state holds, with a flush status, and in the order they were
 * posted; a marker posted after the last of ours then completes last.
 * Our send completions all arrive on one CQ, whose handlers run one at a
 * time and in order (IB_POLL_WORKQUEUE), so when the marker's handler has
 * run, every completion a correct provider was going to deliver has been
 * handled.  A thread still waiting then waits on a completion the
 * provider lost (soft-iWARP has lost Sends after a stop), and may wait
 * for ever: it is let go, and nfsd with it.  Its memory is safe to give
 * back, since no device executes work requests in the Error state.  A
 * provider that breaks the rules once may break them again and deliver
 * the completion late, so a let-go context is not reused and every
 * context outlives the CQs (svcrdma_free()); a receive context's Read
 * set is reset for its next call only after a Receive completes on it,
 * which cannot happen on a QP in Error, and within a call, between two
 * turns of its Reads, only after the first turn's completion has run.
 */
static void svcrdma_marker_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svcrdma_xprt *xp =
		container_of(wc->wr_cqe, struct svcrdma_xprt, marker_cqe);

	trace_svcrdma_flush_marker(xp, wc->status);
	/* Pairs with the smp_rmb() in svcrdma_wait_wr(). */
	smp_mb__before_atomic();
	set_bit(SVCRDMA_F_MARKER_DONE, &xp->flags);
}

/*
 * Move the QP to Error and post the flush marker behind everything of
 * ours.  Holding @post_sem for writing waits out the posts under way, and
 * every later one sees SVCRDMA_F_STOPPED and is refused.  The marker is
 * posted only once the QP is known to be in Error (moved there by us, or
 * already there), or it would go out as an RDMA Write behind the very
 * work request that stalled.  Its send queue slot is one the budget keeps
 * out (svcrdma_conn_setup()).
 *
 * Return: the QP could not be moved to Error.
 */
static bool svcrdma_stop_qp(struct svcrdma_xprt *xp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_qp_init_attr init;
	struct ib_rdma_wr wr;
	bool failed = false;

	down_write(&xp->post_sem);
	set_bit(SVCRDMA_F_STOPPED, &xp->flags);
	if (test_bit(SVCRDMA_F_MARKER_POSTED, &xp->flags))
		goto out_unlock;
	if (ib_modify_qp(xp->qp, &attr, IB_QP_STATE)) {
		failed = true;
		if (ib_query_qp(xp->qp, &attr, IB_QP_STATE, &init) ||
		    attr.qp_state != IB_QPS_ERR)
			goto out_unlock;
	}
	svcrdma_zlw_init(&wr, &xp->marker_cqe);
	if (!ib_post_send(xp->qp, &wr.wr, NULL))
		set_bit(SVCRDMA_F_MARKER_POSTED, &xp->flags);
out_unlock:
	up_write(&xp->post_sem);
	return failed;
}

/*
 * Stop a connection whose peer stopped acknowledging.  A client can ask
 * for unlimited RNR retries and then post no receives: our Send is then
 * retried for ever, and RC ordering holds every Send, RDMA Write and RDMA
 * Read behind it, with nfsd threads waiting on them.  Closing the
 * transport alone does not help, since svc_delete_xprt() needs a free
 * nfsd thread and the QP keeps retrying until then.  A QP in the Error
 * state flushes every work request at once, so every waiter wakes; the
 * flush marker then lets go of any waiter whose flush the provider lost.
 * Called again on a stopped connection, it retries what did not work the
 * first time (the move to Error, the marker's post).
 *
 * @what names the overdue work request for the log; anything ahead of it
 * on the send queue may be the one the peer holds up.
 *
 * Context: process; takes @post_sem, so never from inside a post.
 */
static void svcrdma_stop(struct svcrdma_xprt *xp, const char *what)
{
	bool first = !test_and_set_bit(SVCRDMA_F_STOPPING, &xp->flags);

	if (first) {
		pr_warn_ratelimited("svcrdma: %s left %s unacknowledged for %u s, closing\n",
				    xp->xprt.xpt_remotebuf, what,
				    svcrdma_stall_timeout);
		svcrdma_stat_inc(SVCRDMA_STAT_STALL_CLOSES);
		trace_svcrdma_disconnect(xp, "send queue stalled", 0);
	}
	if (svcrdma_stop_qp(xp) && first) {
		/* The CM's disconnect moves the QP to Error its own way. */
		pr_warn_ratelimited("svcrdma: cannot stop the QP of %s, disconnecting\n",
				    xp->xprt.xpt_remotebuf);
		rdma_disconnect(xp->cm_id);
	}
	if (first) {
		svc_xprt_deferred_close(&xp->xprt);
		wake_up_all(&xp->send_wait);
		wake_up_all(&xp->sq_wait);
	}
}

/**
 * svcrdma_post - post a chain on the send queue of a running connection
 * @xp: connection
 * @first: the chain
 * @bad: set as by ib_post_send(); to @first if nothing was posted
 *
 * Every work request of ours goes through here, so that none can slip
 * in behind the flush marker (svcrdma_stop_qp()).
 *
 * Context: process; may wait while the connection is being stopped
 * (the QP's move to Error and the marker's post).
 *
 * Return: 0, -ENOTCONN if the connection has been stopped, or the
 * provider's error.
 */
int svcrdma_post(struct svcrdma_xprt *xp, const struct ib_send_wr *first,
		 const struct ib_send_wr **bad)
{
	int ret = -ENOTCONN;

	*bad = first;
	down_read(&xp->post_sem);
	if (!test_bit(SVCRDMA_F_STOPPED, &xp->flags))
		ret = ib_post_send(xp->qp, first, bad);
	up_read(&xp->post_sem);
	return ret;
}

/**
 * svcrdma_stall_check - stop the connection if its send queue stalled
 * @xp: connection
 *
 * Waiters call this each time their wait times out, so that no wait on
 * the peer lasts much beyond svcrdma_stall_timeout even when the health
 * work is late.
 *
 * Context: process.
 */
void svcrdma_stall_check(struct svcrdma_xprt *xp)
{
	const char *what = svcrdma_sq_stalled(xp);

	if (what)
		svcrdma_stop(xp, what);
}

/**
 * svcrdma_wait_wr - wait for a posted work request to complete
 * @xp: connection it was posted on
 * @done: completed by the work request's done handler
 * @posted: jiffies when it was posted
 * @what: what it is, for the log
 *
 * The wait ends when the work request completes, successfully or not.
 * If it, or anything ahead of it, stays outstanding for
 * svcrdma_stall_timeout, the QP is moved to Error, which flushes it, so
 * the wait is bounded by the stall timeout, a tick and the flush.  The
 * caller's memory stays mapped until then: returning before the
 * completion could let the device touch pages nfsd has reused.  The one
 * exception is a completion the provider lost: once the flush marker has
 * completed, the device executes nothing posted before it.
 *
 * Context: process; sleeps.
 *
 * Return: true if the work request completed (its handler has run), false
 * if its completion was lost: the caller must treat it as flushed, and
 * leave the memory its handler writes alone, as it may still run.
 */
bool svcrdma_wait_wr(struct svcrdma_xprt *xp, struct completion *done,
		     unsigned long posted, const char *what)
{
	while (!wait_for_completion_timeout(done, SVCRDMA_WAIT_TICK)) {
		if (test_bit(SVCRDMA_F_MARKER_DONE, &xp->flags)) {
			/* Pairs with the barrier in svcrdma_marker_done(). */
			smp_rmb();
			if (try_wait_for_completion(done))
				return true;
			svcrdma_stat_inc(SVCRDMA_STAT_LOST_COMPLETIONS);
			pr_warn_ratelimited("svcrdma: the device lost a completion on the stopped connection of %s; letting its waiter go\n",
					    xp->xprt.xpt_remotebuf);
			return false;
		}
		if (svcrdma_overdue(posted))
			svcrdma_stop(xp, what);
		else
			svcrdma_stall_check(xp);
	}
	return true;
}

/**
 * svcrdma_sq_get - reserve send queue slots
 * @xp: connection
 * @n: work requests about to be posted
 *
 * Context: nfsd thread; may sleep until completions free enough slots,
 * at most until the send queue is found stalled and stopped.
 *
 * Return: 0, -E2BIG if @n exceeds the whole send queue (a reply's
 * chunks cut into more pieces than we can ever post at once, or one
 * Read segment that needs more), or -ENOTCONN if the transport is
 * closing.
 */
int svcrdma_sq_get(struct svcrdma_xprt *xp, unsigned int n)
{
	bool traced = false;

	if (n > xp->sq_depth)
		return -E2BIG;
	while (!svcrdma_sq_tryget(xp, n)) {
		if (svc_xprt_is_dead(&xp->xprt))
			return -ENOTCONN;
		if (!traced) {
			trace_svcrdma_sq_wait(xp, n);
			traced = true;
		}
		if (!wait_event_timeout(xp->sq_wait,
					atomic_read(&xp->sq_avail) >= (int)n ||
					svc_xprt_is_dead(&xp->xprt),
					SVCRDMA_WAIT_TICK))
			svcrdma_stall_check(xp);
	}
	return 0;
}

/**
 * svcrdma_sq_put - return send queue slots
 * @xp: connection
 * @n: slots reserved by svcrdma_sq_get() whose WRs have completed
 *
 * Context: any.
 */
void svcrdma_sq_put(struct svcrdma_xprt *xp, unsigned int n)
{
	atomic_add(n, &xp->sq_avail);
	wake_up(&xp->sq_wait);
}

/**
 * svcrdma_hold - take a call for an nfsd thread, within the fair share
 * @xp: connection
 * @rqstp: the thread asking
 *
 * One connection may hold at most three quarters of the threads of the
 * asking thread's pool (leaving at least one, if there are two) at a
 * time.  The pool's count, not the server's: under a per-CPU or per-node
 * pool_mode a transport is served by whichever pool its enqueue lands
 * in, and a share of the whole server could empty a small pool.  Every
 * held call was taken under some pool's share, so no pool ever has more
 * than its own share held by one connection.  A call can block
 * its thread in our transport until the peer acknowledges the reply, and
 * a peer that never does could otherwise take every thread of the server
 * before the stall is noticed.  When the share is used up the transport
 * is parked: XPT_DATA is cleared so no thread spins on it, and
 * svcrdma_unhold() re-arms it.
 *
 * Context: nfsd thread, in xpo_recvfrom, so under XPT_BUSY: only one
 * thread at a time parks the transport, which the re-check below relies
 * on.
 *
 * Return: true if the caller may take a call (and must pair it with
 * svcrdma_unhold()), false if the connection is at its share.
 */
bool svcrdma_hold(struct svcrdma_xprt *xp, const struct svc_rqst *rqstp)
{
	unsigned int threads = READ_ONCE(rqstp->rq_pool->sp_nrthreads);
	int share = max(1U, threads - max(1U, threads / 4));

	if (atomic_inc_return(&xp->held) <= share)
		return true;
	atomic_dec(&xp->held);
	/*
	 * XPT_DATA is cleared before THROTTLED is published: an unhold that
	 * sees THROTTLED then sets XPT_DATA after our clear, and one that
	 * does not see it released its call before our re-check below.
	 */
	clear_bit(XPT_DATA, &xp->xprt.xpt_flags);
	smp_mb__before_atomic();
	set_bit(SVCRDMA_F_THROTTLED, &xp->flags);
	smp_mb__after_atomic();
	if (atomic_read(&xp->held) < share) {
		clear_bit(SVCRDMA_F_THROTTLED, &xp->flags);
		set_bit(XPT_DATA, &xp->xprt.xpt_flags);
	} else {
		svcrdma_stat_inc(SVCRDMA_STAT_THROTTLED);
	}
	return false;
}

/**
 * svcrdma_unhold - give back a call taken with svcrdma_hold()
 * @xp: connection
 *
 * Context: process: an nfsd thread releasing the call, or whoever drops
 * a deferred request.
 */
void svcrdma_unhold(struct svcrdma_xprt *xp)
{
	atomic_dec(&xp->held);
	smp_mb__after_atomic();
	if (test_and_clear_bit(SVCRDMA_F_THROTTLED, &xp->flags)) {
		set_bit(XPT_DATA, &xp->xprt.xpt_flags);
		svc_xprt_enqueue(&xp->xprt);
	}
}

static void svcrdma_health_work(struct work_struct *work);

static struct svcrdma_xprt *svcrdma_xprt_alloc(void)
{
	struct svcrdma_xprt *xp = kzalloc(sizeof(*xp), GFP_KERNEL);

	if (!xp)
		return NULL;
	svcrdma_mem_add(sizeof(*xp));
	INIT_LIST_HEAD(&xp->accept_node);
	INIT_LIST_HEAD(&xp->accept_q);
	INIT_LIST_HEAD(&xp->dev_node);
	INIT_LIST_HEAD(&xp->ready);
	INIT_LIST_HEAD(&xp->send_free);
	spin_lock_init(&xp->accept_lock);
	spin_lock_init(&xp->ready_lock);
	spin_lock_init(&xp->send_lock);
	spin_lock_init(&xp->held_lock);
	init_waitqueue_head(&xp->send_wait);
	init_waitqueue_head(&xp->sq_wait);
	mutex_init(&xp->read_mutex);
	init_rwsem(&xp->post_sem);
	INIT_DELAYED_WORK(&xp->health, svcrdma_health_work);
	return xp;
}

static void svcrdma_xprt_free(struct svcrdma_xprt *xp)
{
	mutex_destroy(&xp->read_mutex);
	svcrdma_mem_sub(sizeof(*xp));
	kfree(xp);
}

/* Wake anyone sleeping on this connection so they notice it is dead. */
static void svcrdma_wake_all(struct svcrdma_xprt *xp)
{
	wake_up_all(&xp->send_wait);
	wake_up_all(&xp->sq_wait);
}

static void svcrdma_close(struct svcrdma_xprt *xp)
{
	svc_xprt_deferred_close(&xp->xprt);
	svcrdma_wake_all(xp);
}

/**
 * svcrdma_post_failed - handle a chain that ib_post_send() did not take
 * @xp: connection
 * @first: first work request of the chain
 * @bad: the work request the provider stopped at
 *
 * When the provider stopped part way, the WRs before @bad are on the wire
 * and may still read or write the memory the caller is about to unmap and
 * give back to nfsd; their last one is not signaled, so no completion
 * will say when they are done.  A QP in the Error state executes nothing
 * more, so moving it there first makes the caller's cleanup safe.  Either
 * way the connection is closed: its send queue accounting is now wrong.
 *
 * Context: process.
 */
void svcrdma_post_failed(struct svcrdma_xprt *xp,
			 const struct ib_send_wr *first,
			 const struct ib_send_wr *bad)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (bad != first && ib_modify_qp(xp->qp, &attr, IB_QP_STATE))
		pr_warn_ratelimited("svcrdma: cannot stop the QP of %s\n",
				    xp->xprt.xpt_remotebuf);
	svcrdma_close(xp);
}


/*
 * Health.  RDMA has no keepalive of its own: a client that dies without
 * a Disconnect leaves our QP happily connected to nobody, holding its
 * resources until nfsd ages the transport out many minutes later.  A
 * zero-length RDMA Write every svcrdma_keepalive seconds costs the peer
 * nothing (no buffer, no rkey check) but has to be acknowledged, so a
 * dead peer shows up as a retry-exceeded completion within seconds.
 *
 * A live peer can still refuse to acknowledge for ever (unlimited RNR
 * retries and no receives posted); the probe then queues behind the
 * stuck Send and never fails.  So the same work also stops a connection
 * with a work request outstanding for svcrdma_stall_timeout, whether or
 * not an nfsd thread is waiting on it.
 */
#define SVCRDMA_HEALTH_TICK	(2 * HZ)

static void svcrdma_ka_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svcrdma_xprt *xp =
		container_of(wc->wr_cqe, struct svcrdma_xprt, ka_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_info_ratelimited("svcrdma: %s stopped answering (%s), closing\n",
					    xp->xprt.xpt_remotebuf,
					    ib_wc_status_msg(wc->status));
			svcrdma_stat_inc(SVCRDMA_STAT_WC_ERRORS);
			trace_svcrdma_wc_error(xp, "keepalive", wc);
			trace_svcrdma_disconnect(xp, "keepalive probe failed",
						 wc->status);
		}
		svcrdma_close(xp);
	}
	svcrdma_sq_put(xp, 1);
	clear_bit(SVCRDMA_F_KA_BUSY, &xp->flags);
}

static void svcrdma_ka_probe(struct svcrdma_xprt *xp)
{
	const struct ib_send_wr *bad;
	struct ib_rdma_wr wr;
	int ret;

	/*
	 * Skip a probe rather than wait (the next tick tries again): a full
	 * queue or a probe still out needs no new one, and the stall check
	 * catches a queue that never drains.
	 */
	if (test_bit(SVCRDMA_F_KA_BUSY, &xp->flags))
		return;
	/* Not stamped when skipped: the next tick must try again. */
	if (!svcrdma_sq_tryget(xp, 1))
		return;
	/*
	 * Only this work item sets KA_BUSY, so the stamp can go first: the
	 * stall check reads it only while KA_BUSY is set.
	 */
	WRITE_ONCE(xp->ka_last, jiffies);
	smp_mb__before_atomic();
	set_bit(SVCRDMA_F_KA_BUSY, &xp->flags);
	svcrdma_zlw_init(&wr, &xp->ka_cqe);
	ret = svcrdma_post(xp, &wr.wr, &bad);
	if (ret) {
		svcrdma_sq_put(xp, 1);
		clear_bit(SVCRDMA_F_KA_BUSY, &xp->flags);
		trace_svcrdma_disconnect(xp, "keepalive post failed", ret);
		svcrdma_close(xp);
	}
}

static void svcrdma_health_work(struct work_struct *work)
{
	struct svcrdma_xprt *xp =
		container_of(to_delayed_work(work), struct svcrdma_xprt,
			     health);
	const char *what;

	if (svc_xprt_is_dead(&xp->xprt))
		return;
	what = svcrdma_sq_stalled(xp);
	if (what) {
		svcrdma_stop(xp, what);
		return;
	}
	if (svcrdma_keepalive &&
	    time_after_eq(jiffies, xp->ka_last + svcrdma_keepalive * HZ))
		svcrdma_ka_probe(xp);
	queue_delayed_work(system_wq, &xp->health, SVCRDMA_HEALTH_TICK);
}

/*
 * Connection requests a listener queues for nfsd threads to accept.  A
 * flood beyond this is refused at the CM rather than queued without
 * limit; accepted connections are bounded by svc's own connection limit.
 */
#define SVCRDMA_PENDING_MAX	64

/*
 * A listener's first attempt to listen again after ADDR_CHANGE, and the
 * longest wait between attempts while the moved address cannot be bound.
 */
#define SVCRDMA_RELISTEN_FIRST_DELAY	(HZ / 2)
#define SVCRDMA_RELISTEN_MAX_DELAY	(32 * HZ)

/* CONNECT_REQUEST on a listener: queue the new id for xpo_accept. */
static int svcrdma_conn_request(struct svcrdma_xprt *lx, struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct svcrdma_xprt *xp;
	bool full;

	/*
	 * Reserve the place under the lock: a wildcard listener's
	 * per-device ids deliver requests concurrently, and the gauge must
	 * never show the accept's decrement before this increment.
	 */
	spin_lock_bh(&lx->accept_lock);
	full = lx->nr_pending >= SVCRDMA_PENDING_MAX;
	if (!full) {
		lx->nr_pending++;
		svcrdma_stat_inc(SVCRDMA_STAT_REQUESTS_PENDING);
	}
	spin_unlock_bh(&lx->accept_lock);
	if (full) {
		pr_warn_ratelimited("svcrdma: %u connection requests already wait on %pISpc, refusing %pISpc\n",
				    SVCRDMA_PENDING_MAX,
				    &id->route.addr.src_addr,
				    &id->route.addr.dst_addr);
		svcrdma_stat_inc(SVCRDMA_STAT_REQUESTS_REFUSED);
		return -EBUSY;	/* nonzero: the CM rejects and destroys @id */
	}
	xp = svcrdma_xprt_alloc();
	if (!xp) {
		spin_lock_bh(&lx->accept_lock);
		lx->nr_pending--;
		svcrdma_stat_dec(SVCRDMA_STAT_REQUESTS_PENDING);
		spin_unlock_bh(&lx->accept_lock);
		return -ENOMEM;	/* nonzero: the CM rejects and destroys @id */
	}
	xp->cm_id = id;
	xp->listener = lx;
	id->context = xp;
	nfsrdma_wire_decode_cm_pdata(&xp->peer, ev->param.conn.private_data,
				     ev->param.conn.private_data_len);
	/* The CM has already turned these into our point of view. */
	xp->ord = min_t(u32, ev->param.conn.initiator_depth,
			svcrdma_tunable_ord());
	xp->ird = ev->param.conn.responder_resources;

	spin_lock_bh(&lx->accept_lock);
	list_add_tail(&xp->accept_node, &lx->accept_q);
	set_bit(XPT_CONN, &lx->xprt.xpt_flags);
	spin_unlock_bh(&lx->accept_lock);
	svc_xprt_enqueue(&lx->xprt);
	return 0;
}

static void svcrdma_conn_gone(struct svcrdma_xprt *xp)
{
	set_bit(SVCRDMA_F_PEER_GONE, &xp->flags);
	smp_mb__after_atomic();
	if (test_bit(SVCRDMA_F_ACCEPTED, &xp->flags)) {
		svcrdma_close(xp);
		return;
	}
	/* Still queued: make the listener's accept find and drop it. */
	set_bit(XPT_CONN, &xp->listener->xprt.xpt_flags);
	svc_xprt_enqueue(&xp->listener->xprt);
}

static int svcrdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct svcrdma_xprt *xp = id->context;

	trace_svcrdma_cm_event(id, ev);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return svcrdma_conn_request(xp, id, ev);

	if (test_bit(SVCRDMA_F_LISTENER, &xp->flags)) {
		switch (ev->event) {
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			pr_info("svcrdma: listener %pISpc: %s, closing\n",
				&id->route.addr.src_addr,
				rdma_event_msg(ev->event));
			svcrdma_close(xp);
			break;
		case RDMA_CM_EVENT_ADDR_CHANGE:
			/* Not for an id the relisten work is replacing. */
			if (id != READ_ONCE(xp->cm_id))
				break;
			pr_info("svcrdma: listener %pISpc: %s, listening again\n",
				&id->route.addr.src_addr,
				rdma_event_msg(ev->event));
			/*
			 * The RoCE GID table follows a MAC change on its own
			 * schedule: binding at once would mostly fail.
			 */
			mod_delayed_work(system_long_wq, &xp->relisten,
					 SVCRDMA_RELISTEN_FIRST_DELAY);
			break;
		default:
			break;
		}
		return 0;
	}

	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		trace_svcrdma_disconnect(xp, rdma_event_msg(ev->event),
					 ev->status);
		svcrdma_conn_gone(xp);
		break;
	default:
		break;
	}
	return 0;
}

static void svcrdma_qp_event(struct ib_event *event, void *context)
{
	struct svcrdma_xprt *xp = context;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_QP_LAST_WQE_REACHED:
		break;
	default:
		pr_warn_ratelimited("svcrdma: QP event %s on %s, closing\n",
				    ib_event_msg(event->event),
				    xp->xprt.xpt_remotebuf);
		trace_svcrdma_disconnect(xp, ib_event_msg(event->event), 0);
		svcrdma_close(xp);
		break;
	}
}

/*
 * A new cm_id listening on @sa for @lx, or an ERR_PTR.  Called with
 * @lx->listen_lock held.  The id is @lx->cm_id from the moment it is
 * bound, when the CM may first report ADDR_CHANGE on it, so that the
 * handler does not take such an event for one on a replaced id.
 */
static struct rdma_cm_id *svcrdma_listen_on(struct svcrdma_xprt *lx,
					    struct net *net,
					    struct sockaddr *sa)
{
	struct rdma_cm_id *id;
	int ret;

	lockdep_assert_held(&lx->listen_lock);

	id = rdma_create_id(net, svcrdma_cm_handler, lx, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	/* Let an AF_INET listener share the port with this one. */
	if (sa->sa_family == AF_INET6) {
		ret = rdma_set_afonly(id, 1);
		if (ret)
			goto destroy_id;
	}
	ret = rdma_bind_addr(id, sa);
	if (ret)
		goto destroy_id;
	WRITE_ONCE(lx->cm_id, id);
	ret = rdma_listen(id, 64);
	if (ret)
		goto unset_id;
	return id;

unset_id:
	WRITE_ONCE(lx->cm_id, NULL);
destroy_id:
	rdma_destroy_id(id);
	return ERR_PTR(ret);
}

/*
 * After ADDR_CHANGE: drop the listener's id and listen on the same
 * address and port with a new one, which the CM attaches to wherever the
 * address now is.  The old id goes first because it holds the port.
 * Requests already queued on @accept_q are their own ids and live on.
 * While the address cannot be bound (it may be moving still) retry, 1 s
 * after the first failure and up to SVCRDMA_RELISTEN_MAX_DELAY apart.
 */
static void svcrdma_relisten_work(struct work_struct *work)
{
	struct svcrdma_xprt *lx = container_of(to_delayed_work(work),
					       struct svcrdma_xprt, relisten);
	struct sockaddr *sa = (struct sockaddr *)&lx->xprt.xpt_local;
	struct rdma_cm_id *id;
	unsigned long delay;

	mutex_lock(&lx->listen_lock);
	if (test_bit(SVCRDMA_F_LX_GONE, &lx->flags))
		goto unlock;
	id = lx->cm_id;
	WRITE_ONCE(lx->cm_id, NULL);
	if (id)
		rdma_destroy_id(id);

	id = svcrdma_listen_on(lx, lx->xprt.xpt_net, sa);
	if (IS_ERR(id)) {
		delay = min_t(unsigned long, HZ << min(lx->relisten_tries, 5U),
			      SVCRDMA_RELISTEN_MAX_DELAY);
		lx->relisten_tries++;
		pr_warn_ratelimited("svcrdma: listener %pISpc: cannot listen again (%ld), retrying in %lu s\n",
				    sa, PTR_ERR(id), delay / HZ);
		queue_delayed_work(system_long_wq, &lx->relisten, delay);
		goto unlock;
	}
	lx->relisten_tries = 0;
	svcrdma_stat_inc(SVCRDMA_STAT_RELISTENS);
	pr_info("svcrdma: listener %pISpc: listening again%s%s\n", sa,
		id->device ? " on " : "",
		id->device ? dev_name(&id->device->dev) : "");
unlock:
	mutex_unlock(&lx->listen_lock);
}

static struct svc_xprt *svcrdma_create(struct svc_serv *serv, struct net *net,
				       struct sockaddr *sa, int salen,
				       int flags)
{
	struct svcrdma_xprt *lx;
	struct rdma_cm_id *id;
	int ret;

	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return ERR_PTR(-EAFNOSUPPORT);
	lx = svcrdma_xprt_alloc();
	if (!lx)
		return ERR_PTR(-ENOMEM);
	svc_xprt_init(net, &svcrdma_class, &lx->xprt, serv);
	set_bit(XPT_LISTENER, &lx->xprt.xpt_flags);
	set_bit(SVCRDMA_F_LISTENER, &lx->flags);
	mutex_init(&lx->listen_lock);
	INIT_DELAYED_WORK(&lx->relisten, svcrdma_relisten_work);

	/*
	 * Held until xpt_local is set: a relisten work queued by an early
	 * ADDR_CHANGE waits for it, and reads it.
	 */
	mutex_lock(&lx->listen_lock);
	id = svcrdma_listen_on(lx, net, sa);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto cancel_relisten;
	}
	svc_xprt_set_local(&lx->xprt, (struct sockaddr *)&id->route.addr.src_addr,
			   svc_addr_len((struct sockaddr *)&id->route.addr.src_addr));
	mutex_unlock(&lx->listen_lock);
	return &lx->xprt;

cancel_relisten:
	set_bit(SVCRDMA_F_LX_GONE, &lx->flags);
	mutex_unlock(&lx->listen_lock);
	cancel_delayed_work_sync(&lx->relisten);
	mutex_destroy(&lx->listen_lock);
	put_net_track(lx->xprt.xpt_net, &lx->xprt.ns_tracker);
	svcrdma_xprt_free(lx);
	return ERR_PTR(ret);
}

/* Verbs resources and the accept; xpo_free undoes them (svcrdma_free()). */
static int svcrdma_conn_setup(struct svcrdma_xprt *xp)
{
	struct rdma_cm_id *id = xp->cm_id;
	struct ib_device *dev = id->device;
	struct ib_qp_init_attr qpa = { };
	struct rdma_conn_param param = { };
	u8 pdata[NFSRDMA_WIRE_CM_PDATA_SIZE];
	struct nfsrdma_wire_cm_pdata ours;
	u32 max_wr = dev->attrs.max_qp_wr;
	u32 sq_depth, scq_depth;
	int ret;

	xp->dev = dev;
	xp->port = id->port_num;
	spin_lock(&svcrdma_conns_lock);
	list_add_tail(&xp->dev_node, &svcrdma_conns);
	set_bit(SVCRDMA_F_ON_DEVLIST, &xp->flags);
	spin_unlock(&svcrdma_conns_lock);

	xp->credits = min_t(u32, svcrdma_tunable_credits(), max_wr / 2);
	/*
	 * One receive and two send slots (and their CQ entries) stay out of
	 * our budget: ib_drain_qp() posts a marker into each queue at
	 * teardown, and a full queue would make the drain give up while
	 * flushed contexts are still on their way to our done handlers; a
	 * stopped connection posts its own flush marker (svcrdma_stop_qp()).
	 */
	xp->nr_recvs = min_t(u32, 2 * xp->credits, max_wr - 1);
	xp->recv_size = svcrdma_tunable_inline();
	xp->inline_send = min_t(u32, xp->recv_size, xp->peer.recv_size);
	xp->snd_w_inv = xp->peer.remote_inv &&
		(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS);
	if (dev->ops.driver_id == RDMA_DRIVER_RXE)
		xp->read_piece = svcrdma_rxe_read_piece;
	/* Every thread sending holds one; ERR replies take one too. */
	xp->nr_sends = xp->credits;

	/*
	 * Send queue: a Send per credit plus room for the Read and Write
	 * chains of large I/O; rdma_rw adds its own per-context overhead
	 * on top of max_send_wr and clamps to the device.
	 */
	sq_depth = min_t(u32, 4 * xp->credits, max_wr - 2);
	scq_depth = min_t(u32, 7 * xp->credits + 3,
			  (u32)dev->attrs.max_cqe);

	xp->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(xp->pd)) {
		ret = PTR_ERR(xp->pd);
		xp->pd = NULL;
		return ret;
	}
	xp->rcq = ib_alloc_cq_any(dev, xp, xp->nr_recvs + 1, IB_POLL_WORKQUEUE);
	if (IS_ERR(xp->rcq)) {
		ret = PTR_ERR(xp->rcq);
		xp->rcq = NULL;
		return ret;
	}
	xp->scq = ib_alloc_cq_any(dev, xp, scq_depth, IB_POLL_WORKQUEUE);
	if (IS_ERR(xp->scq)) {
		ret = PTR_ERR(xp->scq);
		xp->scq = NULL;
		return ret;
	}

	qpa.event_handler = svcrdma_qp_event;
	qpa.qp_context = xp;
	qpa.send_cq = xp->scq;
	qpa.recv_cq = xp->rcq;
	qpa.cap.max_send_wr = sq_depth + 2;
	qpa.cap.max_recv_wr = xp->nr_recvs + 1;
	qpa.cap.max_send_sge = min_t(u32, dev->attrs.max_send_sge, 16);
	qpa.cap.max_recv_sge = 1;
	/*
	 * rdma_rw keeps an MR pool of max_rdma_ctxs for devices that need
	 * MRs to move data (iWARP always does for Reads).  A context covering
	 * a largest payload may need several MRs where the device's MRs are
	 * short (siw: 256 pages), so size the pool by the device's factor,
	 * or concurrent large I/O runs the pool dry and fails the call.
	 */
	qpa.cap.max_rdma_ctxs = xp->credits *
		rdma_rw_mr_factor(dev, xp->port, RPCSVC_MAXPAGES);
	qpa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qpa.qp_type = IB_QPT_RC;
	qpa.port_num = xp->port;
	ret = rdma_create_qp(id, xp->pd, &qpa);
	if (ret)
		return ret;
	xp->qp = id->qp;
	xp->sq_depth = min_t(u32, qpa.cap.max_send_wr, xp->scq->cqe) - 2;
	atomic_set(&xp->sq_avail, xp->sq_depth);
	xp->marker_cqe.done = svcrdma_marker_done;

	ret = svcrdma_sends_create(xp);
	if (ret)
		return ret;
	ret = svcrdma_recvs_create(xp);
	if (ret)
		return ret;
	svcrdma_stat_add(SVCRDMA_STAT_CREDITS_IN_USE, xp->credits);
	set_bit(SVCRDMA_F_CREDITED, &xp->flags);

	ours.send_size = xp->inline_send;
	ours.recv_size = xp->recv_size;
	ours.remote_inv = false;
	ret = nfsrdma_wire_encode_cm_pdata(pdata, sizeof(pdata), &ours);
	if (ret < 0)
		return ret;
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	param.initiator_depth = min_t(u32, xp->ord, dev->attrs.max_qp_init_rd_atom);
	param.responder_resources = min_t(u32, xp->ird, dev->attrs.max_qp_rd_atom);
	param.flow_control = 1;
	param.rnr_retry_count = 7;
	/* Our RDMA Reads and Writes, and our Sends, retransmit after it. */
	ret = nfsrdma_set_ack_timeout(id, svcrdma_ack_timeout);
	if (ret)
		return ret;

	rdma_lock_handler(id);
	if (test_bit(SVCRDMA_F_PEER_GONE, &xp->flags))
		ret = -ENOTCONN;
	else
		ret = rdma_accept(id, &param);
	rdma_unlock_handler(id);
	if (ret)
		return ret;
	svcrdma_stat_inc(SVCRDMA_STAT_CONNS_ACCEPTED);
	trace_svcrdma_accept(xp);
	xp->ka_cqe.done = svcrdma_ka_done;
	xp->ka_last = jiffies;
	queue_delayed_work(system_wq, &xp->health, SVCRDMA_HEALTH_TICK);
	return ret;
}

/*
 * Tell the svc layer who the peer is.  nfsd's duplicate-reply cache keys a
 * call by the peer's address *and port*, and expects a client to keep its
 * port across reconnects, as TCP clients do by rebinding their source
 * port.  An RDMA-CM client gets a fresh ephemeral port on every connection,
 * so a call retransmitted after a reconnect would miss the cache and a
 * non-idempotent operation (CREATE, REMOVE, RENAME) would run twice.  The
 * port means nothing to RPC-over-RDMA (privilege is decided by
 * svcrdma_secure_port, not by the port), so report every peer with port
 * 0: retransmissions from the same host then find their cached reply.
 * Log lines still name the peer's real address and port.
 */
static void svcrdma_set_remote(struct svcrdma_xprt *xp)
{
	struct sockaddr_storage peer;
	struct sockaddr *sa = (struct sockaddr *)&peer;

	memcpy(&peer, &xp->cm_id->route.addr.dst_addr, sizeof(peer));
	rpc_set_port(sa, 0);
	svc_xprt_set_remote(&xp->xprt, sa, svc_addr_len(sa));
	snprintf(xp->xprt.xpt_remotebuf, sizeof(xp->xprt.xpt_remotebuf) - 1,
		 "%pISpc", &xp->cm_id->route.addr.dst_addr);
}

static struct svc_xprt *svcrdma_accept(struct svc_xprt *xprt)
{
	struct svcrdma_xprt *lx = svcrdma_of(xprt);
	struct svcrdma_xprt *xp;
	struct sockaddr *sa;
	int ret;

	spin_lock_bh(&lx->accept_lock);
	xp = list_first_entry_or_null(&lx->accept_q, struct svcrdma_xprt,
				      accept_node);
	if (xp) {
		list_del_init(&xp->accept_node);
		lx->nr_pending--;
		svcrdma_stat_dec(SVCRDMA_STAT_REQUESTS_PENDING);
	}
	if (list_empty(&lx->accept_q))
		clear_bit(XPT_CONN, &lx->xprt.xpt_flags);
	spin_unlock_bh(&lx->accept_lock);
	if (!xp)
		return NULL;

	/* From here on svc owns @xp; every failure path ends in xpo_free. */
	svc_xprt_init(lx->xprt.xpt_net, &svcrdma_class, &xp->xprt,
		      lx->xprt.xpt_server);
	/* Counted until xpo_free, which every accepted request reaches. */
	svcrdma_stat_inc(SVCRDMA_STAT_CONNS_ACTIVE);
	/* Credits are RPC-over-RDMA's congestion control (NFSv4 needs it). */
	set_bit(XPT_CONG_CTRL, &xp->xprt.xpt_flags);
	set_bit(SVCRDMA_F_ACCEPTED, &xp->flags);
	smp_mb__after_atomic();

	svcrdma_set_remote(xp);
	sa = (struct sockaddr *)&xp->cm_id->route.addr.src_addr;
	svc_xprt_set_local(&xp->xprt, sa, svc_addr_len(sa));

	if (test_bit(SVCRDMA_F_PEER_GONE, &xp->flags))
		ret = -ENOTCONN;
	else
		ret = svcrdma_conn_setup(xp);
	if (ret) {
		pr_warn_ratelimited("svcrdma: accepting %s failed: %d\n",
				    xp->xprt.xpt_remotebuf, ret);
		set_bit(XPT_CLOSE, &xp->xprt.xpt_flags);
	}
	return &xp->xprt;
}

static int svcrdma_has_wspace(struct svc_xprt *xprt)
{
	/* Credits, not buffer space, bound what the client has in flight. */
	return 1;
}

static void svcrdma_detach(struct svc_xprt *xprt)
{
	struct svcrdma_xprt *xp = svcrdma_of(xprt);

	svcrdma_wake_all(xp);
	if (!test_bit(SVCRDMA_F_LISTENER, &xp->flags) && xp->qp) {
		/* The peer's own disconnect was traced as it arrived. */
		if (!test_bit(SVCRDMA_F_PEER_GONE, &xp->flags))
			trace_svcrdma_disconnect(xp, "closed by server", 0);
		rdma_disconnect(xp->cm_id);
	}
}

/* A connection request that no nfsd thread ever accepted. */
static void svcrdma_drop_request(struct svcrdma_xprt *xp)
{
	rdma_destroy_id(xp->cm_id);
	svcrdma_xprt_free(xp);
}

static void svcrdma_free_listener(struct svcrdma_xprt *lx)
{
	struct svcrdma_xprt *xp, *next;
	struct rdma_cm_id *id;

	/*
	 * No CONNECT_REQUEST can queue anything, nor ADDR_CHANGE the
	 * relisten work, once the id is gone; the work, if it was already
	 * queued or waiting for the lock, then finds the listener gone.
	 */
	mutex_lock(&lx->listen_lock);
	set_bit(SVCRDMA_F_LX_GONE, &lx->flags);
	id = lx->cm_id;
	WRITE_ONCE(lx->cm_id, NULL);
	if (id)
		rdma_destroy_id(id);
	mutex_unlock(&lx->listen_lock);
	cancel_delayed_work_sync(&lx->relisten);
	mutex_destroy(&lx->listen_lock);
	list_for_each_entry_safe(xp, next, &lx->accept_q, accept_node) {
		list_del(&xp->accept_node);
		svcrdma_stat_dec(SVCRDMA_STAT_REQUESTS_PENDING);
		svcrdma_drop_request(xp);
	}
	svcrdma_xprt_free(lx);
}

static void svcrdma_free(struct svc_xprt *xprt)
{
	struct svcrdma_xprt *xp = svcrdma_of(xprt);

	if (test_bit(SVCRDMA_F_LISTENER, &xp->flags)) {
		svcrdma_free_listener(xp);
		return;
	}

	/*
	 * Undo svcrdma_conn_setup() in reverse, but for the contexts; any
	 * step may never have happened.  The health work goes first: it
	 * posts.  The drain hands every flushed context back to our
	 * handlers; the contexts themselves go only after the CQs, so that
	 * even a completion a provider lost and then delivered late (see
	 * svcrdma_marker_done()) finds its context.
	 */
	cancel_delayed_work_sync(&xp->health);
	if (xp->qp)
		ib_drain_qp(xp->qp);
	if (xp->qp) {
		/* Writes of Sends whose completion was lost need the QP. */
		svcrdma_sends_release_lost(xp);
		rdma_destroy_qp(xp->cm_id);
	}
	if (xp->scq)
		ib_free_cq(xp->scq);
	if (xp->rcq)
		ib_free_cq(xp->rcq);
	svcrdma_recvs_destroy(xp);
	svcrdma_sends_destroy(xp);
	if (xp->pd)
		ib_dealloc_pd(xp->pd);
	rdma_destroy_id(xp->cm_id);
	if (test_bit(SVCRDMA_F_ON_DEVLIST, &xp->flags)) {
		spin_lock(&svcrdma_conns_lock);
		list_del(&xp->dev_node);
		spin_unlock(&svcrdma_conns_lock);
		wake_up_all(&svcrdma_conns_wait);
	}
	if (test_bit(SVCRDMA_F_CREDITED, &xp->flags))
		svcrdma_stat_add(SVCRDMA_STAT_CREDITS_IN_USE, -(long)xp->credits);
	svcrdma_stat_dec(SVCRDMA_STAT_CONNS_ACTIVE);
	svcrdma_xprt_free(xp);
}

#ifdef NFSRDMA_SVC_SECURE_PORT_OP
static void svcrdma_secure_port(struct svc_rqst *rqstp)
{
	/* RDMA has no privileged ports; the fabric is the trust boundary. */
	set_bit(RQ_SECURE, &rqstp->rq_flags);
}
#endif

static void svcrdma_kill_temp_xprt(struct svc_xprt *xprt)
{
	/* svc_delete_xprt() follows and disconnects via xpo_detach. */
}

#ifdef NFSRDMA_SVC_SECURE_PORT_OP
static void svcrdma_start_tls(struct svc_xprt *xprt)
{
	/* RPC-with-TLS over RDMA is not defined. */
}
#endif

static const struct svc_xprt_ops svcrdma_ops = {
	.xpo_create		= svcrdma_create,
	.xpo_accept		= svcrdma_accept,
	.xpo_has_wspace		= svcrdma_has_wspace,
	.xpo_recvfrom		= svcrdma_recvfrom,
	.xpo_sendto		= svcrdma_sendto,
	.xpo_result_payload	= svcrdma_result_payload,
	.xpo_release_ctxt	= svcrdma_release_ctxt,
	.xpo_detach		= svcrdma_detach,
	.xpo_free		= svcrdma_free,
	.xpo_kill_temp_xprt	= svcrdma_kill_temp_xprt,
#ifdef NFSRDMA_SVC_SECURE_PORT_OP
	.xpo_secure_port	= svcrdma_secure_port,
	.xpo_start_tls		= svcrdma_start_tls,
#endif
};

struct svc_xprt_class svcrdma_class = {
	.xcl_name		= "rdma",
	.xcl_owner		= THIS_MODULE,
	.xcl_ops		= &svcrdma_ops,
	.xcl_max_payload	= SVCRDMA_MAX_PAYLOAD,
	.xcl_ident		= XPRT_TRANSPORT_RDMA,
};

static bool svcrdma_device_busy(struct ib_device *dev)
{
	struct svcrdma_xprt *xp;
	bool busy = false;

	spin_lock(&svcrdma_conns_lock);
	list_for_each_entry(xp, &svcrdma_conns, dev_node) {
		if (xp->dev == dev) {
			busy = true;
			break;
		}
	}
	spin_unlock(&svcrdma_conns_lock);
	return busy;
}

static int svcrdma_add_one(struct ib_device *dev)
{
	return 0;
}

/*
 * A device is going away.  Our client registered after rdma_cm's, so we
 * are told first and must give back every PD, CQ and QP on it before we
 * return; the cm_ids go with them in xpo_free.
 */
static void svcrdma_remove_one(struct ib_device *dev, void *client_data)
{
	struct svcrdma_xprt *xp;
	bool busy;

	spin_lock(&svcrdma_conns_lock);
	list_for_each_entry(xp, &svcrdma_conns, dev_node)
		if (xp->dev == dev) {
			trace_svcrdma_disconnect(xp, "device removal", 0);
			svcrdma_close(xp);
		}
	spin_unlock(&svcrdma_conns_lock);

	busy = svcrdma_device_busy(dev);
	trace_svcrdma_device_removal(dev, busy);
	if (busy)
		pr_info("svcrdma: %s removed, closing its connections\n",
			dev_name(&dev->dev));
	wait_event(svcrdma_conns_wait, !svcrdma_device_busy(dev));
}

static struct ib_client svcrdma_ib_client = {
	.name	= "svcrdma",
	.add	= svcrdma_add_one,
	.remove	= svcrdma_remove_one,
};

/**
 * svcrdma_devices_init - register for RDMA device removal
 *
 * Context: module init.
 *
 * Return: 0 or the error from ib_register_client().
 */
int svcrdma_devices_init(void)
{
	return ib_register_client(&svcrdma_ib_client);
}

/**
 * svcrdma_devices_exit - unregister the device removal client
 *
 * Context: module exit, after the class is unregistered and every
 * transport freed (the module reference count guarantees it).
 */
void svcrdma_devices_exit(void)
{
	ib_unregister_client(&svcrdma_ib_client);
}
