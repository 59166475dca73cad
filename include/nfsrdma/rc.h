/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nfsrdma: what the client's and the server's reliable connections share:
 * how long they wait for an acknowledgement before they send again, and
 * which receive completions carry a message.
 *
 * The local ACK timeout (IBA 9.7.6.1.3, "Timeout") is 4.096 us times
 * 2^value.  For RoCE, 6.1's rdma_cm derives it from a fixed packet
 * lifetime and lands on 19, about 2.1 s (later kernels may derive a
 * shorter one).  A packet lost mid-stream costs little: the
 * next one arrives out of sequence and the peer asks for the gap at once.
 * A lost tail costs the whole timeout, because nothing after it shows the
 * gap: the last response packets of an RDMA Read burst, a Send nothing
 * follows.  On an Ethernet that drops (soft-RoCE without flow control,
 * and the emulated link of our test harness, which drops a few percent of
 * a large RDMA Read's responses) that stall is what a 1 MiB WRITE waits
 * for: 2.6 s at the 90th percentile in make bench, against 0.63 s with
 * the value below.
 *
 * 16 is about 268 ms.  With the six retries our client asks for, a peer
 * that acknowledges nothing still has about 1.9 s before the QP fails and
 * the transport reconnects: far above a fabric's round trip, and above
 * the emulated guests' (milliseconds).  Each transport's module parameter
 * "ack_timeout" sets it; 0 leaves rdma_cm's value.
 *
 * The client sets it before route resolution: for RoCE, rdma_cm then
 * puts one less in the path record as the packet lifetime, and the
 * server's QP, ours or not, derives its own timeout from that unless the
 * server sets one (not necessarily the same value: the server's CM adds
 * its device's ACK delay).
 */
#ifndef NFSRDMA_RC_H
#define NFSRDMA_RC_H

#include <linux/minmax.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define NFSRDMA_ACK_TIMEOUT_DEFAULT	16
#define NFSRDMA_ACK_TIMEOUT_MAX		31	/* a 5-bit field */

/**
 * nfsrdma_set_ack_timeout - apply an ack_timeout module parameter
 * @id: RC connection id: before rdma_resolve_route() on the client,
 *	before rdma_accept() on the server
 * @value: the parameter; 0 keeps rdma_cm's timeout, and a value above
 *	%NFSRDMA_ACK_TIMEOUT_MAX counts as that maximum
 *
 * Context: process context.
 *
 * Return: 0, or rdma_set_ack_timeout()'s error (only for an id that is
 * not RC).
 */
static inline int nfsrdma_set_ack_timeout(struct rdma_cm_id *id,
					  unsigned int value)
{
	if (!value)
		return 0;
	return rdma_set_ack_timeout(id, min_t(unsigned int, value,
					      NFSRDMA_ACK_TIMEOUT_MAX));
}

/**
 * nfsrdma_recv_is_send - whether a receive completion holds a Send
 * @wc: a successful receive completion
 * @size: the size of the buffer the receive posted
 *
 * Only a Send fills a receive buffer.  An RDMA Write with Immediate, which
 * RPC-over-RDMA never uses, consumes a receive too: a zero-length one
 * needs no key, a longer one any key the peer holds for writing (a
 * client's Write or Reply chunk, or on iWARP a server's RDMA Read sink).
 * Its byte_len is the Write's length while the buffer still holds an
 * earlier message, and taken at face value it would have that message
 * decoded, or copied, from far past the buffer's end.
 *
 * Context: any; the receive completion handler.
 *
 * Return: true if @wc is a Send's and fits @size; otherwise the peer
 * broke the protocol, and the caller closes the connection.
 */
static inline bool nfsrdma_recv_is_send(const struct ib_wc *wc, u32 size)
{
	return wc->opcode == IB_WC_RECV && wc->byte_len <= size;
}

#endif /* NFSRDMA_RC_H */
