// SPDX-License-Identifier: GPL-2.0
/*
 * svcrdma: the RPC-over-RDMA Version 1 server transport.
 *
 * The module is a shell until the transport lands: it loads and unloads
 * cleanly so that packaging, install and the test harness can be proven
 * against it first.
 */

#include <linux/module.h>

static int __init svcrdma_init(void)
{
	return 0;
}

static void __exit svcrdma_exit(void)
{
}

module_init(svcrdma_init);
module_exit(svcrdma_exit);

MODULE_DESCRIPTION("RPC-over-RDMA Version 1 server transport (nfsrdma)");
MODULE_AUTHOR("nfsrdma developers");
MODULE_LICENSE("GPL");
