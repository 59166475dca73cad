// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: the RPC-over-RDMA Version 1 client transport.
 *
 * The module is a shell until the transport lands: it loads and unloads
 * cleanly so that packaging, install and the test harness can be proven
 * against it first.
 */

#include <linux/module.h>

static int __init xprtrdma_init(void)
{
	return 0;
}

static void __exit xprtrdma_exit(void)
{
}

module_init(xprtrdma_init);
module_exit(xprtrdma_exit);

MODULE_DESCRIPTION("RPC-over-RDMA Version 1 client transport (nfsrdma)");
MODULE_AUTHOR("nfsrdma developers");
MODULE_LICENSE("GPL");
