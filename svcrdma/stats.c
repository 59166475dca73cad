// SPDX-License-Identifier: GPL-2.0
/*
 * svcrdma: counters and gauges for administrators, read-only under
 * /proc/sys/sunrpc/svcrdma/.
 *
 * They are module-wide atomics rather than per connection so that they
 * survive the connections they describe: a leak shows up as a gauge that
 * does not come back to its idle value once every connection is gone.
 * Atomics, not percpu counters: each is touched at most a few times per
 * RPC, next to an RDMA post that costs far more.
 */

#include <linux/sysctl.h>
#include <linux/atomic.h>

#include "svcrdma.h"

atomic_long_t svcrdma_stats[SVCRDMA_STAT_NR];

static struct ctl_table_header *svcrdma_sysctl;

/*
 * The sysctl helpers read ->data with plain loads; hand them a private
 * copy taken with atomic_long_read() so the read is a proper atomic one.
 */
static int svcrdma_stat_show(NFSRDMA_CTL_TABLE_CONST struct ctl_table *table,
			     int write, void *buffer, size_t *lenp,
			     loff_t *ppos)
{
	unsigned long val = atomic_long_read((atomic_long_t *)table->data);
	struct ctl_table copy = *table;

	if (write)
		return -EPERM;
	copy.data = &val;
	copy.maxlen = sizeof(val);
	return proc_doulongvec_minmax(&copy, 0, buffer, lenp, ppos);
}

#define SVCRDMA_STAT_ENTRY(_name, _idx) {			\
	.procname	= _name,				\
	.data		= &svcrdma_stats[_idx],			\
	.maxlen		= sizeof(atomic_long_t),		\
	.mode		= 0444,					\
	.proc_handler	= svcrdma_stat_show,			\
}

static struct ctl_table svcrdma_stat_table[] = {
	SVCRDMA_STAT_ENTRY("calls_received", SVCRDMA_STAT_CALLS_RECEIVED),
	SVCRDMA_STAT_ENTRY("read_chunks", SVCRDMA_STAT_READ_CHUNKS),
	SVCRDMA_STAT_ENTRY("read_bytes", SVCRDMA_STAT_READ_BYTES),
	SVCRDMA_STAT_ENTRY("write_chunks", SVCRDMA_STAT_WRITE_CHUNKS),
	SVCRDMA_STAT_ENTRY("write_bytes", SVCRDMA_STAT_WRITE_BYTES),
	SVCRDMA_STAT_ENTRY("reply_chunks", SVCRDMA_STAT_REPLY_CHUNKS),
	SVCRDMA_STAT_ENTRY("reply_bytes", SVCRDMA_STAT_REPLY_BYTES),
	SVCRDMA_STAT_ENTRY("inline_replies", SVCRDMA_STAT_INLINE_REPLIES),
	SVCRDMA_STAT_ENTRY("err_vers_sent", SVCRDMA_STAT_ERR_VERS_SENT),
	SVCRDMA_STAT_ENTRY("err_chunk_sent", SVCRDMA_STAT_ERR_CHUNK_SENT),
	SVCRDMA_STAT_ENTRY("bad_input_closes", SVCRDMA_STAT_BAD_INPUT_CLOSES),
	SVCRDMA_STAT_ENTRY("stall_closes", SVCRDMA_STAT_STALL_CLOSES),
	SVCRDMA_STAT_ENTRY("lost_completions", SVCRDMA_STAT_LOST_COMPLETIONS),
	SVCRDMA_STAT_ENTRY("throttled", SVCRDMA_STAT_THROTTLED),
	SVCRDMA_STAT_ENTRY("wc_errors", SVCRDMA_STAT_WC_ERRORS),
	SVCRDMA_STAT_ENTRY("connections_accepted", SVCRDMA_STAT_CONNS_ACCEPTED),
	SVCRDMA_STAT_ENTRY("requests_refused", SVCRDMA_STAT_REQUESTS_REFUSED),
	SVCRDMA_STAT_ENTRY("listener_relistens", SVCRDMA_STAT_RELISTENS),
	SVCRDMA_STAT_ENTRY("write_waits", SVCRDMA_STAT_WRITE_WAITS),
	SVCRDMA_STAT_ENTRY("read_turns", SVCRDMA_STAT_READ_TURNS),
	SVCRDMA_STAT_ENTRY("mr_pool_waits", SVCRDMA_STAT_MR_POOL_WAITS),
	SVCRDMA_STAT_ENTRY("requests_pending", SVCRDMA_STAT_REQUESTS_PENDING),
	SVCRDMA_STAT_ENTRY("connections_active", SVCRDMA_STAT_CONNS_ACTIVE),
	SVCRDMA_STAT_ENTRY("credits_in_use", SVCRDMA_STAT_CREDITS_IN_USE),
	SVCRDMA_STAT_ENTRY("recv_ctxts", SVCRDMA_STAT_RECV_CTXTS),
	SVCRDMA_STAT_ENTRY("send_ctxts", SVCRDMA_STAT_SEND_CTXTS),
	SVCRDMA_STAT_ENTRY("memory_bytes", SVCRDMA_STAT_MEMORY_BYTES),
	NFSRDMA_CTL_TABLE_END
};

/**
 * svcrdma_stats_init - publish the counters under /proc/sys/sunrpc/svcrdma
 *
 * Context: module init, after everything that updates the counters is
 * ready (the counters themselves are static and need no setup).
 *
 * Return: 0 or -ENOMEM if the sysctl directory cannot be registered.
 */
int svcrdma_stats_init(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(svcrdma_stat_table) !=
		     SVCRDMA_STAT_NR + NFSRDMA_CTL_TABLE_END_N);
	svcrdma_sysctl = register_sysctl("sunrpc/svcrdma", svcrdma_stat_table);
	return svcrdma_sysctl ? 0 : -ENOMEM;
}

/**
 * svcrdma_stats_exit - remove /proc/sys/sunrpc/svcrdma
 *
 * Context: module exit, first of the teardown steps; a reader that has
 * the file open finishes before unregister_sysctl_table() returns.
 */
void svcrdma_stats_exit(void)
{
	unregister_sysctl_table(svcrdma_sysctl);
	svcrdma_sysctl = NULL;
}
