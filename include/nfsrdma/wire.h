/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RPC-over-RDMA Version 1 wire codec (RFC 8166, RFC 8797).
 *
 * One implementation shared by the client (xprtrdma), the server
 * (svcrdma) and the userspace unit tests and fuzzer, so that both ends
 * of the transport agree on exactly one reading of the protocol.
 *
 * The codec is pure: it never allocates, sleeps or takes locks, and it
 * never touches a byte outside the buffer and length it is handed.
 */
#ifndef NFSRDMA_WIRE_H
#define NFSRDMA_WIRE_H

#include <linux/types.h>

/* The only transport version this codec speaks. */
#define NFSRDMA_WIRE_VERSION		1

/*
 * Implementation limits.  The RFC puts no bound on list lengths; these
 * bound the fixed arrays in struct nfsrdma_wire_hdr.  A peer that goes
 * past one gets -E2BIG from the decoder (answer it with ERR_CHUNK).
 *
 * NFSRDMA_WIRE_MAX_CHUNK_SEGS: segments in one chunk (a Write chunk, the
 * Reply chunk, or the run of Read segments sharing one position).  A
 * 1 MiB NFS payload registered one 4 KiB page per segment, which a
 * device with a shallow FRWR page list forces, needs 256 segments; a
 * payload that starts mid-page touches one more, and the rest is slack.
 *
 * NFSRDMA_WIRE_MAX_READ_SEGS: the whole Read list.  One full data chunk
 * plus a few segments for a second chunk, e.g. a Position-zero chunk
 * carrying a long call header in front of a WRITE payload.
 *
 * NFSRDMA_WIRE_MAX_WRITE_CHUNKS: Write list entries.  Linux clients send
 * at most one; an NFSv4 COMPOUND with several READs could use more.
 *
 * NFSRDMA_WIRE_MAX_SEGS: segments of the Write list and the Reply chunk
 * together; they share one pool (struct nfsrdma_wire_hdr.segs) because
 * a receive buffer never holds a full-size Write chunk and a full-size
 * Reply chunk at once, and a pool keeps the struct near 10 KiB instead
 * of the ~27 KiB that per-chunk arrays would cost.
 *
 * NFSRDMA_WIRE_MAX_CHUNK_BYTES: the sum of the segment lengths of one
 * chunk, added up in 64 bits.  A chunk carries one XDR data item (or a
 * whole RPC message), whose length XDR encodes in 32 bits.
 */
#define NFSRDMA_WIRE_MAX_CHUNK_SEGS	260
#define NFSRDMA_WIRE_MAX_READ_SEGS	264
#define NFSRDMA_WIRE_MAX_WRITE_CHUNKS	4
#define NFSRDMA_WIRE_MAX_SEGS		272
#define NFSRDMA_WIRE_MAX_CHUNK_BYTES	0xffffffffULL

/*
 * Encoded sizes, in bytes.  The first three words (xid, vers, credit)
 * sit at the same place in every protocol version, and so does the
 * procedure word after them.
 */
#define NFSRDMA_WIRE_PREFIX_SIZE	12	/* xid, vers, credit */
#define NFSRDMA_WIRE_FIXED_SIZE		16	/* ... plus proc */
#define NFSRDMA_WIRE_MIN_MSG_SIZE	28	/* MSG/NOMSG, three empty lists */
#define NFSRDMA_WIRE_ERR_CHUNK_SIZE	20
#define NFSRDMA_WIRE_ERR_VERS_SIZE	28
#define NFSRDMA_WIRE_SEG_SIZE		16	/* handle, length, offset */
#define NFSRDMA_WIRE_READ_ENTRY_SIZE	24	/* present, position, segment */

/* Largest header the encoder can produce or the decoder can accept. */
#define NFSRDMA_WIRE_MAX_HDR_SIZE					\
	(NFSRDMA_WIRE_FIXED_SIZE + 8 /* MSGP align, thresh */ +		\
	 NFSRDMA_WIRE_MAX_READ_SEGS * NFSRDMA_WIRE_READ_ENTRY_SIZE + 4 +	\
	 NFSRDMA_WIRE_MAX_WRITE_CHUNKS * 8 + 4 +				\
	 8 + NFSRDMA_WIRE_MAX_SEGS * NFSRDMA_WIRE_SEG_SIZE)

