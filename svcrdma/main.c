// SPDX-License-Identifier: GPL-2.0
/*
 * svcrdma: the RPC-over-RDMA Version 1 server transport (RFC 8166,
 * RFC 8267, RFC 8797) for knfsd.  Registers svc_xprt class "rdma".
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <nfsrdma/rc.h>

#include "svcrdma.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* Also sunrpc.svc_rdma.max_requests and max_req_size (tunables.c). */
module_param_named(credits, svcrdma_credits, uint, 0444);
MODULE_PARM_DESC(credits, "RPC credits granted per connection (8-1024, default 64); same as sunrpc.svc_rdma.max_requests");

module_param_named(max_inline, svcrdma_max_inline, uint, 0444);
MODULE_PARM_DESC(max_inline,
		 "receive buffer size and largest inline reply in bytes (1024-65536, multiple of 1024, default 8192); same as sunrpc.svc_rdma.max_req_size");

unsigned int svcrdma_keepalive = 30;
module_param_named(keepalive, svcrdma_keepalive, uint, 0444);
MODULE_PARM_DESC(keepalive,
		 "seconds between dead-peer probes on a connection (0: never, default 30)");

/* How long a connection's QP waits for an ACK: include/nfsrdma/rc.h. */
unsigned int svcrdma_ack_timeout = NFSRDMA_ACK_TIMEOUT_DEFAULT;
module_param_named(ack_timeout, svcrdma_ack_timeout, uint, 0444);
MODULE_PARM_DESC(ack_timeout,
		 "RC ACK timeout of accepted connections, 4.096 us * 2^value (0: rdma_cm's, up to 31, default 16: about 268 ms)");

/* How much of a large call's Reads is in flight on soft-RoCE: recv.c. */
unsigned int svcrdma_rxe_read_piece = 65536;
module_param_named(rxe_read_piece, svcrdma_rxe_read_piece, uint, 0444);
MODULE_PARM_DESC(rxe_read_piece,
		 "on a soft-RoCE (rxe) device, a call whose Read chunks exceed this many bytes reads them this many at a time, one such call at a time per connection (0: off, else 4096-1048576, default 65536)");

unsigned int svcrdma_stall_timeout = 20;
module_param_named(stall_timeout, svcrdma_stall_timeout, uint, 0444);
MODULE_PARM_DESC(stall_timeout,
		 "seconds a connection's send queue may hold work without a completion before the connection is stopped (5-600, default 20)");

static int __init svcrdma_init(void)
{
	int ret;

	if (svcrdma_credits < SVCRDMA_CREDITS_MIN ||
	    svcrdma_credits > SVCRDMA_CREDITS_MAX) {
		pr_err("svcrdma: credits=%u is outside 8-1024\n",
		       svcrdma_credits);
		return -EINVAL;
	}
	if (svcrdma_max_inline < SVCRDMA_INLINE_MIN ||
	    svcrdma_max_inline > SVCRDMA_INLINE_MAX ||
	    svcrdma_max_inline % 1024) {
		pr_err("svcrdma: max_inline=%u must be a multiple of 1024 in 1024-65536\n",
		       svcrdma_max_inline);
		return -EINVAL;
	}

	if (svcrdma_stall_timeout < 5 || svcrdma_stall_timeout > 600) {
		pr_err("svcrdma: stall_timeout=%u is outside 5-600\n",
		       svcrdma_stall_timeout);
		return -EINVAL;
	}

	if (svcrdma_ack_timeout > NFSRDMA_ACK_TIMEOUT_MAX) {
		pr_err("svcrdma: ack_timeout=%u is outside 0-%u\n",
		       svcrdma_ack_timeout, NFSRDMA_ACK_TIMEOUT_MAX);
		return -EINVAL;
	}

	if (svcrdma_rxe_read_piece &&
	    (svcrdma_rxe_read_piece < 4096 || svcrdma_rxe_read_piece > 1048576)) {
		pr_err("svcrdma: rxe_read_piece=%u is outside 4096-1048576\n",
		       svcrdma_rxe_read_piece);
		return -EINVAL;
	}

	ret = svcrdma_hdr_pool_init();
	if (ret)
		return ret;
	ret = svcrdma_devices_init();
	if (ret)
		goto destroy_pool;
	ret = svc_reg_xprt_class(&svcrdma_class);
	if (ret == -EEXIST) {
		pr_err("svcrdma: transport class \"rdma\" is already registered, most likely by the in-tree rpcrdma module; unload it first (modprobe -r rpcrdma)\n");
		/* modprobe takes EEXIST for "already loaded" and says nothing. */
		ret = -EBUSY;
		goto unregister_devices;
	}
	if (ret)
		goto unregister_devices;
	ret = svcrdma_bc_init();
	if (ret)
		goto unregister_class;
	ret = svcrdma_stats_init();
	if (ret)
		goto unregister_bc;
	ret = svcrdma_tunables_init();
	if (ret)
		goto unregister_stats;
	return 0;

unregister_stats:
	svcrdma_stats_exit();
unregister_bc:
	svcrdma_bc_exit();
unregister_class:
	svc_unreg_xprt_class(&svcrdma_class);
unregister_devices:
	svcrdma_devices_exit();
destroy_pool:
	svcrdma_hdr_pool_exit();
	return ret;
}

static void __exit svcrdma_exit(void)
{
	svcrdma_tunables_exit();
	svcrdma_stats_exit();
	svcrdma_bc_exit();
	svc_unreg_xprt_class(&svcrdma_class);
	svcrdma_devices_exit();
	svcrdma_hdr_pool_exit();
}

module_init(svcrdma_init);
module_exit(svcrdma_exit);

MODULE_DESCRIPTION("RPC-over-RDMA Version 1 server transport (nfsrdma)");
MODULE_AUTHOR("nfsrdma developers");
MODULE_LICENSE("GPL");
