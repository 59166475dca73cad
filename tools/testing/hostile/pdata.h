/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdata.h: RFC 8797 connection private data, honest or crafted, for both
 * hostile peers: the client offers it in its connection request, the
 * server in its accept.
 */
#ifndef NFSRDMA_TESTING_PDATA_H
#define NFSRDMA_TESTING_PDATA_H

#include <stdint.h>

#include "nfsrdma/wire.h"

enum hostile_pdata {
	PDATA_HONEST,	/* RFC 8797 version 1, the caller's size each way */
	PDATA_ABSENT,	/* no private data at all */
	PDATA_SHORT,	/* the format identifier alone: 4 bytes */
	PDATA_FOREIGN,	/* 8 bytes of another format, sizes of 256 KiB */
	PDATA_VERSION,	/* the RFC 8797 layout as version 2, 256 KiB */
	PDATA_HUGE,	/* valid, 256 KiB each way */
	PDATA_SMALL,	/* valid, 1 KiB each way */
	PDATA_INV,	/* honest, and Send With Invalidate welcome */
};

/*
 * Build @kind's private data into @buf (NFSRDMA_WIRE_CM_PDATA_SIZE bytes)
 * and return its length: 0 for none, -1 if a size cannot be encoded.
 * The honest and malformed kinds advertise @send_size and @recv_size.
 * What a conforming peer takes from it is nfsrdma_wire_decode_cm_pdata()
 * of those bytes: the same codec the modules use.
 */
int hostile_pdata_build(enum hostile_pdata kind, unsigned int send_size,
			unsigned int recv_size, uint8_t *buf);

#endif