/* RFC 8797 connection manager private data. */
#define NFSRDMA_WIRE_CM_PDATA_SIZE	8
#define NFSRDMA_WIRE_CM_PDATA_MAGIC	0xf6ab0e18U
#define NFSRDMA_WIRE_CM_PDATA_VERSION	1
#define NFSRDMA_WIRE_CM_FLAG_REMOTE_INV	0x01
/* Inline size a peer that sent no private data is assumed to use. */
#define NFSRDMA_WIRE_DEFAULT_INLINE	1024
/* One octet of (size / 1024) - 1 reaches 256 KiB and no further. */
#define NFSRDMA_WIRE_MAX_INLINE		(256 * 1024)

/**
 * enum nfsrdma_wire_proc - RPC-over-RDMA procedure (rdma_proc) values
 * @NFSRDMA_WIRE_PROC_MSG: RPC message follows the header inline
 * @NFSRDMA_WIRE_PROC_NOMSG: RPC message travels in a chunk, none inline
 * @NFSRDMA_WIRE_PROC_MSGP: padded message; RFC 8166 forbids sending it
 * @NFSRDMA_WIRE_PROC_DONE: Read-Read completion; RFC 8166 forbids it
 * @NFSRDMA_WIRE_PROC_ERROR: transport error report, no RPC message
 */
enum nfsrdma_wire_proc {
	NFSRDMA_WIRE_PROC_MSG	= 0,
	NFSRDMA_WIRE_PROC_NOMSG	= 1,
	NFSRDMA_WIRE_PROC_MSGP	= 2,
	NFSRDMA_WIRE_PROC_DONE	= 3,
	NFSRDMA_WIRE_PROC_ERROR	= 4,
};

/**
 * enum nfsrdma_wire_errcode - rdma_err values carried by RDMA_ERROR
 * @NFSRDMA_WIRE_ERR_VERS: version not supported; carries the supported range
 * @NFSRDMA_WIRE_ERR_CHUNK: header unparseable or chunks unusable
 */
enum nfsrdma_wire_errcode {
	NFSRDMA_WIRE_ERR_VERS	= 1,
	NFSRDMA_WIRE_ERR_CHUNK	= 2,
};

/**
 * enum nfsrdma_wire_dir - which way a received message travels
 * @NFSRDMA_WIRE_DIR_CALL: an RPC Call, sent by a requester
 * @NFSRDMA_WIRE_DIR_REPLY: an RPC Reply or RDMA_ERROR, sent by a responder
 */
enum nfsrdma_wire_dir {
	NFSRDMA_WIRE_DIR_CALL,
	NFSRDMA_WIRE_DIR_REPLY,
};

/**
 * struct nfsrdma_wire_seg - one RDMA segment (registered memory region)
 * @handle: steering tag (R_key) of the registration
 * @length: length of the region in bytes; may be zero, see wire-codec.rst
 * @offset: remote virtual address or offset; any 64-bit value
 */
struct nfsrdma_wire_seg {
	u32 handle;
	u32 length;
	u64 offset;
};

/**
 * struct nfsrdma_wire_read_seg - one Read list entry
 * @position: byte offset in the RPC message's XDR stream where the data
 *	belongs; consecutive entries with equal positions form one Read chunk
 * @seg: the memory the responder pulls with RDMA Read
 */
struct nfsrdma_wire_read_seg {
	u32 position;
	struct nfsrdma_wire_seg seg;
};

/**
 * struct nfsrdma_wire_chunk - a Write chunk or the Reply chunk
 * @first: index of the chunk's first segment in &nfsrdma_wire_hdr.segs
 * @nr_segs: number of segments, consecutive in &nfsrdma_wire_hdr.segs
 */
struct nfsrdma_wire_chunk {
	u32 first;
	u32 nr_segs;
};

