// SPDX-License-Identifier: GPL-2.0
/*
 * pdata.c: RFC 8797 private data for the hostile peers.  The honest and
 * the valid extreme kinds come from the shared codec's encoder; the
 * malformed kinds start from a valid encoding and break one thing, so
 * each tests exactly one of the decoder's refusals: too short, another
 * format identifier, another version.  The malformed ones claim the
 * largest sizes, so that a peer taking them at face value overruns the
 * buffers the sender really posted.
 */
#include <arpa/inet.h>
#include <string.h>

#include "pdata.h"

int hostile_pdata_build(enum hostile_pdata kind, unsigned int send_size,
			unsigned int recv_size, uint8_t *buf)
{
	struct nfsrdma_wire_cm_pdata pd = {
		.send_size = send_size, .recv_size = recv_size,
	};
	uint32_t foreign = htonl(0x12345678);
	int len;

	if (kind == PDATA_ABSENT)
		return 0;
	if (kind == PDATA_HUGE) {
		pd.send_size = NFSRDMA_WIRE_MAX_INLINE;
		pd.recv_size = NFSRDMA_WIRE_MAX_INLINE;
	} else if (kind == PDATA_SMALL) {
		pd.send_size = NFSRDMA_WIRE_DEFAULT_INLINE;
		pd.recv_size = NFSRDMA_WIRE_DEFAULT_INLINE;
	} else if (kind == PDATA_INV) {
		pd.remote_inv = true;
	}
	len = nfsrdma_wire_encode_cm_pdata(buf, NFSRDMA_WIRE_CM_PDATA_SIZE,
					   &pd);
	if (len < 0)
		return -1;
	switch (kind) {
	case PDATA_SHORT:
		return 4;
	case PDATA_FOREIGN:
		memcpy(buf, &foreign, sizeof(foreign));
		buf[6] = 0xff;
		buf[7] = 0xff;
		break;
	case PDATA_VERSION:
		buf[4] = NFSRDMA_WIRE_CM_PDATA_VERSION + 1;
		buf[6] = 0xff;
		buf[7] = 0xff;
		break;
	default:
		break;
	}
	return len;
}
