// SPDX-License-Identifier: GPL-2.0
/*
 * svcrdma: the administrator's tunables under /proc/sys/sunrpc/svc_rdma/,
 * with the names and ranges of the in-tree rpcrdma server, so that a
 * sysctl.conf written for it loads unchanged with us.
 *
 *   max_requests                credits granted per connection
 *   max_req_size                receive buffer size, the largest inline
 *                               call and reply
 *   max_outbound_read_requests  RDMA Reads we keep in flight per
 *                               connection (our initiator depth)
 *
 * Each is read when a connection is accepted, so a change takes effect
 * for new connections.  The first two share their variable with the
 * module parameters credits and max_inline.  A sysctl may hold any value
 * the in-tree accepts; svcrdma_tunable_*() clamp it to what we support
 * where it is used, so a write never has to be refused for our sake.
 * The in-tree's rdma_stat_* counters are not mirrored: our own are in
 * /proc/sys/sunrpc/svcrdma/ (stats.c).
 */

#include <linux/minmax.h>
#include <linux/sysctl.h>

#include "svcrdma.h"

unsigned int svcrdma_credits = 64;
/*
 * 8 KiB rather than the in-tree's 4 KiB: a client that advertises 8 KiB
 * (ours does) sends a 4 KiB WRITE inline and gets a 4 KiB READ back in one
 * Send, with no chunk to register.  It costs receive-buffer memory per
 * credit; see Documentation/svcrdma.rst.
 */
unsigned int svcrdma_max_inline = 8192;
static unsigned int svcrdma_max_ord = 16;

/* The in-tree's ranges. */
static unsigned int svcrdma_requests_min = 4;
static unsigned int svcrdma_requests_max = 16384;
static unsigned int svcrdma_req_size_min = 4096;
static unsigned int svcrdma_req_size_max = 65536;
static unsigned int svcrdma_ord_min = 1;
static unsigned int svcrdma_ord_max = 255;

#define SVCRDMA_TUNABLE(_name, _var, _min, _max) {		\
	.procname	= _name,				\
	.data		= &(_var),				\
	.maxlen		= sizeof(unsigned int),			\
	.mode		= 0644,					\
	.proc_handler	= proc_douintvec_minmax,		\
	.extra1		= &(_min),				\
	.extra2		= &(_max),				\
}

static struct ctl_table svcrdma_tunable_table[] = {
	SVCRDMA_TUNABLE("max_requests", svcrdma_credits,
			svcrdma_requests_min, svcrdma_requests_max),
	SVCRDMA_TUNABLE("max_req_size", svcrdma_max_inline,
			svcrdma_req_size_min, svcrdma_req_size_max),
	SVCRDMA_TUNABLE("max_outbound_read_requests", svcrdma_max_ord,
			svcrdma_ord_min, svcrdma_ord_max),
	NFSRDMA_CTL_TABLE_END
};

static struct ctl_table_header *svcrdma_tunables;

/**
 * svcrdma_tunable_credits - credits to grant a new connection
 *
 * Context: any.
 *
 * Return: max_requests (the credits module parameter) within
 * %SVCRDMA_CREDITS_MIN..%SVCRDMA_CREDITS_MAX.
 */
u32 svcrdma_tunable_credits(void)
{
	return clamp_t(u32, READ_ONCE(svcrdma_credits), SVCRDMA_CREDITS_MIN,
		       SVCRDMA_CREDITS_MAX);
}

/**
 * svcrdma_tunable_inline - receive buffer and inline size for a new
 *	connection
 *
 * Context: any.
 *
 * Return: max_req_size (the max_inline module parameter) rounded down to
 * whole KiB, as RFC 8797 private data carries it, within
 * %SVCRDMA_INLINE_MIN..%SVCRDMA_INLINE_MAX.
 */
u32 svcrdma_tunable_inline(void)
{
	return clamp_t(u32, ALIGN_DOWN(READ_ONCE(svcrdma_max_inline), 1024),
		       SVCRDMA_INLINE_MIN, SVCRDMA_INLINE_MAX);
}

/**
 * svcrdma_tunable_ord - RDMA Reads to keep in flight on a new connection
 *
 * Context: any.
 *
 * Return: max_outbound_read_requests; the caller also limits it by the
 * peer's and the device's.
 */
u32 svcrdma_tunable_ord(void)
{
	return READ_ONCE(svcrdma_max_ord);
}

/**
 * svcrdma_tunables_init - publish /proc/sys/sunrpc/svc_rdma
 *
 * Context: module init.
 *
 * Return: 0 or -ENOMEM.
 */
int svcrdma_tunables_init(void)
{
	svcrdma_tunables = register_sysctl("sunrpc/svc_rdma",
					   svcrdma_tunable_table);
	return svcrdma_tunables ? 0 : -ENOMEM;
}

/**
 * svcrdma_tunables_exit - remove /proc/sys/sunrpc/svc_rdma
 *
 * Context: module exit.
 */
void svcrdma_tunables_exit(void)
{
	unregister_sysctl_table(svcrdma_tunables);
	svcrdma_tunables = NULL;
}