/**
 * struct nfsrdma_wire_hdr - decoded RPC-over-RDMA Version 1 transport header
 * @xid: transaction ID exactly as on the wire, like sunrpc's rq_xid
 * @vers: rdma_vers
 * @credits: rdma_credit (credits requested or granted; not checked here)
 * @proc: rdma_proc, one of &enum nfsrdma_wire_proc
 * @hdr_len: bytes of transport header consumed by the decoder; the inline
 *	RPC message, if any, starts here.  Ignored by the encoder.
 * @nr_read: entries used in @read
 * @nr_write: entries used in @write
 * @has_reply: a Reply chunk is present and described by @reply
 * @write: the Write list, in wire order
 * @reply: the Reply chunk, meaningful only if @has_reply
 * @msgp_align: RDMA_MSGP rdma_align (decoded only so it can be refused)
 * @msgp_thresh: RDMA_MSGP rdma_thresh (ditto)
 * @err: RDMA_ERROR rdma_err, one of &enum nfsrdma_wire_errcode
 * @vers_low: ERR_VERS lowest version the peer supports
 * @vers_high: ERR_VERS highest version the peer supports
 * @read: the Read list, in wire order
 * @segs: segment pool for @write and @reply; the decoder fills it with
 *	the Write list's segments first, then the Reply chunk's
 *
 * The caller owns this structure; at 10784 bytes on x86-64 it belongs in
 * a per-receive context allocated once, not on the stack.  The
 * decoder writes only the members the message uses, so array entries
 * past the counts hold stale data.  Lists are meaningful for
 * %NFSRDMA_WIRE_PROC_MSG, %NFSRDMA_WIRE_PROC_NOMSG and
 * %NFSRDMA_WIRE_PROC_MSGP; @err, @vers_low and @vers_high only for
 * %NFSRDMA_WIRE_PROC_ERROR.
 */
struct nfsrdma_wire_hdr {
	__be32 xid;
	u32 vers;
	u32 credits;
	u32 proc;
	u32 hdr_len;

	u32 nr_read;
	u32 nr_write;
	bool has_reply;
	struct nfsrdma_wire_chunk write[NFSRDMA_WIRE_MAX_WRITE_CHUNKS];
	struct nfsrdma_wire_chunk reply;

	u32 msgp_align;
	u32 msgp_thresh;

	u32 err;
	u32 vers_low;
	u32 vers_high;

	struct nfsrdma_wire_read_seg read[NFSRDMA_WIRE_MAX_READ_SEGS];
	struct nfsrdma_wire_seg segs[NFSRDMA_WIRE_MAX_SEGS];
};

/**
 * struct nfsrdma_wire_cm_pdata - RFC 8797 private data, in host units
 * @send_size: largest RPC-over-RDMA message the sender will send, bytes
 * @recv_size: size of the receive buffers the sender posts, bytes
 * @remote_inv: the sender accepts Send With Invalidate
 */
struct nfsrdma_wire_cm_pdata {
	u32 send_size;
	u32 recv_size;
	bool remote_inv;
};

/**
 * nfsrdma_wire_chunk_segs - first segment of a Write or Reply chunk
 * @hdr: header holding the segment pool
 * @chunk: &nfsrdma_wire_hdr.write entry or &nfsrdma_wire_hdr.reply
 *
 * Context: any.  @chunk must come from a successful decode of @hdr or
 * have been checked by nfsrdma_wire_hdr_size().
 *
 * Return: pointer to @chunk->nr_segs consecutive segments.
 */
static inline const struct nfsrdma_wire_seg *
nfsrdma_wire_chunk_segs(const struct nfsrdma_wire_hdr *hdr,
			const struct nfsrdma_wire_chunk *chunk)
{
	return &hdr->segs[chunk->first];
}

int nfsrdma_wire_decode(struct nfsrdma_wire_hdr *hdr, const void *buf,
			size_t len);
int nfsrdma_wire_encode(void *buf, size_t buflen,
			const struct nfsrdma_wire_hdr *hdr);
int nfsrdma_wire_hdr_size(const struct nfsrdma_wire_hdr *hdr);
u32 nfsrdma_wire_chunks_size(u32 nr_read_segs, u32 nr_write_chunks,
			     u32 nr_write_segs, bool has_reply,
			     u32 nr_reply_segs);
int nfsrdma_wire_check_inline(const struct nfsrdma_wire_hdr *hdr,
			      size_t inline_len, enum nfsrdma_wire_dir dir);
int nfsrdma_wire_encode_err_vers(void *buf, size_t buflen, __be32 xid,
				 u32 credits, u32 low, u32 high);
int nfsrdma_wire_encode_plain(void *buf, size_t buflen, __be32 xid,
			      u32 credits);
int nfsrdma_wire_encode_err_chunk(void *buf, size_t buflen, __be32 xid,
				  u32 credits);
int nfsrdma_wire_decode_cm_pdata(struct nfsrdma_wire_cm_pdata *pd,
				 const void *buf, size_t len);
int nfsrdma_wire_encode_cm_pdata(void *buf, size_t buflen,
				 const struct nfsrdma_wire_cm_pdata *pd);

#endif /* NFSRDMA_WIRE_H */
